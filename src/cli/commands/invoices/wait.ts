import type { InvoiceStatus } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { RejectedError, UsageError } from '../../errors.js';
import { clockText, orDash, statusText } from '../../io/format.js';
import { messageText } from '../../io/sanitize.js';
import { DEFAULT_WAIT_TIMEOUT_SECONDS, refreshIntervals } from '../shared/choices.js';
import { isFinalStatus, nextPollDelay } from '../../../client/wait.js';

export interface WaitSettings {
  /** Seconds between polls; default 15, at least 10. */
  intervalSeconds?: number | undefined;
  /** Seconds until the wait gives up with WaitTimeoutError (exit 8); default 65 minutes. */
  timeoutSeconds?: number | undefined;
}

/** Whether an invoice's final status says it ended without being paid (exit 5 for a wait that ends so). */
export function endedUnpaid(paymentStatus: string | undefined): boolean {
  return Object.hasOwn(unpaidEndings, paymentStatus ?? '');
}

const unpaidEndings: Record<string, (code: string) => string> = {
  expired: (code) => `Invoice ${code} expired before it was paid.`,
  cancelled: (code) => `Invoice ${code} was cancelled before it was paid.`,
  failed: (code) => `The payment of invoice ${code} failed.`,
  refunded: (code) => `Invoice ${code} was paid, then refunded to the balance because the order failed.`,
};

/**
 * The RejectedError (exit 5) of an invoice that ended without being paid (expired, cancelled, failed, refunded), for
 * the caller to throw once it has shown that final status; undefined when it was paid.
 */
export function unpaidEnding(final: InvoiceStatus, invoiceCode: string): RejectedError | undefined {
  const ending = Object.hasOwn(unpaidEndings, final.payment_status ?? '') ? unpaidEndings[final.payment_status!] : undefined;
  return ending === undefined ? undefined : new RejectedError(ending(final.invoice_code ?? invoiceCode));
}

/**
 * Polls an invoice until it is final, showing progress on stderr (a spinner on a terminal, one line per
 * poll otherwise, nothing with --json), and returns the final status, whatever it is: the caller shows it, then
 * throws `unpaidEnding` of it (exit 5) when it was not paid. A wait that runs out is the client's WaitTimeoutError
 * (exit 8); Ctrl-C rejects with the signal's reason (exit 130).
 */
export async function waitForInvoice(ctx: CliContext, invoiceCode: string, settings: WaitSettings = {}): Promise<InvoiceStatus> {
  const interval = settings.intervalSeconds ?? refreshIntervals.invoiceStatus.recommended;
  const timeout = settings.timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS;
  const { min } = refreshIntervals.invoiceStatus;
  if (!Number.isInteger(interval) || interval < min) throw new UsageError(`The wait interval must be at least ${min} seconds.`);
  if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError('The wait timeout must be a whole number of seconds.');
  const client = await ctx.client();
  const style = ctx.io.errStyle;
  const quiet = ctx.globals.json;
  // Accessible mode: the plain line per poll, which nothing redraws.
  const spinning = !quiet && ctx.io.stderrTerminal && !ctx.io.accessible;
  const spinner = ctx.io.progress(`Waiting for ${invoiceCode} to be paid…`);
  const describe = (s: InvoiceStatus) =>
    `${s.invoice_code ?? invoiceCode} ${orDash(s.payment_status)}${s.order_status == null ? '' : ` (order ${s.order_status})`}`;
  const deadline = ctx.clock.now() + timeout * 1000;
  let final: InvoiceStatus;
  try {
    final = await client.invoices.wait(invoiceCode, {
      interval: interval * 1000,
      timeout: timeout * 1000,
      signal: ctx.signal,
      onPoll: (s) => {
        // As the client decides: the server may ask for a longer pause, and the last one ends at the deadline.
        const final = typeof s.payment_status === 'string' && isFinalStatus(s, invoiceCode);
        const next = Math.ceil(nextPollDelay(interval * 1000, s.poll_after_seconds, deadline - ctx.clock.now()) / 1000);
        const plan = final ? '' : next > 0 ? `; next check in ${next} s` : '; giving up';
        if (spinning)
          spinner.update(
            `Waiting for ${invoiceCode} to be paid: ${statusText(s.payment_status, style)} at ${clockText(ctx.clock.now(), ctx.io.view)}${plan}.`,
          );
        else ctx.io.notice(`${describe(s)}${plan}`);
      },
      onPollError: (error, nextMs) => {
        const text = `Could not check ${invoiceCode} at ${clockText(ctx.clock.now(), ctx.io.view)}: ${messageText(error.message, { multiline: false }).replace(/\.?$/, '.')} Next check in ${Math.ceil(nextMs / 1000)} s.`;
        if (spinning) spinner.update(text);
        else ctx.io.warn(text);
      },
    });
  } catch (error) {
    spinner.stop();
    throw error;
  }
  spinner.stop(
    spinning
      ? final.payment_status === 'paid'
        ? `${style.green('✓')} ${describe(final)}`
        : `${style.red('✗')} ${describe(final)}`
      : undefined,
  );
  return final;
}
