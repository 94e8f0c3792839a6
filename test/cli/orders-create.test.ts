import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { describe, expect, it } from 'vitest';
import { missingFlags, orderBody, usableMethods } from '../../src/cli/commands/orders/create-run.js';
import type { PaymentMethod } from '../../src/contract/index.js';
import { createClient } from '../../src/client/index.js';
import { embeddedJsonError, EMBEDDED_NOTICE, LEAN } from '../support/cli-assertions.js';
import { useServedCli, type RunOptions, type ServedSandbox } from './run-cli.js';
import { scriptedPrompter, type Answer } from './scripted-prompter.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const bob9001 = ['--username', 'BuilderBob', '--place', '5001', '--pass', '9001'];

let served: ServedSandbox;
let configDir: string;
const topup = useServedCli(
  (context) => {
    served = context.served;
    configDir = context.configDir;
  },
  { reset: true },
);

/** Runs against the served sandbox as `rich` (production, chat-linked, with balance), by URL and TOPUP_TOKEN. */
const asRich = (args: string[], options: RunOptions = {}) =>
  topup([...args, '--base-url', served.url], { ...options, env: { TOPUP_TOKEN: served.token('rich'), ...options.env } });

const keyLineOf = (err: string) => /^Idempotency key: (\S+) {2}\(repeat safely with --idempotency-key (\S+)\)$/m.exec(err);

async function richOrders() {
  const client = createClient({ baseUrl: served.url, token: served.token('rich') });
  return (await client.orders.list()).orders!;
}

