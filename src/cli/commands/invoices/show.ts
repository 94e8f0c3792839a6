import type { Command } from 'commander';
import type { Invoice } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, creditText, orDash, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { parseInvoiceCode } from '../shared/choices.js';
import { runShow } from '../shared/show-record.js';

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
      pretty: `${statusText(order.status, view.style)} · ${orDash(order.order_type)} for ${orDash(order.platform_username)}, ${creditText(order.credit_amount, true, invoice.currency)} credits`,
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

export async function runInvoicesShow(ctx: CliContext, invoiceCode: string): Promise<void> {
  const client = await ctx.client();
  await runShow<Invoice>(ctx, invoiceCode, {
    key: 'invoice',
    title: 'Invoice',
    fetch: () => client.invoices.get(invoiceCode, { signal: ctx.signal }),
    fields: invoiceFields,
  });
}

/** `topup invoices show INVOICE`. */
export function registerInvoicesShow(invoices: Command, ctx: CliContext): void {
  invoices
    .command('show')
    .argument('<invoice>', 'invoice code', parseInvoiceCode)
    .description('Show one invoice: amount, payment method, links, dates and its order')
    .addHelpText(
      'after',
      `
Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup invoices show "$inv"
  $ topup invoices show "$inv" --json | jq -r .invoice.invoice_url`,
    )
    .action((invoice: string) => runInvoicesShow(ctx, invoice));
}
