import { type Command } from 'commander';
import type { Invoice, InvoiceStatus } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { RejectedError, UsageError } from '../../errors.js';
import { amountText, clockText, flagText, orDash, renderRecord, statusText, timeText, type RecordField } from '../../io/format.js';
import { recordIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';
import { DEFAULT_WAIT_TIMEOUT_SECONDS, parseInvoiceCode, parseWholeNumber, refreshIntervals } from '../shared/choices.js';

export function invoiceFields(invoice: Invoice, view: View): RecordField[] {
  const fields: RecordField[] = [
    { key: 'invoice_code', label: 'invoice', plain: invoice.invoice_code },
    { key: 'type', label: 'for', plain: invoice.type },
    { key: 'payment_status', label: 'status', plain: invoice.payment_status, pretty: statusText(invoice.payment_status, view.style) },
    {
      key: 'amount',
      label: 'amount',
      plain: amountText(invoice.amount, invoice.formatted_amount, view.terminal, invoice.currency),
      pretty: view.style.bold(amountText(invoice.amount, invoice.formatted_amount, true, invoice.currency)),
    },
    { key: 'currency', label: 'currency', plain: invoice.currency },
    { key: 'payment_method', label: 'method', plain: invoice.payment_method },
    { key: 'payment_url', label: 'payment url', plain: orDash(invoice.payment_url) },
    { key: 'invoice_url', label: 'invoice url', plain: invoice.invoice_url },
    { key: 'created_at', label: 'created', plain: timeText(invoice.created_at, view) },
    { key: 'expires_at', label: 'expires', plain: timeText(invoice.expires_at, view) },
    { key: 'paid_at', label: 'paid', plain: timeText(invoice.paid_at, view) },
  ];
  const order = invoice.order;
  // null: a deposit's invoice; missing: the server did not say.
  if (order === null || order === undefined) return fields;
  return [
    ...fields,
    {
      key: 'order_status',
      label: 'order',
      plain: order.status,
      pretty: `${statusText(order.status, view.style)} · ${orDash(order.order_type)} for ${orDash(order.platform_username)}, ${orDash(order.credit_amount)} credits`,
    },
    ...(view.terminal
      ? []
      : [
          { key: 'order_type', label: '', plain: order.order_type },
          { key: 'platform_username', label: '', plain: order.platform_username },
          { key: 'credit_amount', label: '', plain: order.credit_amount },
        ]),
  ];
}

export function invoiceStatusFields(status: InvoiceStatus, view: View): RecordField[] {
  return [
    { key: 'invoice_code', label: 'invoice', plain: status.invoice_code },
    { key: 'type', label: 'for', plain: status.type },
    { key: 'payment_status', label: 'status', plain: status.payment_status, pretty: statusText(status.payment_status, view.style) },
    { key: 'order_status', label: 'order', plain: status.order_status, pretty: statusText(status.order_status, view.style) },
    { key: 'is_final', label: 'final', plain: flagText(status.is_final, false), pretty: flagText(status.is_final, true) },
    { key: 'amount', label: 'amount', plain: amountText(status.amount, status.formatted_amount, view.terminal) },
    { key: 'expires_at', label: 'expires', plain: timeText(status.expires_at, view) },
    { key: 'paid_at', label: 'paid', plain: timeText(status.paid_at, view) },
  ];
}

export async function runInvoicesShow(ctx: CliContext, invoiceCode: string): Promise<void> {
  const data = await (await ctx.client()).invoices.get(invoiceCode, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = ctx.io.view;
  const invoice = recordIn<Invoice>(data, 'invoice');
  ctx.io.out(renderRecord(invoiceFields(invoice, view), { ...view, title: `Invoice ${invoice.invoice_code ?? invoiceCode}` }));
}

export interface WaitSettings {
  /** Seconds between polls; default 15, at least 10. */
  intervalSeconds?: number | undefined;
  /** Seconds until the wait gives up with WaitTimeoutError (exit 8); default 65 minutes. */
  timeoutSeconds?: number | undefined;
}

const unpaidEndings: Record<string, (code: string) => string> = {
  expired: (code) => `Invoice ${code} expired before it was paid.`,
  cancelled: (code) => `Invoice ${code} was cancelled before it was paid.`,
  failed: (code) => `The payment of invoice ${code} failed.`,
  refunded: (code) => `Invoice ${code} was paid, then refunded to the balance because the order failed.`,
};

/**
 * Polls an invoice until it is final, showing progress on stderr (a spinner on a terminal, one line per
 * poll otherwise, nothing with --json), and returns the final status when it is paid.
 * An invoice that ended expired, failed or refunded is a RejectedError (exit 5); a wait that runs out
 * is the client's WaitTimeoutError (exit 8); Ctrl-C rejects with the signal's reason (exit 130).
 */
export async function waitForInvoice(ctx: CliContext, invoiceCode: string, settings: WaitSettings = {}): Promise<InvoiceStatus> {
  const interval = settings.intervalSeconds ?? refreshIntervals.invoiceStatus.recommended;
  const timeout = settings.timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS;
  const { min } = refreshIntervals.invoiceStatus;
  if (!Number.isInteger(interval) || interval < min) throw new UsageError(`The wait interval must be at least ${min} seconds.`);
  if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError('The wait timeout must be a whole number of seconds.');
  const [client, { isFinalStatus, nextPollDelay }] = await Promise.all([ctx.client(), import('../../../client/wait.js')]);
  const style = ctx.io.style;
  const quiet = ctx.globals.json;
  const spinning = !quiet && ctx.io.stderrTerminal;
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
  const ending = Object.hasOwn(unpaidEndings, final.payment_status ?? '') ? unpaidEndings[final.payment_status!] : undefined;
  if (ending !== undefined) throw new RejectedError(ending(final.invoice_code ?? invoiceCode));
  return final;
}

export interface StatusFlags {
  wait?: boolean | undefined;
  interval?: number | undefined;
  timeout?: number | undefined;
}

export async function runInvoiceStatus(ctx: CliContext, invoiceCode: string, flags: StatusFlags): Promise<void> {
  if (!flags.wait && (flags.interval !== undefined || flags.timeout !== undefined)) {
    throw new UsageError('--interval and --timeout only apply with --wait.');
  }
  const status = flags.wait
    ? await waitForInvoice(ctx, invoiceCode, { intervalSeconds: flags.interval, timeoutSeconds: flags.timeout })
    : await (await ctx.client()).invoices.status(invoiceCode, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(status);
  const view = ctx.io.view;
  ctx.io.out(renderRecord(invoiceStatusFields(status, view), { ...view, title: `Invoice ${status.invoice_code ?? invoiceCode}` }));
}

export function registerInvoiceCommands(program: Command, ctx: CliContext): void {
  const invoices = program
    .command('invoices')
    .description('Show invoices (of orders and deposits) and wait for their payment')
    .addHelpText(
      'after',
      '\nExamples:\n  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)\n  $ topup invoices show "$inv"\n  $ topup mock pay "$inv"   # the sandbox pays it\n  $ topup invoices status "$inv" --wait',
    );

  invoices
    .command('show')
    .argument('<invoice>', 'invoice code', parseInvoiceCode)
    .description('Show one invoice: amount, payment method, links, dates and its order')
    .addHelpText(
      'after',
      '\nExamples:\n  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)\n  $ topup invoices show "$inv"\n  $ topup invoices show "$inv" --json | jq -r .invoice.invoice_url',
    )
    .action((invoice: string) => runInvoicesShow(ctx, invoice));

  const { min, recommended } = refreshIntervals.invoiceStatus;
  invoices
    .command('status')
    .argument('<invoice>', 'invoice code', parseInvoiceCode)
    .description('Show the payment status of an invoice, or wait until it is final')
    .option('--wait', 'poll until the invoice is paid, expired, failed or refunded', false)
    .option(
      '--interval <seconds>',
      `seconds between polls with --wait (default ${recommended}, at least ${min})`,
      parseWholeNumber('--interval', min, 3600),
    )
    .option(
      '--timeout <seconds>',
      `give up waiting after this many seconds (default ${DEFAULT_WAIT_TIMEOUT_SECONDS}: by then every invoice is final)`,
      parseWholeNumber('--timeout', 1),
    )
    .addHelpText(
      'after',
      `
With --wait the exit code says how it ended: 0 paid, 5 expired, failed or refunded, 8 still pending at --timeout.

Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup invoices status "$inv"
  $ topup mock pay "$inv"   # the sandbox pays it; a real invoice is paid at its payment_url
  $ topup invoices status "$inv" --wait --timeout 600
  $ topup invoices status "$inv" --wait --json | jq -r .payment_status`,
    )
    .action((invoice: string, flags: StatusFlags) => runInvoiceStatus(ctx, invoice, flags));
}