describe('orders create, scripted (flags, piped)', () => {
  it('embedded: stdout is only the invoice code; stderr has the key (before sending), the total and where to pay', async () => {
    const result = await topup(['orders', 'create', ...bob9001]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^INV\d+\n$/);
    const invoice = result.out.trim();
    const key = keyLineOf(result.err);
    expect(key?.[1]).toMatch(UUID);
    expect(key?.[2]).toBe(key?.[1]);
    const lines = result.err.trim().split('\n');
    expect(lines.indexOf(key![0])).toBe(0);
    expect(lines).toContain(`Total Rp 12.000, pending; pay at http://sandbox.localhost/user/invoice/${invoice}`);
    // Piped: the key, the total and where to pay, but no success chatter (the exit code says it).
    expect(lines.at(-1)).toBe(`Total Rp 12.000, pending; pay at http://sandbox.localhost/user/invoice/${invoice}`);
    const watched = await topup(['orders', 'create', ...bob9001], { stderrTTY: true, color: false });
    expect(watched.err.trim().split('\n').at(-1)).toBe(`✓ Order ${watched.out.trim()} created.`);
    expect(result.err).toMatch(/embedded offline sandbox/);
    expect(result.err).not.toMatch(ANSI_ESCAPE);

    // The order is in the offline sandbox's persisted state.
    const shown = await topup(['orders', 'show', invoice, '--json']);
    expect(JSON.parse(shown.out).order).toMatchObject(
      LEAN
        ? { invoice_code: invoice, platform_username: 'BuilderBob' }
        : { invoice_code: invoice, platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, environment: 'sandbox' },
    );
  });

  it('--json: stdout is exactly the response data, stderr only the embedded notice and the key line', async () => {
    const result = await topup(['--json', 'orders', 'create', ...bob9001, '--reference', 'chat-1', '--idempotency-key', 'json-run-1']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.out);
    // Lean: the document guarantees the invoice and `idempotent`; `order`, `gateway` and `environment` are one shape's.
    expect(Object.keys(data).sort()).toEqual(
      LEAN ? ['environment', 'idempotent', 'invoice'] : ['environment', 'gateway', 'idempotent', 'invoice'],
    );
    expect(data).toMatchObject(
      LEAN
        ? { idempotent: false, invoice: { amount: 12_000, payment_status: 'pending' } }
        : {
            idempotent: false,
            gateway: null,
            environment: 'sandbox',
            invoice: { amount: 12_000, payment_status: 'pending', order: { platform_username: 'BuilderBob' } },
          },
    );
    expect(result.err).toBe(`${EMBEDDED_NOTICE}Idempotency key: json-run-1  (repeat safely with --idempotency-key json-run-1)\n`);
  });

  it('the same --idempotency-key and body returns the earlier order, and says nothing new was ordered', async () => {
    const first = await topup(['orders', 'create', ...bob9001, '--idempotency-key', 'retry-me-1']);
    const again = await topup(['orders', 'create', ...bob9001, '--idempotency-key', 'retry-me-1']);
    expect(again.code).toBe(0);
    expect(again.out).toBe(first.out);
    expect(again.err).toContain('This idempotency key was used before: this is the earlier order, and nothing new was ordered.');
    expect(again.err).not.toContain('created.');
  });

  it("an answer lost after the server made the order: the retry's order is this run's, said as created", async () => {
    // The served sandbox commits the order, then drops the connection; the client sends it again with the same key.
    const dropOnce = () => served.sandbox.faults.configure({ rules: [{ kind: 'drop_after', times: 1, routes: ['createOrder'] }] });
    dropOnce();
    const piped = await asRich(['orders', 'create', ...bob9001]);
    expect(piped.code).toBe(0);
    expect(piped.out).toMatch(/^INV\d+\n$/);
    expect(piped.err).not.toContain('used before');
    dropOnce();
    const watched = await asRich(['orders', 'create', ...bob9001], { stderrTTY: true, color: false });
    expect(watched.err.trim().split('\n').at(-1)).toBe(
      `✓ Order ${watched.out.trim()} created (its first answer was lost; sent again with its key, the server returned it).`,
    );
    // With the user's own key, the order may be an earlier run's: both are said.
    dropOnce();
    const own = await asRich(['orders', 'create', ...bob9001, '--idempotency-key', 'own-key-1']);
    expect(own.err).toContain("This idempotency key's order was returned after an answer was lost: this run's first attempt made it");
    expect((await richOrders()).map((order) => order.invoice_code).sort()).toEqual(
      [piped.out.trim(), watched.out.trim(), own.out.trim()].sort(),
    );
  });

  it('a --jq filter that fails on the made order says which order it was, and its key', async () => {
    const failed = await asRich(['orders', 'create', ...bob9001, '--jq', '.invoice | error("boom")']);
    expect(failed.code).toBe(1);
    expect(failed.out).toBe('');
    const envelope = JSON.parse(failed.err.trim().split('\n').at(-1)!) as { message: string; idempotency_key?: string };
    const [order] = await richOrders();
    expect(envelope.message).toBe(
      `Order ${order!.invoice_code} was created, but its answer could not be printed: The --jq expression failed on the data: boom.`,
    );
    expect(envelope.idempotency_key).toMatch(UUID);
    // The key it names gets that very order back.
    const again = await asRich(['orders', 'create', ...bob9001, '--idempotency-key', envelope.idempotency_key!]);
    expect(again.out.trim()).toBe(order!.invoice_code);
    expect(await richOrders()).toHaveLength(1);
  });

  it('the same key with a different body is a conflict (exit 5)', async () => {
    await topup(['orders', 'create', ...bob9001, '--idempotency-key', 'retry-me-2']);
    const other = await topup([
      'orders',
      'create',
      '--username',
      'BuilderBob',
      '--place',
      '5001',
      '--pass',
      '9002',
      '--idempotency-key',
      'retry-me-2',
    ]);
    expect(other.code).toBe(5);
    expect(other.out).toBe('');
    expect(other.err).toContain('Error: This Idempotency-Key was already used with a different request.');
  });

  it('a refused order (422) is exit 5, and does not suggest repeating a request that would be refused again', async () => {
    const result = await topup(['orders', 'create', '--username', 'ghost_user_404', '--place', '5001', '--pass', '9001']);
    expect(result.code).toBe(5);
    expect(result.out).toBe('');
    expect(keyLineOf(result.err)).not.toBeNull();
    expect(result.err).not.toContain('Retry safely');
    expect(result.err).toMatch(/^Error: .*ghost_user_404/m);
  });

  it('with --json, a refused order is only the error envelope (holding the key) on stderr', async () => {
    const result = await topup([
      '--json',
      'orders',
      'create',
      '--username',
      'ghost_user_404',
      '--place',
      '5001',
      '--pass',
      '9001',
      '--idempotency-key',
      'k-422',
    ]);
    expect(result.code).toBe(5);
    expect(result.out).toBe('');
    expect(embeddedJsonError(result.err)).toMatchObject({
      success: false,
      error: { code: 'PLATFORM_VALIDATION_FAILED' },
      idempotency_key: 'k-422',
    });
  });

  it('a sandbox token may not pay by balance (exit 5)', async () => {
    const result = await topup(['orders', 'create', ...bob9001, '--payment-method', 'balance']);
    expect(result.code).toBe(5);
    expect(result.err).toContain("Error: Sandbox tokens can only pay by invoice, not by 'balance'.");
  });

  it('interrupted with --json while the order is in flight, the key still reaches stderr (exit 130)', async () => {
    const controller = new AbortController();
    // Ctrl-C lands while the request is on its way.
    const fetch: typeof globalThis.fetch = (input, init) => {
      controller.abort(Object.assign(new Error('Interrupted.'), { name: 'InterruptedError' }));
      return globalThis.fetch(input, init);
    };
    const result = await asRich(['--json', 'orders', 'create', ...bob9001, '--idempotency-key', 'ctrl-c-1'], {
      signal: controller.signal,
      fetch,
    });
    expect(result).toEqual({ code: 130, out: '', err: 'Idempotency key: ctrl-c-1  (repeat safely with --idempotency-key ctrl-c-1)\n' });
  });

  it('served, production token: pays by balance with --chat-user-id and --yes, at once', async () => {
    const result = await asRich(['orders', 'create', ...bob9001, '--payment-method', 'balance', '--chat-user-id', '700000001', '--yes'], {
      stderrTTY: true,
      color: false,
    });
    expect(result.code).toBe(0);
    const invoice = result.out.trim();
    expect(result.err).toContain(`Total Rp 12.000, paid; invoice ${served.url}/user/invoice/${invoice}`);
    expect(result.err).toContain(`✓ Order ${invoice} created and paid.`);
  });

  it('served: paying by balance without the chat user id is CHAT_LINK_REQUIRED (exit 5)', async () => {
    const result = await asRich(['--json', 'orders', 'create', ...bob9001, '--payment-method', 'balance', '--yes']);
    expect(result.code).toBe(5);
    expect(JSON.parse(result.err)).toMatchObject({ error: { code: 'CHAT_LINK_REQUIRED' } });
  });

  it("served: without --json, the server's sentence and then the flag and config key that send the chat user id", async () => {
    const result = await asRich(['orders', 'create', ...bob9001, '--payment-method', 'balance', '--yes']);
    expect(result.code).toBe(5);
    const lines = result.err.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^Error: .*X-Chat-User-ID/);
    expect(lines.at(-1)).toBe(
      'Give the chat user id linked to this account with --chat-user-id ID, or store it for the profile: topup config set chat_user_id ID',
    );
  });

  it("the chat user id falls back to the profile's chat_user_id", async () => {
    expect((await topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: served.token('rich') })).code).toBe(0);
    expect((await topup(['config', 'set', 'chat_user_id', '700000001'])).code).toBe(0);
    const result = await topup(['orders', 'create', ...bob9001, '--payment-method', 'balance', '--type', 'gamepass', '--yes'], {
      stderrTTY: true,
      color: false,
    });
    expect(result.code).toBe(0);
    expect(result.err).toContain('created and paid.');
  });

  it('--debug shows the request with the key and a redacted Authorization, never the token', async () => {
    const result = await asRich(['--debug', 'orders', 'create', ...bob9001, '--idempotency-key', 'debug-1']);
    expect(result.code).toBe(0);
    expect(result.err).toContain(`> POST ${served.url}/api/v1/me/orders`);
    expect(result.err).toContain('"idempotency-key":"debug-1"');
    // The one redaction (src/contract/redact.ts): the token's family and last 4 characters.
    expect(result.err).toContain(`"authorization":"Bearer topup_live_…${served.token('rich').slice(-4)}"`);
    expect(result.err).not.toContain(served.token('rich'));
  });
});

