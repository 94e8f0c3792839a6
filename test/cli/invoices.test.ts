import { urlOf } from '../support/url-of.js';
import { describe, expect, it } from 'vitest';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import { unpaidEnding, waitForInvoice } from '../../src/cli/commands/invoices/wait.js';
import { CliContext } from '../../src/cli/context.js';
import { pollIntervals } from '../../src/contract/timing.js';
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

const PENDING = 'INV20260302000002';
/** The recommended and the shortest pause between invoice polls, in ms. */
const PAUSE = pollIntervals.invoiceStatus.recommended * 1000;
const MIN_PAUSE = pollIntervals.invoiceStatus.min * 1000;
/** A lean server's status record has no order status: the progress line has no part for it. */
const orderPart = (status: string) => (LEAN ? '' : ` (order ${status})`);
const pendingLine = `${PENDING} pending${orderPart('pending')}; next check in 15 s\n`;

const INVOICE_DROPPED = ['created_at', 'expires_at', 'paid_at', 'created', 'expires', 'paid'];
const STATUS_DROPPED = ['order_status', 'is_final', 'expires_at', 'paid_at', 'order', 'final', 'expires', 'paid'];

/** Runs `between` after the `at`-th pause of the wait. */
function onPause(at: number, between: () => Promise<void> | void): void {
  h.time.onSleep = async (count) => {
    if (count === at) await between();
  };
}

