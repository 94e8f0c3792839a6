import { INVOICE_TTL_SECONDS, pollIntervals } from '../contract/timing.js';
import type { InvoiceStatus } from '../contract/invoices.js';
import type { Clock } from './clock.js';
import { UsageError, WaitTimeoutError } from './errors.js';

export interface WaitOptions {
  /** Milliseconds between polls. Default 15 000, at least 10 000; a longer `poll_after_seconds` from the server wins. */
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
  timeout: (INVOICE_TTL_SECONDS + 5 * 60) * 1000,
} as const;

/** Polls `fetchStatus` until the invoice is final, the timeout passes, or the signal aborts. */
export async function waitForInvoice(
  fetchStatus: (signal: AbortSignal | undefined) => Promise<InvoiceStatus>,
  options: WaitOptions,
  clock: Clock,
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
    if (status.is_final) return status;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new WaitTimeoutError(`Invoice ${status.invoice_code} was still ${status.payment_status} when the wait timed out.`, status);
    }
    // The last pause is cut short so the final poll lands on the deadline.
    await clock.sleep(Math.min(Math.max(interval, status.poll_after_seconds * 1000), left), signal);
  }
}