describe('orders create: argument parsing', () => {
  it.each<[string, string[], RunOptions, string]>([
    [
      'all required flags missing, piped',
      [],
      {},
      'Error: Missing --username, --place, --pass: pass them as flags (there is no terminal to ask on).\n',
    ],
    [
      'one required flag missing, piped',
      ['--place', '5001', '--pass', '9001'],
      {},
      'Error: Missing --username: pass it as a flag (there is no terminal to ask on).\n',
    ],
    [
      'a missing flag with --no-input on a terminal',
      ['--no-input', '--no-color', '--username', 'BuilderBob'],
      { tty: true },
      'Error: Missing --place, --pass: pass them as flags (--no-input is set).\n',
    ],
    [
      'a place that is not a number',
      [...bob9001, '--place', 'five'],
      {},
      "Error: option '--place <id>' argument 'five' is invalid. --place must be a whole number.\n",
    ],
    [
      'a pass of zero',
      [...bob9001, '--pass', '0'],
      {},
      "Error: option '--pass <id>' argument '0' is invalid. --pass must be at least 1.\n",
    ],
    [
      'an unknown type',
      [...bob9001, '--type', 'robux'],
      {},
      "Error: option '--type <type>' argument 'robux' is invalid. Allowed choices are gamepass, vip_server.\n",
    ],
    [
      'an idempotency key with a space',
      [...bob9001, '--idempotency-key', 'a b'],
      {},
      "Error: option '--idempotency-key <key>' argument 'a b' is invalid. An idempotency key is 1 to 255 visible ASCII characters without spaces.\n",
    ],
    ['an unknown option', [...bob9001, '--price', '1'], {}, "Error: unknown option '--price'\n(Did you mean --place?)\n"],
  ])('%s is a usage error (exit 2) with one clear line, before anything is sent', async (_name, args, options, err) => {
    const result = await topup(['orders', 'create', ...args], options);
    expect(result).toEqual({ code: 2, out: '', err });
  });

  it('missingFlags lists the required flags in the order the wizard asks', () => {
    expect(missingFlags({ yes: false })).toEqual(['--username', '--place', '--pass']);
    expect(missingFlags({ yes: false, username: 'x', pass: 1 })).toEqual(['--place']);
    expect(missingFlags({ yes: false, username: 'x', place: 1, pass: 1 })).toEqual([]);
  });

  it('orderBody sends only what was chosen, with the type made explicit', () => {
    const base = { username: 'BuilderBob', place: 5001, pass: 9001, paymentMethod: undefined, reference: undefined, chatUserId: '7' };
    expect(orderBody({ ...base, type: undefined })).toEqual({
      order_type: 'gamepass',
      platform_username: 'BuilderBob',
      place_id: 5001,
      platform_pass_id: 9001,
    });
    expect(orderBody({ ...base, type: 'vip_server', paymentMethod: 'qris', reference: 'r1' })).toEqual({
      order_type: 'vip_server',
      platform_username: 'BuilderBob',
      place_id: 5001,
      platform_pass_id: 9001,
      payment_method: 'qris',
      client_reference: 'r1',
    });
  });

  it('usableMethods keeps only sandbox-allowed methods for sandbox tokens', () => {
    const methods = [
      { code: 'invoice', sandbox_allowed: true },
      { code: 'balance', sandbox_allowed: false },
    ] as PaymentMethod[];
    expect(usableMethods(methods, 'sandbox').map((m) => m.code)).toEqual(['invoice']);
    expect(usableMethods(methods, 'production').map((m) => m.code)).toEqual(['invoice', 'balance']);
    expect(usableMethods(methods, undefined).map((m) => m.code)).toEqual(['invoice', 'balance']);
  });

  it('help has a description and examples', async () => {
    const result = await topup(['orders', 'create', '--help']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('Create an order');
    expect(result.out).toMatch(/Examples:\n {2}\$ topup orders create/);
  });
});

describe('orders create on a terminal', () => {
  const wizardAsRich = (script: Answer[], args: string[] = []) => {
    const prompter = scriptedPrompter(script);
    return { prompter, run: asRich(['--no-color', 'orders', 'create', ...args], { tty: true, prompter }) };
  };

  // The payment-method list of a lean server has no codes to choose from (its fallback question is tested in lean-server.test.ts).
  it.skipIf(LEAN)('the wizard asks for every missing value, lists the payment methods, shows a summary and creates on yes', async () => {
    const { prompter, run } = wizardAsRich(
      [
        { select: 'vip_server' },
        { input: 'BuilderBob' },
        { input: '5001' },
        { input: '7001' },
        { select: 'qris' },
        { confirm: true },
        { confirm: false },
      ],
      ['--reference', 'wiz-1', '--idempotency-key', 'wizard-1'],
    );
    const result = await run;
    expect(result.code).toBe(0);
    expect(prompter.left()).toBe(0);
    expect(prompter.asked.map((q) => `${q.kind}: ${q.message}`)).toEqual([
      'select: What to order:',
      'input: Platform username:',
      'input: Place id:',
      'input: VIP server id:',
      'select: Payment method:',
      'confirm: Create this order?',
      'confirm: Wait here until the invoice is paid?',
    ]);
    // Every active method a production token may use, from the catalog; the inactive card is not offered.
    expect(prompter.asked[4]!.choices).toEqual(['invoice', 'balance', 'qris', 'bank_transfer']);
    expect(result.err).toContain(
      [
        'type             vip_server',
        'username         BuilderBob',
        'place            5001',
        'VIP server       7001',
        'payment          qris',
        'reference        wiz-1',
        'idempotency key  wizard-1',
      ].join('\n'),
    );
    const orders = await richOrders();
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ order_type: 'vip_server', platform_username: 'BuilderBob', credit_amount: 200 });
    const invoice = orders[0]!.invoice_code!;
    expect(result.out).toContain(`invoice      ${invoice}`);
    expect(result.out).toContain('total        Rp 24.000');
    expect(result.out).toMatch(new RegExp(`payment_url  ${served.url.replace(/\./g, '\\.')}/\\S+`));
    // The command to paste goes where this one went, not to the default profile's server.
    expect(result.err).toContain(`Check it later with: topup --base-url ${served.url} invoices status ${invoice} --wait`);
    expect(result.out + result.err).not.toMatch(ANSI_ESCAPE);
  });

  // The payment-method list of a lean server has no codes to choose from (its fallback question is tested in lean-server.test.ts).
  it.skipIf(LEAN)('asks only for what the flags leave out, and --yes skips the confirmation and the offer to wait', async () => {
    const { prompter, run } = wizardAsRich(
      [{ input: '9001' }, { select: 'invoice' }],
      ['--username', 'BuilderBob', '--place', '5001', '--type', 'gamepass', '--yes'],
    );
    const result = await run;
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual(['Game pass id:', 'Payment method:']);
    expect(await richOrders()).toHaveLength(1);
  });

  // The payment-method list of a lean server has no codes to choose from (its fallback question is tested in lean-server.test.ts).
  it.skipIf(LEAN)('paying by balance without a chat user id asks for it', async () => {
    const { prompter, run } = wizardAsRich(
      [{ input: '9001' }, { select: 'balance' }, { input: '700000001' }],
      ['--type', 'gamepass', '--username', 'BuilderBob', '--place', '5001', '--yes'],
    );
    const result = await run;
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual([
      'Game pass id:',
      'Payment method:',
      'Chat user id linked to this account (paying by balance needs it):',
    ]);
    expect((await richOrders())[0]).toMatchObject({ payment_status: 'paid' });
  });

  // The payment-method list of a lean server has no codes to choose from (its fallback question is tested in lean-server.test.ts).
  it.skipIf(LEAN)('declining the summary is exit 1 and orders nothing', async () => {
    const { run } = wizardAsRich(
      [{ input: 'BuilderBob' }, { select: 'invoice' }, { confirm: false }],
      ['--type', 'gamepass', '--place', '5001', '--pass', '9001'],
    );
    const result = await run;
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toMatch(/Error: Cancelled; nothing was ordered\.\n$/);
    expect(await richOrders()).toHaveLength(0);
  });

  // The payment-method list of a lean server has no codes to choose from (its fallback question is tested in lean-server.test.ts).
  it.skipIf(LEAN)('embedded (sandbox token): invoice is the only method, so it is named instead of asked', async () => {
    const prompter = scriptedPrompter([{ input: 'PixelPiper' }, { confirm: true }, { confirm: false }]);
    const result = await topup(['--no-color', 'orders', 'create', '--type', 'gamepass', '--place', '5002', '--pass', '9101'], {
      tty: true,
      prompter,
    });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual([
      'Platform username:',
      'Create this order?',
      'Wait here until the invoice is paid?',
    ]);
    expect(result.err).toContain('Payment method: Invoice (invoice), the only one sandbox tokens may use.');
  });

  it('the username question refuses names the platform cannot have', async () => {
    const { run } = wizardAsRich([{ input: 'no spaces allowed' }], ['--type', 'gamepass', '--place', '5001', '--pass', '9001']);
    const result = await run;
    expect(result.code).toBe(1);
    expect(result.err).toContain('was refused: Use one word without spaces or control characters, up to 256 characters.');
  });

  it('with all flags, no wizard: the order is created and it offers to wait, which returns once paid', async () => {
    const prompter = scriptedPrompter([{ confirm: true }]);
    const confirm = prompter.confirm;
    // The payment arrives while the user is deciding.
    prompter.confirm = async (o) => {
      const orders = await richOrders();
      await served.sandbox.control.pay(orders[0]!.invoice_code!);
      return confirm(o);
    };
    const result = await asRich(['--no-color', 'orders', 'create', ...bob9001], { tty: true, prompter });
    expect(result.code).toBe(0);
    const invoice = (await richOrders())[0]!.invoice_code!;
    expect(prompter.asked.map((q) => q.message)).toEqual(['Wait here until the invoice is paid?']);
    expect(result.err).toContain(`✓ Invoice ${invoice} is paid; the order is ${LEAN ? 'not reported' : 'processing'}.`);
  });

  it('--yes asks nothing on a terminal, the offer to wait included', async () => {
    const prompter = scriptedPrompter([]);
    const result = await asRich(['--no-color', 'orders', 'create', ...bob9001, '--yes'], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([]);
    expect(result.out).toContain((await richOrders())[0]!.invoice_code!);
  });

  it('an invoice that expires while waiting is exit 5', async () => {
    const prompter = scriptedPrompter([{ confirm: true }]);
    const confirm = prompter.confirm;
    prompter.confirm = async (o) => {
      await served.sandbox.control.expire((await richOrders())[0]!.invoice_code!);
      return confirm(o);
    };
    const result = await asRich(['orders', 'create', ...bob9001], { tty: true, prompter });
    expect(result.code).toBe(5);
    expect(result.err).toMatch(/expired before it was paid/);
  });
});

