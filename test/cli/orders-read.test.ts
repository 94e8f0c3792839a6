import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerOrderCommands } from '../../src/cli/commands/orders/index.js';
import { CliContext } from '../../src/cli/context.js';
import { fakeIO } from '../support/fake-io.js';
import { REMOTE_TARGET, useHarness, seedRichHistory, type Harness } from './read-harness.js';
import { expectUsageError, LEAN, leanLines } from '../support/cli-assertions.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

/** An order row; a lean server's order record has no payment status, total or creation time: dashes. */
const orderRow = (
  invoice: string,
  status: string,
  payment: string,
  type: string,
  user: string,
  credits: number,
  total: number,
  created: string,
) => `${[invoice, status, LEAN ? '-' : payment, type, user, credits, LEAN ? '-' : total, LEAN ? '-' : created].join('\t')}\n`;
const row = {
  5: orderRow('INV20260302000005', 'processing', 'paid', 'gamepass', 'PixelPiper', 50, 6000, '2026-03-02T10:04:00Z'),
  4: orderRow('INV20260302000004', 'cancelled', 'expired', 'vip_server', 'BuilderBob', 200, 24000, '2026-03-02T10:03:00Z'),
  3: orderRow('INV20260302000003', 'processing', 'paid', 'gamepass', 'BuilderBob', 6000, 648000, '2026-03-02T10:02:00Z'),
  2: orderRow('INV20260302000002', 'pending', 'pending', 'gamepass', 'BuilderBob', 100, 12000, '2026-03-02T10:01:00Z'),
};
/** What --all says when the server's answers have no pagination (a lean server): it shows the first page only. */
const firstPageOnly = LEAN
  ? 'The server does not say whether there are more orders than these (its answer has no pagination); only the first page is shown.\n'
  : '';
const ORDER_DROPPED = [
  'payment_status',
  'place_id',
  'platform_pass_id',
  'price',
  'discount',
  'total_amount',
  'currency',
  'payment_method',
  'client_reference',
  'environment',
  'created_at',
  'updated_at',
  'paid_at',
  'completed_at',
  'payment',
  'place',
  'VIP server',
  'pass',
  'total',
  'method',
  'reference',
  'created',
  'updated',
  'paid',
  'completed',
];

