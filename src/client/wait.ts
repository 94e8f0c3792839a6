import { pollIntervals, WAIT_TIMEOUT_SECONDS } from '../contract/timing.js';
import type { InvoiceStatus } from '../contract/invoices.js';
import type { Clock } from './clock.js';
import { TopupError, UsageError, WaitTimeoutError } from '../errors.js';

export interface WaitOptions {
  /** Milliseconds between polls. Default 15 000, at least 10 000; a longer positive `poll_after_seconds` from the server wins. */
  interval?: number | undefined;
  /** Milliseconds until WaitTimeoutError. Default: the invoice lifetime plus five minutes, by when every invoice is final. */
  timeout?: number | undefined;
  /** Stops waiting; the promise rejects with the signal's reason, also in the middle of a pause. */
  signal?: AbortSignal | undefined;
  /** Called with every status seen, final or not. */
  onPoll?: ((status: InvoiceStatus) => void) | undefined;
  /**
   * Called when a check after the first fails in a way that passes by itself (no answer, a 5xx, a timeout, a 429),
   * once the client's own retries are spent. The wait goes on until the invoice is final or the timeout passes; any
   * other failure, and a failure of the first check, ends it.
   */
  onPollError?: ((error: TopupError, nextCheckInMs: number) => void) | undefined;
}

/** Kinds of failure a later check may well not meet: no answer, a timeout, a server error, the rate limit. */
const PASSING_KINDS: ReadonlySet<string> = new Set(['connection', 'timeout', 'server', 'rate_limited']);

/**
 * Whether a failed check may pass by itself, so a long wait should check again rather than end. A 501 (the server
 * does not do this at all) will not.
 */
export function mayPassByItself(error: unknown): error is TopupError {
  if (!(error instanceof Error) || !('kind' in error) || typeof error.kind !== 'string') return false;
  return PASSING_KINDS.has(error.kind) && (error as TopupError).status !== 501;
}

export const waitDefaults = {
  interval: pollIntervals.invoiceStatus.recommended * 1000,
  minInterval: pollIntervals.invoiceStatus.min * 1000,
  timeout: WAIT_TIMEOUT_SECONDS * 1000,
} as const;

/** Payment statuses that never change by themselves again. Any other value, known or not, may still change. */
export const FINAL_PAYMENT_STATUSES: ReadonlySet<string> = new Set(['paid', 'expired', 'failed', 'cancelled', 'refunded']);

/**
 * Whether a status answer is final, from what the document guarantees: the server's own `is_final` when it sends a
 * boolean, else `payment_status`. An answer without `payment_status` cannot be waited on: that is an error, never a loop.
 */
export function isFinalStatus(status: { payment_status?: unknown; is_final?: unknown }, invoiceCode: string): boolean {
  if (typeof status.payment_status !== 'string' || status.payment_status === '') {
    throw new TopupError(`The server's status answer for invoice ${invoiceCode} has no payment_status, so there is nothing to wait for.`);
  }
  if (typeof status.is_final === 'boolean') return status.is_final;
  return FINAL_PAYMENT_STATUSES.has(status.payment_status);
}

/**
 * The pause before the next poll: the caller's interval, lengthened (never shortened) by a server's
 * `poll_after_seconds` when that is a sensible positive number; at most what is left of the wait.
 */
export function nextPollDelay(interval: number, pollAfterSeconds: unknown, left: number): number {
  const asked =
    typeof pollAfterSeconds === 'number' && Number.isFinite(pollAfterSeconds) && pollAfterSeconds > 0 ? pollAfterSeconds * 1000 : 0;
  return Math.min(Math.max(interval, asked), left);
}

/** Polls `fetchStatus` until the invoice is final, the timeout passes, or the signal aborts. */
export async function waitForInvoice(
  fetchStatus: (signal: AbortSignal | undefined) => Promise<InvoiceStatus>,
  options: WaitOptions,
  clock: Clock,
  invoiceCode = 'the invoice',
): Promise<InvoiceStatus> {
  const interval = options.interval ?? waitDefaults.interval;
  const timeout = options.timeout ?? waitDefaults.timeout;
  if (!Number.isFinite(interval) || interval < waitDefaults.minInterval) {
    throw new UsageError(`The wait interval must be at least ${waitDefaults.minInterval} ms; polling faster is discouraged.`);
  }
  if (!Number.isFinite(timeout) || timeout < 0) throw new UsageError('The wait timeout must be a number of milliseconds.');
  const { signal } = options;
  const deadline = clock.now() + timeout;

  let last: InvoiceStatus | undefined;
  for (;;) {
    signal?.throwIfAborted();
    let failed: TopupError | undefined;
    try {
      const status = await fetchStatus(signal);
      options.onPoll?.(status);
      if (isFinalStatus(status, invoiceCode)) return status;
      last = status;
    } catch (error) {
      // Nothing seen yet (a wrong address, a token refused) is no wait to keep up; a later outage may pass.
      if (last === undefined || signal?.aborted === true || !mayPassByItself(error)) throw error;
      failed = error;
    }
    const left = deadline - clock.now();
    const code = last.invoice_code ?? invoiceCode;
    if (left <= 0) {
      throw new WaitTimeoutError(
        failed === undefined
          ? `Invoice ${code} was still ${last.payment_status} when the wait timed out.`
          : `Invoice ${code} was last seen ${last.payment_status}; the wait timed out while the server could not be checked: ${failed.message}`,
        last,
      );
    }
    // The last pause is cut short so the final poll lands on the deadline.
    const pause = nextPollDelay(interval, failed === undefined ? last.poll_after_seconds : failed.retryAfter, left);
    if (failed !== undefined) options.onPollError?.(failed, pause);
    await clock.sleep(pause, signal);
  }
}