describe('the live-mode guard: a balance order with a production token spends real money', () => {
  const balanceOrder = [...bob9001, '--payment-method', 'balance', '--chat-user-id', '700000001'];
  const richBalance = async () => (await createClient({ baseUrl: served.url, token: served.token('rich') }).balance.get()).balance;

  it('without a terminal it needs --yes: exit 2, a sentence saying why, and nothing is ordered', async () => {
    const before = await richOrders();
    const result = await asRich(['orders', 'create', ...balanceOrder]);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toMatch(
      /^Error: Paying by balance with a production token spends real money: add --yes to confirm \(there is no terminal to ask on\)\.$/m,
    );
    expect(await richOrders()).toEqual(before);
  });

  it('the same with a profile whose stored mode is production', async () => {
    expect((await topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: served.token('rich') })).code).toBe(0);
    const result = await topup(['orders', 'create', ...balanceOrder]);
    expect(result.code).toBe(2);
  });

  it('the same with a profile that remembers sandbox but holds a production token: the server is asked', async () => {
    expect((await topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: served.token('rich') })).code).toBe(0);
    // A hand-edit, or a settings file from elsewhere: the remembered mode is not the token's.
    const file = join(configDir, 'config.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"mode": "production"', '"mode": "sandbox"'));
    expect(readFileSync(file, 'utf8')).toContain('"mode": "sandbox"');
    const before = await richOrders();
    const result = await topup(['orders', 'create', ...balanceOrder]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('add --yes to confirm');
    expect(await richOrders()).toEqual(before);
  });

  it('on a terminal the summary says LIVE and the balance, and the question defaults to no', async () => {
    const before = await richBalance();
    const prompter = scriptedPrompter([{ confirm: false }]);
    const result = await asRich(['--no-color', 'orders', 'create', ...balanceOrder], { tty: true, prompter });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^mode +LIVE: pays from the real balance of a production account$/m);
    expect(result.err).toMatch(/^amount +computed by the server when the order is made; it is taken from the balance at once$/m);
    expect(result.err).toMatch(LEAN ? /^balance now +-$/m : /^balance now +Rp 10\.000\.000$/m);
    expect(result.err).toContain('Error: Cancelled; nothing was ordered.');
    expect(prompter.asked.at(-1)).toMatchObject({ kind: 'confirm', message: 'Spend real balance on this order?', default: false });
    expect(await richBalance()).toBe(before);
  });

  it('on a terminal, yes creates and pays it', async () => {
    const prompter = scriptedPrompter([{ confirm: true }, { confirm: false }]);
    const result = await asRich(['--no-color', 'orders', 'create', ...balanceOrder], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(result.err).toContain('created and paid.');
  });

  it.each([
    ['an invoice order with a production token', () => asRich(['orders', 'create', ...bob9001])],
    [
      'a balance order with a sandbox token (refused by the server, never asked)',
      () =>
        topup(['orders', 'create', ...bob9001, '--payment-method', 'balance', '--base-url', served.url], {
          env: { TOPUP_TOKEN: served.token('demo') },
        }),
    ],
  ])('%s is unchanged: no question, no --yes needed', async (_name, run) => {
    const result = await run();
    expect(result.err).not.toMatch(/LIVE|--yes/);
    expect([0, 5]).toContain(result.code);
  });

  it('Ctrl-C at the question exits 130 quietly: no "User force closed the prompt", nothing ordered', async () => {
    const before = await richOrders();
    const prompter = scriptedPrompter([{ cancel: true }]);
    const result = await asRich(['--no-color', 'orders', 'create', ...balanceOrder], { tty: true, prompter });
    expect(result.code).toBe(130);
    expect(result.out).toBe('');
    expect(result.err).not.toMatch(/Error|force closed/);
    expect(await richOrders()).toEqual(before);
  });
});