describe('argument parsing', () => {
  it.each([
    { args: ['invoices', 'status', PENDING, '--wait', '--interval', '9'], err: /--interval must be from 10 to 3600\./ },
    { args: ['invoices', 'status', PENDING, '--wait', '--interval', 'fast'], err: /--interval must be a whole number\./ },
    { args: ['invoices', 'status', PENDING, '--wait', '--timeout', '0'], err: /--timeout must be at least 1\./ },
    { args: ['invoices', 'status', PENDING, '--interval', '20'], err: /^Error: --interval and --timeout only apply with --wait\.$/m },
    { args: ['invoices', 'status', PENDING, '--timeout', '20'], err: /^Error: --interval and --timeout only apply with --wait\.$/m },
    { args: ['invoices', 'show', 'INVOICE-1'], err: /An invoice code is INV followed by up to 32 digits/ },
    { args: ['invoices', 'status'], err: /missing required argument 'invoice'/ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await h.run(args);
    expectUsageError(result, err);
  });
});

describe('topup invoices show', () => {
  it('an order invoice, piped: the invoice fields, then its order', async () => {
    expect(await h.run(['invoices', 'show', 'INV20260302000004'])).toEqual({
      code: 0,
      err: '',
      out: leanLines(
        [
          'invoice_code: INV20260302000004',
          'type: order',
          'payment_status: expired',
          'amount: 24000',
          'currency: IDR',
          'payment_method: invoice',
          'payment_url: -',
          'invoice_url: http://sandbox.localhost/user/invoice/INV20260302000004',
          'created_at: 2026-03-02T10:03:00Z',
          'expires_at: 2026-03-02T11:03:00Z',
          'paid_at: -',
          'order_status: cancelled',
          'order_type: vip_server',
          'platform_username: BuilderBob',
          'credit_amount: 200',
          '',
        ],
        INVOICE_DROPPED,
      ).join('\n'),
    });
  });

  it('a deposit invoice, on a terminal: no order line, formatted amount', async () => {
    const result = await h.run(['invoices', 'show', 'INV20260302000001', '--no-color'], { tty: true });
    expect(result.out).toBe(
      leanLines(
        [
          'Invoice INV20260302000001',
          'invoice      INV20260302000001',
          'for          deposit',
          'status       paid',
          'amount       Rp 50.000',
          'currency     IDR',
          'method       bank_transfer',
          'payment url  -',
          'invoice url  http://sandbox.localhost/user/invoice/INV20260302000001',
          'created      2026-03-02 10:00 +00:00',
          'expires      2026-03-02 11:00 +00:00',
          'paid         2026-03-02 10:00 +00:00',
          '',
        ],
        INVOICE_DROPPED,
      ).join('\n'),
    );
  });

  it('--json: exactly the data object', async () => {
    const result = await h.run(['--json', 'invoices', 'show', PENDING]);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').invoices.get(PENDING));
    expect(result.err).toBe('');
  });
});

describe('topup invoices status', () => {
  it('without --wait: the current status, whatever it is (exit 0)', async () => {
    expect(await h.run(['invoices', 'status', 'INV20260302000004'])).toEqual({
      code: 0,
      err: '',
      out: leanLines(
        [
          'invoice_code: INV20260302000004',
          'type: order',
          'payment_status: expired',
          'order_status: cancelled',
          'is_final: true',
          'amount: 24000',
          'expires_at: 2026-03-02T11:03:00Z',
          'paid_at: -',
          '',
        ],
        STATUS_DROPPED,
      ).join('\n'),
    });
    const tty = await h.run(['invoices', 'status', PENDING, '--no-color'], { tty: true });
    expect(tty.out).toBe(
      leanLines(
        [
          'Invoice INV20260302000002',
          'invoice  INV20260302000002',
          'for      order',
          'status   pending',
          'order    pending',
          'final    no',
          'amount   Rp 12.000',
          'expires  2026-03-02 11:01 +00:00',
          'paid     -',
          '',
        ],
        STATUS_DROPPED,
      ).join('\n'),
    );
    const json = await h.run(['--json', 'invoices', 'status', PENDING]);
    expect(JSON.parse(json.out)).toEqual(await h.client('rich').invoices.status(PENDING));
  });

  it('--wait, piped: one progress line per poll on stderr; paid after the second pause → exit 0 and the final status', async () => {
    onPause(2, () => h.sandbox.control.pay(PENDING));
    const result = await h.run(['invoices', 'status', PENDING, '--wait']);
    expect(result.code).toBe(0);
    expect(h.time.slept).toEqual([PAUSE, PAUSE]);
    expect(result.err).toBe(`${pendingLine}${pendingLine}${PENDING} paid${orderPart('processing')}\n`);
    expect(result.out).toBe(
      leanLines(
        [
          `invoice_code: ${PENDING}`,
          'type: order',
          'payment_status: paid',
          'order_status: processing',
          'is_final: true',
          'amount: 12000',
          'expires_at: 2026-03-02T11:01:00Z',
          'paid_at: 2026-03-02T10:05:30Z',
          '',
        ],
        STATUS_DROPPED,
      ).join('\n'),
    );
  });

  it('--wait: a check that fails past the retries (502) is reported on stderr, and the wait goes on to the payment', async () => {
    h.time.onSleep = async (count) => {
      // Every attempt of the second check fails (the first and the client's 4 retries); the invoice is then paid.
      if (count === 1) h.sandbox.faults.configure({ rules: [{ kind: 'error', status: 502, times: 5, routes: ['getInvoiceStatus'] }] });
      if (h.sandbox.faults.stats.error === 5) await h.sandbox.control.pay(PENDING).catch(() => undefined);
    };
    const result = await h.run(['invoices', 'status', PENDING, '--wait']);
    expect(result.code, result.err).toBe(0);
    expect(result.err.replace(/ at \d\d:\d\d:\d\d \+00:00:/, ' at T:')).toBe(
      `${pendingLine}Could not check ${PENDING} at T: The gateway got no valid answer from the service; retry shortly. Next check in 15 s.\n` +
        `${PENDING} paid${orderPart('processing')}\n`,
    );
    expect(result.out).toMatch(/^payment_status: paid$/m);
  });

  it('--wait against a server without the invented is_final and poll_after_seconds: 15 s pauses, final by payment_status', async () => {
    const lean: typeof fetch = async (input, init) => {
      const answer = await h.sandbox.fetch(input, init);
      if (!urlOf(input).endsWith('/status')) return answer;
      const body = JSON.parse(await answer.text());
      delete body.data.is_final;
      delete body.data.poll_after_seconds;
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
    onPause(3, () => h.sandbox.control.pay(PENDING));
    const result = await h.run(['invoices', 'status', PENDING, '--wait'], { fetch: lean });
    expect(result.code).toBe(0);
    expect(h.time.slept).toEqual([PAUSE, PAUSE, PAUSE]);
    expect(result.err).toBe(`${pendingLine}${pendingLine}${pendingLine}${PENDING} paid${orderPart('processing')}\n`);
    expect(result.out).toMatch(/^is_final: -$/m);
  });

  it('--wait --json: only the final status on stdout, nothing on stderr', async () => {
    onPause(1, () => h.sandbox.control.pay(PENDING));
    const result = await h.run(['--json', 'invoices', 'status', PENDING, '--wait']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').invoices.status(PENDING));
    expect(JSON.parse(result.out).payment_status).toBe('paid');
    expect(result.err).toBe('');
  });

  it('--wait --interval 20 polls every 20 s', async () => {
    onPause(3, () => h.sandbox.control.pay(PENDING));
    const result = await h.run(['invoices', 'status', PENDING, '--wait', '--interval', '20']);
    expect(result.code).toBe(0);
    expect(h.time.slept).toEqual([20_000, 20_000, 20_000]);
  });

  it.each([
    { move: 'expire' as const, message: `Invoice ${PENDING} expired before it was paid.`, ending: `expired${orderPart('cancelled')}` },
    { move: 'fail' as const, message: `The payment of invoice ${PENDING} failed.`, ending: `failed${orderPart('cancelled')}` },
  ])('--wait ending $move → its final status on stdout, then exit 5 with one sentence', async ({ move, message, ending }) => {
    onPause(1, () => h.sandbox.control[move](PENDING));
    const result = await h.run(['invoices', 'status', PENDING, '--wait']);
    expect(result.code).toBe(5);
    expect(result.out).toMatch(new RegExp(`^payment_status: ${move === 'expire' ? 'expired' : 'failed'}$`, 'm'));
    expect(result.err).toBe(`${pendingLine}${PENDING} ${ending}\nError: ${message}\n`);
  });

  it('--wait on an invoice refunded after payment → its final status as JSON on stdout, then exit 5', async () => {
    await h.sandbox.control.failOrder('INV20260302000003');
    const result = await h.run(['--json', 'invoices', 'status', 'INV20260302000003', '--wait']);
    expect(result.code).toBe(5);
    expect(JSON.parse(result.out)).toMatchObject({ invoice_code: 'INV20260302000003', payment_status: 'refunded' });
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: 'Invoice INV20260302000003 was paid, then refunded to the balance because the order failed.',
      error: { code: 'REJECTED', kind: 'rejected' },
      target: REMOTE_TARGET,
    });
  });

  it('--wait --timeout: still pending at the deadline → exit 8; the last pause is cut to the deadline', async () => {
    const result = await h.run(['invoices', 'status', PENDING, '--wait', '--timeout', '20']);
    expect(result.code).toBe(8);
    expect(h.time.slept).toEqual([PAUSE, 5_000]);
    expect(result.out).toBe('');
    expect(result.err).toBe(
      `${pendingLine}${PENDING} pending${orderPart('pending')}; next check in 5 s\n${PENDING} pending${orderPart('pending')}; giving up\nError: Invoice ${PENDING} was still pending when the wait timed out.\n`,
    );
  });

  it('--wait on a terminal: a spinner on stderr that ends in a ✓ line; stdout holds the record', async () => {
    onPause(1, () => h.sandbox.control.pay(PENDING));
    const result = await h.run(['invoices', 'status', PENDING, '--wait', '--no-color'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.err).toContain(`\r\u001b[K⠋ Waiting for ${PENDING} to be paid…`);
    expect(result.err).toContain(`Waiting for ${PENDING} to be paid: pending at 10:05:00 +00:00; next check in 15 s.`);
    expect(result.err.endsWith(`\r\u001b[K✓ ${PENDING} paid${orderPart('processing')}\n`)).toBe(true);
    expect(result.out).toMatch(/^status {3}paid$/m);
  });

  it('Ctrl-C during --wait exits 130 without an error message', async () => {
    const controller = new AbortController();
    onPause(1, () => controller.abort());
    const result = await h.run(['invoices', 'status', PENDING, '--wait'], { signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.out).toBe('');
    expect(result.err).toBe(pendingLine);
  });

  it('--wait against a served sandbox over HTTP (--base-url and TOPUP_TOKEN)', async () => {
    const server = await startHttpSandbox(h.sandbox, { port: 0 });
    try {
      onPause(2, () => h.sandbox.control.pay(PENDING));
      const result = await h.run(['invoices', 'status', PENDING, '--wait', '--interval', '10'], { baseUrl: server.url });
      expect(result.code).toBe(0);
      // The server's poll_after_seconds (15) wins over a shorter --interval; a lean server sends none.
      expect(h.time.slept).toEqual(LEAN ? [MIN_PAUSE, MIN_PAUSE] : [PAUSE, PAUSE]);
      expect(result.out).toMatch(/^payment_status: paid$/m);
    } finally {
      await server.close();
    }
  });
});

describe('waitForInvoice (shared with `orders create`)', () => {
  function context(json = false): { ctx: CliContext; io: ReturnType<typeof fakeIO> } {
    const io = fakeIO({ env: { TOPUP_TOKEN: h.token('rich'), TOPUP_CONFIG_DIR: '/nonexistent-topup-config' } });
    const ctx = new CliContext(io, { fetch: h.sandbox.fetch, clock: h.time });
    ctx.setGlobals({ json, mock: false, color: false, input: false, debug: false, baseUrl: h.sandbox.baseUrl });
    return { ctx, io };
  }

  it('returns the final paid status and reports progress on stderr', async () => {
    onPause(1, () => h.sandbox.control.pay(PENDING));
    const { ctx, io } = context();
    const status = await waitForInvoice(ctx, PENDING, { intervalSeconds: 30, timeoutSeconds: 600 });
    expect(status).toMatchObject(
      LEAN
        ? { invoice_code: PENDING, payment_status: 'paid' }
        : { invoice_code: PENDING, payment_status: 'paid', order_status: 'processing', is_final: true },
    );
    expect(h.time.slept).toEqual([30_000]);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(`${PENDING} pending${orderPart('pending')}; next check in 30 s\n${PENDING} paid${orderPart('processing')}\n`);
  });

  it('returns an expired invoice, whose ending is a RejectedError; a too-short interval is a usage error', async () => {
    onPause(1, () => h.sandbox.control.expire(PENDING));
    const expired = await waitForInvoice(context(true).ctx, PENDING, {});
    expect(expired).toMatchObject({ invoice_code: PENDING, payment_status: 'expired' });
    expect(unpaidEnding(expired, PENDING)).toMatchObject({
      name: 'RejectedError',
      message: `Invoice ${PENDING} expired before it was paid.`,
    });
    expect(unpaidEnding({ ...expired, payment_status: 'paid' }, PENDING)).toBeUndefined();
    await expect(waitForInvoice(context().ctx, PENDING, { intervalSeconds: 5 })).rejects.toMatchObject({
      name: 'UsageError',
      message: 'The wait interval must be at least 10 seconds.',
    });
  });
});
