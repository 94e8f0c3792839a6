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

  for (;;) {
    signal?.throwIfAborted();
    const status = await fetchStatus(signal);
    options.onPoll?.(status);
    if (isFinalStatus(status, invoiceCode)) return status;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new WaitTimeoutError(
        `Invoice ${status.invoice_code ?? invoiceCode} was still ${status.payment_status} when the wait timed out.`,
        status,
      );
    }
    // The last pause is cut short so the final poll lands on the deadline.
    await clock.sleep(nextPollDelay(interval, status.poll_after_seconds, left), signal);
  }
}