describe('orders create against an answer that says less, or something else', () => {
  /** The served sandbox's answers to POST /me/orders, changed by `edit`. */
  const editing =
    (edit: (data: Record<string, unknown>) => void): typeof fetch =>
    async (input, init) => {
      const answer = await fetch(input, init);
      if (init?.method !== 'POST' || !(input instanceof Request ? input.url : String(input)).endsWith('/me/orders')) return answer;
      const body = (await answer.json()) as { data: Record<string, unknown> };
      edit(body.data);
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };

  it('`idempotent` other than true is no claim that nothing was ordered', async () => {
    const result = await asRich(['orders', 'create', ...bob9001], {
      stderrTTY: true,
      color: false,
      fetch: editing((data) => (data.idempotent = 'false')),
    });
    expect(result.code).toBe(0);
    expect(result.err).not.toContain('nothing new was ordered');
    expect(result.err).toMatch(/✓ Order INV\d+ created/);
  });

  it('no invoice code: nothing on stdout, one sentence with the key to send again, exit 1', async () => {
    const result = await asRich(['orders', 'create', ...bob9001], {
      fetch: editing((data) => delete (data.invoice as Record<string, unknown>).invoice_code),
    });
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    const key = keyLineOf(result.err)?.[1];
    expect(key).toBeDefined();
    expect(result.err).toMatch(/^Error: The server accepted the order but its answer has no invoice code; /m);
    expect(result.err).toContain(`--idempotency-key ${key} to get its answer again.`);
  });
});