describe('argument parsing', () => {
  it.each([
    { args: ['orders', 'list', '--status', 'paid'], err: /Allowed choices are pending, processing, completed, failed, cancelled/ },
    { args: ['orders', 'list', '--payment-status', 'done'], err: /Allowed choices are pending, paid, expired, failed, refunded/ },
    { args: ['orders', 'list', '--type', 'pass'], err: /Allowed choices are gamepass, vip_server/ },
    { args: ['orders', 'list', '--reference', 'x'.repeat(65)], err: /A reference is 1 to 64 characters\./ },
    { args: ['orders', 'list', '--per-page', '1000'], err: /--per-page must be from 1 to 100\./ },
    { args: ['orders', 'list', '--page', '1.5'], err: /--page must be a whole number\./ },
    { args: ['orders', 'list', '--page', '2', '--all'], err: /cannot be used with option/ },
    { args: ['orders', 'show', '12345'], err: /An invoice code is INV followed by up to 32 digits/ },
    { args: ['orders', 'show'], err: /missing required argument 'invoice'/ },
    { args: ['orders', 'frobnicate'], err: /unknown command 'frobnicate'/ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await h.run(args);
    expectUsageError(result, err);
  });
});

describe('topup orders list', () => {
  it('piped: TSV rows, newest first, raw amounts', async () => {
    expect(await h.run(['orders', 'list'])).toEqual({ code: 0, out: row[5] + row[4] + row[3] + row[2], err: '' });
  });

  it('terminal: an aligned table with formatted amounts; ANSI_ESCAPE only without --no-color', async () => {
    const result = await h.run(['orders', 'list', '--no-color'], { tty: true, columns: 120 });
    expect(result.out).toBe(
      (LEAN
        ? [
            'INVOICE            STATUS      PAYMENT  TYPE        USERNAME    CREDITS  TOTAL  CREATED',
            'INV20260302000005  processing  -        gamepass    PixelPiper       50      -  -',
            'INV20260302000004  cancelled   -        vip_server  BuilderBob      200      -  -',
            'INV20260302000003  processing  -        gamepass    BuilderBob    6.000      -  -',
            'INV20260302000002  pending     -        gamepass    BuilderBob      100      -  -',
            '',
          ]
        : [
            'INVOICE            STATUS      PAYMENT  TYPE        USERNAME    CREDITS       TOTAL  CREATED',
            'INV20260302000005  processing  paid     gamepass    PixelPiper       50    Rp 6.000  2026-03-02 10:04 +00:00',
            'INV20260302000004  cancelled   expired  vip_server  BuilderBob      200   Rp 24.000  2026-03-02 10:03 +00:00',
            'INV20260302000003  processing  paid     gamepass    BuilderBob    6.000  Rp 648.000  2026-03-02 10:02 +00:00',
            'INV20260302000002  pending     pending  gamepass    BuilderBob      100   Rp 12.000  2026-03-02 10:01 +00:00',
            '',
          ]
      ).join('\n'),
    );
    expect(result.err).toBe('');
    const coloured = await h.run(['orders', 'list'], { tty: true });
    expect(coloured.out).toMatch(ANSI_ESCAPE);
    expect(coloured.out).toContain(LEAN ? '\u001b[36mprocessing\u001b[39m' : '\u001b[32mpaid\u001b[39m');
  });

  it("--json: exactly the page's data object", async () => {
    const result = await h.run(['--json', 'orders', 'list']);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').orders.list());
    expect(result.err).toBe('');
  });

  it.each([
    { args: ['--status', 'pending'], out: row[2] },
    { args: ['--status', 'processing'], out: row[5] + row[3] },
    { args: ['--payment-status', 'expired'], out: row[4] },
    { args: ['--type', 'vip_server'], out: row[4] },
    { args: ['--reference', 'chat-42'], out: row[3] },
    { args: ['--status', 'processing', '--type', 'gamepass', '--reference', 'chat-42'], out: row[3] },
    { args: ['--status', 'completed'], out: '' },
    {
      args: ['--page', '2', '--per-page', '2'],
      out: row[3] + row[2],
      // A lean server's page says not which page it is: a page past the first may be the first again.
      err: LEAN ? "The server's answer does not say which page it is (it has no pagination), so these orders may not be page 2.\n" : '',
    },
    { args: ['--all', '--per-page', '1'], out: LEAN ? row[5] : row[5] + row[4] + row[3] + row[2], err: firstPageOnly },
  ])('filters and paging: $args', async ({ args, out, err }) => {
    expect(await h.run(['orders', 'list', ...args])).toEqual({ code: 0, out, err: err ?? '' });
  });

  it.skipIf(LEAN)('a server that answers another page than the one asked for: the rows shown, and a warning that says so', async () => {
    // A server that ignores `page`: every page asked for is its first.
    const ignoringPage: typeof globalThis.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.searchParams.delete('page');
      return h.sandbox.fetch(url.href, init);
    };
    const result = await h.run(['orders', 'list', '--page', '2', '--per-page', '2'], { fetch: ignoringPage });
    expect(result.code).toBe(0);
    expect(result.out).toBe(row[5] + row[4]);
    expect(result.err).toBe('Page 2 was asked for, but the server answered page 1.\n');
  });

  it('--all --json follows every page into { orders: [...] }', async () => {
    const result = await h.run(['--json', 'orders', 'list', '--all', '--per-page', '3', '--payment-status', 'paid']);
    expect(JSON.parse(result.out).orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual([
      'INV20260302000005',
      'INV20260302000003',
    ]);
    const run = await h.run(['--json', 'orders', 'list', '--all', '--per-page', '3']);
    const all = JSON.parse(run.out);
    expect(Object.keys(all)).toEqual(['orders']);
    expect(all.orders).toHaveLength(LEAN ? 3 : 4);
    expect(run.err).toBe(firstPageOnly);
  });

  it('terminal: the next-page hint keeps the filters', async () => {
    const result = await h.run(['orders', 'list', '--type', 'gamepass', '--per-page', '2', '--no-color'], { tty: true });
    expect(result.err).toBe(
      LEAN
        ? ''
        : 'Page 1 of 2 (3 orders). Next: topup --base-url http://sandbox.localhost orders list --type gamepass --per-page 2 --page 2\n',
    );
  });

  it('embedded sandbox without orders: nothing on stdout; on a terminal, "No orders." on stderr', async () => {
    const piped = await h.runEmbedded(['orders', 'list']);
    expect(piped.code).toBe(0);
    expect(piped.out).toBe('');
    const tty = await h.runEmbedded(['orders', 'list', '--no-color'], { tty: true });
    expect(tty.out).toBe('');
    expect(tty.err).toMatch(/^No orders\.$/m);
  });
});

describe('topup orders show', () => {
  it('piped: every field as `key: value`, raw amounts, - for null', async () => {
    expect((await h.run(['orders', 'show', 'INV20260302000003'])).out).toBe(
      leanLines(
        [
          'invoice_code: INV20260302000003',
          'status: processing',
          'payment_status: paid',
          'order_type: gamepass',
          'platform_username: BuilderBob',
          'place_id: 5001',
          'platform_pass_id: 9004',
          'credit_amount: 6000',
          'price: 720000',
          'discount: 72000',
          'total_amount: 648000',
          'currency: IDR',
          'payment_method: invoice',
          'client_reference: chat-42',
          'environment: production',
          'invoice_url: http://sandbox.localhost/user/invoice/INV20260302000003',
          'created_at: 2026-03-02T10:02:00Z',
          'updated_at: 2026-03-02T10:03:00Z',
          'paid_at: 2026-03-02T10:03:00Z',
          'completed_at: -',
          '',
        ],
        ORDER_DROPPED,
      ).join('\n'),
    );
  });

  it('terminal: a title, aligned labels and formatted amounts', async () => {
    const result = await h.run(['orders', 'show', 'INV20260302000004', '--no-color'], { tty: true });
    expect(result.out.split('\n').slice(0, 13)).toEqual(
      leanLines(
        [
          'Order INV20260302000004',
          'invoice      INV20260302000004',
          'status       cancelled',
          'payment      expired',
          'type         vip_server',
          'username     BuilderBob',
          'place        5001',
          'VIP server   7001',
          'credits      200',
          'price        Rp 24.000',
          'discount     Rp 0',
          'total        Rp 24.000',
          'currency     IDR',
        ],
        ORDER_DROPPED,
      ),
    );
  });

  it('terminal: credits grouped as the money is (6.000, like Rp 648.000); piped: the raw integer', async () => {
    const tty = await h.run(['orders', 'show', 'INV20260302000003', '--no-color'], { tty: true });
    expect(tty.out).toMatch(/^credits +6\.000$/m);
    const piped = await h.run(['orders', 'show', 'INV20260302000003']);
    expect(piped.out).toMatch(/^credit_amount: 6000$/m);
  });

  it('--json: exactly the data object', async () => {
    const result = await h.run(['--json', 'orders', 'show', 'INV20260302000002']);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').orders.get('INV20260302000002'));
    expect(result.err).toBe('');
  });

  it.each([
    { name: 'an unknown invoice', account: 'rich' as const, code: 1, err: 'Error: Order INV20260302009999 was not found.\n' },
    { name: "another account's order", account: 'broke' as const, code: 1, err: 'Error: Order INV20260302000002 was not found.\n' },
  ])('$name → exit $code', async ({ account, code, err }) => {
    const invoice = account === 'rich' ? 'INV20260302009999' : 'INV20260302000002';
    const result = await h.run(['orders', 'show', invoice], { account });
    expect(result.code).toBe(code);
    expect(result.out).toBe('');
    expect(result.err).toBe(err);
  });

  it('--json error: the error envelope on stderr', async () => {
    const result = await h.run(['--json', 'orders', 'show', 'INV20260302009999']);
    expect(result.out).toBe('');
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: 'Order INV20260302009999 was not found.',
      error: { code: 'NOT_FOUND', kind: 'not_found' },
      target: REMOTE_TARGET,
    });
  });
});

describe('registerOrderCommands', () => {
  it('returns the `orders` command, so `orders create` can attach to it', () => {
    const program = new Command('topup');
    const orders = registerOrderCommands(program, new CliContext(fakeIO()));
    expect(orders.name()).toBe('orders');
    expect(program.commands).toContain(orders);
    expect(orders.commands.map((c) => c.name())).toEqual(['list', 'show']);
  });
});
