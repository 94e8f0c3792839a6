import { urlOf } from '../support/url-of.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { createClient, UsageError, WaitTimeoutError, type TopupClient } from '../../src/index.js';
import type { InvoiceStatus } from '../../src/contract/invoices.js';
import { waitDefaults } from '../../src/client/wait.js';
import { settle } from './helpers.js';
import { LEAN } from '../support/cli-assertions.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
const START = Date.parse('2026-02-02T08:00:00Z');
/** The default pause between polls: the recommended invoice-status interval. */
const INTERVAL = waitDefaults.interval;

let sandbox: Sandbox;
let client: TopupClient;
let invoiceCode: string;
let polls: Array<{ at: number; status: InvoiceStatus }>;
const onPoll = (status: InvoiceStatus) => polls.push({ at: Date.now() - START, status });

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: START });
  sandbox = await createSandbox({ now: () => Date.now() });
  client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch, timeout: 600_000 });
  invoiceCode = (await settle(client.orders.create(order))).invoice.invoice_code;
  polls = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe('invoices.wait', () => {
  it('stops on paid and returns the final status', async () => {
    const final = await settle(
      client.invoices.wait(invoiceCode, {
        onPoll: (status) => {
          onPoll(status);
          if (polls.length === 2) void sandbox.control.pay(invoiceCode);
        },
      }),
    );
    expect(final).toMatchObject({ invoice_code: invoiceCode, payment_status: 'paid', ...(LEAN ? {} : { is_final: true }) });
    expect(polls.map((p) => [p.at, p.status.payment_status])).toEqual([
      [0, 'pending'],
      [INTERVAL, 'pending'],
      [2 * INTERVAL, 'paid'],
    ]);
  });

  it('stops on expired too', async () => {
    const final = await settle(
      client.invoices.wait(invoiceCode, {
        interval: 30_000,
        onPoll: (status) => {
          onPoll(status);
          if (polls.length === 1) void sandbox.control.expire(invoiceCode);
        },
      }),
    );
    expect(final.payment_status).toBe('expired');
    expect(polls.map((p) => p.at)).toEqual([0, 30_000]);
  });

  // A lean server sends no poll_after_seconds; what the wait does then is the next describe's subject.
  it.skipIf(LEAN)("honours the server's poll_after_seconds when it is longer than the interval", async () => {
    await settle(
      client.invoices.wait(invoiceCode, {
        interval: 10_000,
        onPoll: (status) => {
          onPoll(status);
          if (polls.length === 3) void sandbox.control.pay(invoiceCode);
        },
      }),
    );
    expect(polls[0]!.status.poll_after_seconds).toBe(15);
    expect(polls.map((p) => p.at)).toEqual([0, INTERVAL, 2 * INTERVAL, 3 * INTERVAL]);
  });

  it('times out with WaitTimeoutError carrying the last status, polling last at the deadline', async () => {
    const error = await settle(client.invoices.wait(invoiceCode, { timeout: 40_000, onPoll }).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({
      name: 'WaitTimeoutError',
      message: `Invoice ${invoiceCode} was still pending when the wait timed out.`,
      lastStatus: { invoice_code: invoiceCode, payment_status: 'pending', ...(LEAN ? {} : { is_final: false }) },
    });
    expect(polls.map((p) => p.at)).toEqual([0, INTERVAL, 2 * INTERVAL, 40_000]);
  });

  it('a check after the first that fails past the retries (502) is reported, and the wait goes on to the payment', async () => {
    const once = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch, maxRetries: 1 });
    const failures: Array<{ at: number; kind: string; status: number | undefined; next: number }> = [];
    const final = await settle(
      once.invoices.wait(invoiceCode, {
        onPoll: (status) => {
          onPoll(status);
          // The next check's attempt and its one retry both get a 502; the one after answers, and the invoice is paid.
          if (polls.length === 1)
            sandbox.faults.configure({ rules: [{ kind: 'error', status: 502, times: 2, routes: ['getInvoiceStatus'] }] });
        },
        onPollError: (error, next) => {
          failures.push({ at: Date.now() - START, kind: error.kind, status: error.status, next });
          void sandbox.control.pay(invoiceCode);
        },
      }),
    );
    expect(final.payment_status).toBe('paid');
    expect(failures).toEqual([{ at: expect.any(Number), kind: 'server', status: 502, next: INTERVAL }]);
    expect(polls.map((p) => p.status.payment_status)).toEqual(['pending', 'paid']);
    expect(polls[1]!.at - failures[0]!.at).toBe(INTERVAL);
  });

  it('a first check that fails ends the wait: there is nothing to wait on yet', async () => {
    const once = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch, maxRetries: 0 });
    sandbox.faults.configure({ rules: [{ kind: 'error', status: 503, times: 1, routes: ['getInvoiceStatus'] }] });
    const onPollError = vi.fn();
    const error = await settle(once.invoices.wait(invoiceCode, { onPoll, onPollError }).catch((e: unknown) => e));
    expect(error).toMatchObject({ name: 'ServerError', status: 503 });
    expect(onPollError).not.toHaveBeenCalled();
    expect(polls).toEqual([]);
  });

  it('checks failing until the timeout end in WaitTimeoutError with the last status seen and why the checks failed', async () => {
    const once = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch, maxRetries: 0 });
    const onPollError = vi.fn();
    const error = await settle(
      once.invoices
        .wait(invoiceCode, {
          timeout: 40_000,
          onPoll: (status) => {
            onPoll(status);
            sandbox.faults.configure({ rules: [{ kind: 'error', status: 503, times: 100, routes: ['getInvoiceStatus'] }] });
          },
          onPollError,
        })
        .catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).message).toMatch(
      new RegExp(`^Invoice ${invoiceCode} was last seen pending; the wait timed out while the server could not be checked: .+`),
    );
    expect((error as WaitTimeoutError).lastStatus).toMatchObject({ invoice_code: invoiceCode, payment_status: 'pending' });
    // Checks at 15 s and 30 s failed and were reported; the one at the deadline (40 s) failed and ended the wait.
    expect(onPollError.mock.calls.map(([, next]) => next)).toEqual([INTERVAL, 10_000]);
    expect(polls).toHaveLength(1);
  });

  it('a failure that will not pass by itself (404 after the first check) ends the wait', async () => {
    const onPollError = vi.fn();
    const error = await settle(
      client.invoices
        .wait(invoiceCode, {
          onPoll: (status) => {
            onPoll(status);
            void sandbox.reset();
          },
          onPollError,
        })
        .catch((e: unknown) => e),
    );
    expect(error).toMatchObject({ name: 'NotFoundError', status: 404 });
    expect(onPollError).not.toHaveBeenCalled();
  });

  it('rejects with the signal reason as soon as it aborts, also in the middle of a pause', async () => {
    const controller = new AbortController();
    const waiting = client.invoices.wait(invoiceCode, { signal: controller.signal, onPoll }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const reason = new Error('user pressed Ctrl-C');
    controller.abort(reason);
    expect(await waiting).toBe(reason);
    expect(Date.now() - START).toBe(5_000);
    expect(polls).toHaveLength(1);
  });

  it("ends at the abort even with a fake clock whose sleep ignores the signal (a test's own clock)", async () => {
    const deaf = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
      clock: { now: () => Date.now(), sleep: () => new Promise<void>(() => undefined) },
    });
    const controller = new AbortController();
    const waiting = deaf.invoices.wait(invoiceCode, { signal: controller.signal, onPoll }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(polls).toHaveLength(1);
    const reason = new Error('the test gave up');
    controller.abort(reason);
    expect(await waiting).toBe(reason);
  });

  it('rejects with an AbortError for a plain abort() and does not poll an aborted wait', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await client.invoices.wait(invoiceCode, { signal: controller.signal, onPoll }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(polls).toHaveLength(0);
  });

  it.each([[9_999], [0], [-1], [Number.NaN]])('refuses an interval of %d ms', async (interval) => {
    await expect(client.invoices.wait(invoiceCode, { interval })).rejects.toBeInstanceOf(UsageError);
  });

  it('passes a NotFoundError through for an unknown invoice', async () => {
    await expect(settle(client.invoices.wait('INV999999'))).rejects.toMatchObject({ name: 'NotFoundError', status: 404 });
  });
});

