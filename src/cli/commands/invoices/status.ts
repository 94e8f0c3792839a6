import type { Command } from 'commander';
import type { InvoiceStatus } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { amountText, flagText, renderRecord, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { DEFAULT_WAIT_TIMEOUT_SECONDS, parseInvoiceCode, parseWholeNumber, refreshIntervals } from '../shared/choices.js';
import { unpaidEnding, waitForInvoice } from './wait.js';

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
  // The final status is data whatever it is; a wait that ended unpaid then exits 5 (`--wait --json | jq` reads it).
  if (ctx.globals.json) await ctx.io.writeJson(status);
  else {
    const view = await ctx.io.tableView();
    ctx.io.out(renderRecord(invoiceStatusFields(status, view), { ...view, title: `Invoice ${status.invoice_code ?? invoiceCode}` }));
  }
  const unpaid = flags.wait ? unpaidEnding(status, invoiceCode) : undefined;
  if (unpaid !== undefined) throw unpaid;
}

/** `topup invoices status INVOICE [--wait]`. */
export function registerInvoiceStatus(invoices: Command, ctx: CliContext): void {
  const { min, recommended } = refreshIntervals.invoiceStatus;
  invoices
    .command('status')
    .argument('<invoice>', 'invoice code', parseInvoiceCode)
    .description('Show the payment status of an invoice, or wait until it is final')
    .option('--wait', 'poll until the invoice is paid, expired, failed or refunded', false)
    .option(
      '--interval <seconds>',
      `seconds between polls with --wait (default ${recommended}, at least ${min}; a longer pause the server asks for wins)`,
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
