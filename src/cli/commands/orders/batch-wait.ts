// `orders batch --wait`: every created invoice polled in turn until final, within the read limit.
import type { TopupClient } from '../../../client/index.js';
import type { InvoiceStatus } from '../../../contract/invoices.js';
import { isFinalStatus, mayPassByItself } from '../../../client/wait.js';
import { pollIntervals } from '../../../contract/timing.js';
import { rateClasses } from '../../../contract/rate-limits.js';
import { WaitTimeoutError, type TopupError } from '../../../errors.js';
import type { CliClock } from '../../clock.js';

/** Never one invoice more often than this (the document's minimum status interval). */
const PER_INVOICE_MS = pollIntervals.invoiceStatus.min * 1000;
/** Never all of them together faster than the published read limit. */
const BETWEEN_POLLS_MS = Math.ceil((rateClasses['user-read'].windowSeconds * 1000) / rateClasses['user-read'].limit);

export interface PendingInvoice {
  key: string;
  invoiceCode: string;
  /** The file's line of the row that made it (its first, when rows repeat it). */
  line: number;
}

/**
 * The time of each poll: one poll at a time, at least BETWEEN_POLLS_MS apart (60 a minute for all of them), each
 * invoice at least PER_INVOICE_MS (or its poll_after_seconds) after its last. Pure scheduling: tested on its own.
 */
export class PollSchedule {
  readonly #due = new Map<string, number>();
  #lastPoll = Number.NEGATIVE_INFINITY;

  constructor(invoices: readonly PendingInvoice[], start: number) {
    for (const invoice of invoices) this.#due.set(invoice.key, start);
  }

  get size(): number {
    return this.#due.size;
  }

  /** The invoice to poll next and when. */
  next(): { key: string; at: number } | undefined {
    let best: { key: string; at: number } | undefined;
    for (const [key, due] of this.#due) if (best === undefined || due < best.at) best = { key, at: due };
    if (best === undefined) return undefined;
    return { key: best.key, at: Math.max(best.at, this.#lastPoll + BETWEEN_POLLS_MS) };
  }

  polled(key: string, at: number, final: boolean, pollAfterSeconds: unknown): void {
    this.#lastPoll = at;
    if (final) {
      this.#due.delete(key);
      return;
    }
    const asked =
      typeof pollAfterSeconds === 'number' && Number.isFinite(pollAfterSeconds) && pollAfterSeconds > 0 ? pollAfterSeconds * 1000 : 0;
    // With many invoices, each comes round no sooner than the read limit allows for all of them.
    this.#due.set(key, at + Math.max(PER_INVOICE_MS, asked, this.#due.size * BETWEEN_POLLS_MS));
  }
}

/**
 * Polls until every invoice is final (calling `onFinal` with each, to record it) or the timeout passes
 * (WaitTimeoutError, exit 8). A check that fails in a way that may pass by itself is tried again later (`onPollError`).
 * The signal stops it at once.
 */
export async function waitForInvoices(
  client: TopupClient,
  invoices: readonly PendingInvoice[],
  options: {
    clock: CliClock;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    onFinal: (invoice: PendingInvoice, paymentStatus: string) => Promise<void>;
    onPoll?: ((left: number) => void) | undefined;
    /**
     * A check that failed in a way that may pass by itself (no answer, a 5xx, a timeout, the rate limit), once the
     * client's retries are spent: that invoice is checked again later, and the wait goes on. Any other failure ends it.
     */
    onPollError?: ((invoice: PendingInvoice, error: TopupError) => void) | undefined;
  },
): Promise<void> {
  const { clock, signal } = options;
  const byKey = new Map(invoices.map((invoice) => [invoice.key, invoice]));
  const deadline = clock.now() + options.timeoutMs;
  const schedule = new PollSchedule(invoices, clock.now());
  let lastStatus: InvoiceStatus | undefined;
  let atDeadline = false;
  for (let next = schedule.next(); next !== undefined; next = schedule.next()) {
    // The poll that would fall after the deadline is made at it, once, as `invoices status --wait` makes its last: a
    // payment in the last seconds of --timeout is seen.
    if (next.at > deadline) {
      if (atDeadline) break;
      atDeadline = true;
    }
    const wait = Math.min(next.at, deadline) - clock.now();
    if (wait > 0) await clock.sleep(wait, signal);
    signal?.throwIfAborted();
    const invoice = byKey.get(next.key)!;
    let status: InvoiceStatus;
    try {
      status = await client.invoices.status(invoice.invoiceCode, { signal });
    } catch (error) {
      if (signal?.aborted === true || !mayPassByItself(error)) throw error;
      schedule.polled(next.key, clock.now(), false, error.retryAfter);
      options.onPollError?.(invoice, error);
      continue;
    }
    lastStatus = status;
    const final = isFinalStatus(status, invoice.invoiceCode);
    schedule.polled(next.key, clock.now(), final, status.poll_after_seconds);
    if (final) await options.onFinal(invoice, status.payment_status ?? 'final');
    options.onPoll?.(schedule.size);
  }
  if (schedule.size > 0) {
    throw new WaitTimeoutError(
      `${schedule.size} of ${invoices.length} invoices were still not final when the wait timed out.`,
      lastStatus ?? {},
    );
  }
}
