import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { createClient } from '../../src/client/index.js';
import { tempConfigDir } from '../support/fake-io.js';
import { fakeClock } from '../support/fake-clock.js';
import { runCli } from './run-cli.js';
import { scriptedPrompter } from './scripted-prompter.js';

/**
 * Every command against a server that sends only what the interface document guarantees (the lean sandbox):
 * no crash, no `undefined`, `NaN` or `[object Object]` where a value is missing, and the same exit codes.
 */
let sandbox: Sandbox;
let config: { dir: string; cleanup: () => void };
let order: string;
let deposit: string;
beforeEach(async () => {
  sandbox = await createSandbox({ lean: true, rateLimit: false });
  config = tempConfigDir();
  const rich = sandbox.account('rich');
  const client = createClient({ baseUrl: sandbox.baseUrl, token: rich.token, fetch: sandbox.fetch, pacing: false });
  order = (await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 })).invoice.invoice_code;
  deposit = (await sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: false })).invoice_code;
  await sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: true });
});
afterEach(() => config.cleanup());

const lean = (args: string[], tty: boolean) => {
  const rich = sandbox.account('rich');
  return runCli(config.dir, [...args, '--base-url', sandbox.baseUrl, ...(tty ? ['--no-color', '--no-input'] : [])], {
    tty,
    fetch: sandbox.fetch,
    clock: fakeClock(),
    env: { TOPUP_TOKEN: rich.token },
  });
};

const NOT_SHOWN = /undefined|NaN|\[object Object\]|null(?!\))/;

describe('every command against the lean sandbox', () => {
  const commands = (): string[][] => [
    ['health'],
    ['packages'],
    ['payment-methods'],
    ['articles', 'list'],
    ['articles', 'list', '--all'],
    ['articles', 'show', 'keeping-your-api-token-safe'],
    ['me'],
    ['dashboard'],
    ['balance'],
    ['transactions'],
    ['transactions', '--all'],
    ['deposits', 'list'],
    ['deposits', 'show', deposit],
    ['orders', 'list'],
    ['orders', 'list', '--all'],
    ['orders', 'show', order],
    ['invoices', 'show', order],
    ['invoices', 'status', order],
    ['auth', 'status'],
    ['doctor', '--contract'],
    ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9002'],
  ];
  for (const tty of [true, false]) {
    it(`renders what it gets, a dash for the rest (${tty ? 'terminal' : 'piped'})`, async () => {
      for (const args of commands()) {
        const result = await lean(args, tty);
        expect(result.code, `${args.join(' ')}: ${result.err}`).toBe(0);
        expect(result.out, args.join(' ')).not.toMatch(NOT_SHOWN);
        expect(result.err, args.join(' ')).not.toMatch(NOT_SHOWN);
      }
    });
  }

  it('balance: a dash where the server sent nothing, never a made-up zero', async () => {
    expect((await lean(['balance'], false)).out).toBe('balance: -\ncurrency: -\nupdated_at: -\n');
  });

  it('orders list: the fields it has, dashes for the rest, and no page hint the server never gave', async () => {
    const result = await lean(['orders', 'list'], true);
    expect(result.out).toMatch(new RegExp(`^${order} +pending +- +gamepass +BuilderBob +100 +- +-$`, 'm'));
    expect(result.err).not.toMatch(/Page \d/);
  });

  it('--all without pagination: the first page, and a sentence that says it may not be all (piped too)', async () => {
    const result = await lean(['articles', 'list', '--all'], false);
    expect(result.code).toBe(0);
    expect(result.out.trim().split('\n')).toHaveLength(10);
    expect(result.err).toContain(
      'The server does not say whether there are more articles than these (its answer has no pagination); only the first page is shown.',
    );
    // On a terminal, the count after the table says it is the first page's, not a total.
    const shown = await lean(['articles', 'list', '--all'], true);
    expect(shown.code).toBe(0);
    expect(shown.err.trimEnd().split('\n').at(-1)).toBe('10 articles on the first page; the server does not say whether more follow.');
  });

  it('orders create: the order is made and reported, without the invoice.order of one published shape', async () => {
    const result = await lean(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9002'], true);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/^order +-$/m);
    expect(result.out).toMatch(/^total +Rp [0-9.]+$/m);
  });

  it('the wizard, when the server lists payment methods without codes, asks for the code (default invoice)', async () => {
    const rich = sandbox.account('rich');
    const prompter = scriptedPrompter([{ input: '9001' }, { input: 'invoice' }, { confirm: true }, { confirm: false }]);
    const result = await runCli(
      config.dir,
      [
        '--no-color',
        'orders',
        'create',
        '--type',
        'gamepass',
        '--username',
        'BuilderBob',
        '--place',
        '5001',
        '--base-url',
        sandbox.baseUrl,
      ],
      {
        tty: true,
        prompter,
        fetch: sandbox.fetch,
        clock: fakeClock(),
        env: { TOPUP_TOKEN: rich.token },
      },
    );
    expect(result.code, result.err).toBe(0);
    expect(prompter.asked[1]).toMatchObject({
      kind: 'input',
      message: 'Payment method code (the server lists its methods without codes; the default is invoice):',
      default: 'invoice',
    });
    expect(prompter.left()).toBe(0);
  });

  it('invoices status --wait: finality from payment_status, no invented is_final needed', async () => {
    await sandbox.control.pay(order);
    const result = await lean(['invoices', 'status', order, '--wait'], false);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^payment_status: paid$/m);
    expect(result.out).toMatch(/^is_final: -$/m);
  });
});

describe('a detail answer whose record is not wrapped (the document shows none of these shapes)', () => {
  /** The lean sandbox's answer to `path`, with `data` replaced by what `reshape` makes of it. */
  const reshaping =
    (path: string, reshape: (data: Record<string, unknown>) => Record<string, unknown>): typeof fetch =>
    async (input, init) => {
      const answer = await sandbox.fetch(input, init);
      if (!(input instanceof Request ? input.url : String(input)).endsWith(path)) return answer;
      const body = (await answer.json()) as { data: Record<string, unknown> };
      body.data = reshape(body.data);
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
  const run = (args: string[], fetch: typeof globalThis.fetch) =>
    runCli(config.dir, [...args, '--base-url', sandbox.baseUrl], { fetch, env: { TOPUP_TOKEN: sandbox.account('rich').token } });

  it('its fields in data itself are read from there, with a notice; an empty data is still an error', async () => {
    // The lean sandbox guarantees no field of these records: the flat answers carry a few, as such a server might.
    const flat = await run(
      ['me'],
      reshaping('/api/v1/me', () => ({ username: 'rich', email: 'rich@example.test' })),
    );
    expect(flat.code, flat.err).toBe(0);
    expect(flat.out).toMatch(/^username: rich$/m);
    expect(flat.err).toBe("The server's answer has no user object; its fields are read from the answer's data itself.\n");
    const shown = await run(
      ['orders', 'show', order],
      reshaping(`/api/v1/me/orders/${order}`, () => ({ invoice_code: order, status: 'pending' })),
    );
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(`invoice_code: ${order}`);
    const empty = await run(
      ['me'],
      reshaping('/api/v1/me', () => ({})),
    );
    expect(empty).toMatchObject({ code: 1, out: '', err: "Error: The server's answer has no user.\n" });
  });
});