/**
 * A server that honours only the document: the real sandbox with its answers' invented wait fields removed or
 * changed by `rewrite`, as a server we did not write might send them.
 */
function withStatusRewrite(rewrite: (data: Record<string, unknown>) => void): TopupClient {
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const answer = await sandbox.fetch(input, init);
    if (!urlOf(input).endsWith('/status')) return answer;
    const body = JSON.parse(await answer.text());
    rewrite(body.data);
    return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch, timeout: 600_000 });
}

describe('invoices.wait against a server that sends only what the document guarantees', () => {
  const withoutInvented = (data: Record<string, unknown>) => {
    delete data.is_final;
    delete data.poll_after_seconds;
  };

  it('decides finality from payment_status and polls at the documented 15 s, never faster', async () => {
    const lean = withStatusRewrite(withoutInvented);
    const final = await settle(
      lean.invoices.wait(invoiceCode, {
        onPoll: (status) => {
          onPoll(status);
          if (polls.length === 3) void sandbox.control.pay(invoiceCode);
        },
      }),
    );
    expect(final.payment_status).toBe('paid');
    expect(final).not.toHaveProperty('is_final');
    expect(polls.map((p) => [p.at, p.status.payment_status])).toEqual([
      [0, 'pending'],
      [INTERVAL, 'pending'],
      [2 * INTERVAL, 'pending'],
      [3 * INTERVAL, 'paid'],
    ]);
  });

  it.each(['paid', 'expired', 'failed', 'cancelled', 'refunded'])('%s is final without is_final', async (value) => {
    const lean = withStatusRewrite((data) => {
      withoutInvented(data);
      data.payment_status = value;
    });
    const final = await settle(lean.invoices.wait(invoiceCode, { onPoll }));
    expect(final.payment_status).toBe(value);
    expect(polls).toHaveLength(1);
  });

  it('a poll_after_seconds past what one timer can wait (30 days) is waited whole, not polled at once', async () => {
    const DAYS_30 = 30 * 86_400;
    const slow = withStatusRewrite((data) => {
      data.poll_after_seconds = DAYS_30;
    });
    const waiting = slow.invoices.wait(invoiceCode, { onPoll, timeout: 60 * 86_400_000 });
    await vi.advanceTimersByTimeAsync(29 * 86_400_000);
    expect(polls.map((p) => p.at)).toEqual([0]);
    await vi.advanceTimersByTimeAsync(86_400_000 + 1_000);
    // The invoice expired an hour after it was made: the second poll, 30 days on, finds it final.
    expect(polls.map((p) => p.at)).toEqual([0, DAYS_30 * 1000]);
    expect((await waiting).payment_status).toBe('expired');
  });

  it('an unknown payment_status is not final: it keeps polling at the interval until the timeout', async () => {
    const lean = withStatusRewrite((data) => {
      withoutInvented(data);
      data.payment_status = 'on_hold';
    });
    const error = await settle(lean.invoices.wait(invoiceCode, { timeout: 60_000, onPoll }).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(polls.map((p) => p.at)).toEqual([0, INTERVAL, 2 * INTERVAL, 3 * INTERVAL, 60_000]);
  });

  it('an answer without payment_status is an error that says so, after one poll, not a loop', async () => {
    const lean = withStatusRewrite((data) => {
      withoutInvented(data);
      delete data.payment_status;
    });
    const error = await settle(lean.invoices.wait(invoiceCode, { onPoll }).catch((e: unknown) => e));
    expect((error as Error).message).toBe(
      `The server's status answer for invoice ${invoiceCode} has no payment_status, so there is nothing to wait for.`,
    );
    expect(polls).toHaveLength(1);
  });

  it.each<[string, unknown, number]>([
    ['a string', 'soon', INTERVAL],
    ['a negative number', -5, INTERVAL],
    ['zero', 0, INTERVAL],
    ['null', null, INTERVAL],
    ['shorter than the interval', 1, INTERVAL],
    ['longer than the interval', 25, 25_000],
    ['longer than what is left of the wait', 1e9, 40_000],
  ])('poll_after_seconds as %s: the pause is %i ms', async (_name, value, pause) => {
    const lean = withStatusRewrite((data) => {
      delete data.is_final;
      data.poll_after_seconds = value;
    });
    await settle(lean.invoices.wait(invoiceCode, { timeout: 40_000, onPoll }).catch(() => undefined));
    expect(polls[1]!.at - polls[0]!.at).toBe(pause);
  });
});
