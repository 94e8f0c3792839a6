import type { Command } from 'commander';
import type { Order } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, creditText, orDash, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { parseInvoiceCode } from '../shared/choices.js';
import { runShow } from '../shared/show-record.js';

export function orderFields(order: Order, view: View): RecordField[] {
  const money = (raw: number | undefined, formatted: string | undefined) => amountText(raw, formatted, view.terminal, order.currency);
  return [
    { key: 'invoice_code', label: 'invoice', plain: order.invoice_code },
    { key: 'status', label: 'status', plain: order.status, pretty: statusText(order.status, view.style) },
    { key: 'payment_status', label: 'payment', plain: order.payment_status, pretty: statusText(order.payment_status, view.style) },
    { key: 'order_type', label: 'type', plain: order.order_type },
    { key: 'platform_username', label: 'username', plain: order.platform_username },
    { key: 'place_id', label: 'place', plain: order.place_id },
    { key: 'platform_pass_id', label: order.order_type === 'vip_server' ? 'VIP server' : 'pass', plain: order.platform_pass_id },
    {
      key: 'credit_amount',
      label: 'credits',
      plain: order.credit_amount,
      pretty: creditText(order.credit_amount, true, order.currency),
    },
    { key: 'price', label: 'price', plain: money(order.price, order.formatted_price) },
    { key: 'discount', label: 'discount', plain: money(order.discount, order.formatted_discount) },
    {
      key: 'total_amount',
      label: 'total',
      plain: money(order.total_amount, order.formatted_total_amount),
      pretty: view.style.bold(amountText(order.total_amount, order.formatted_total_amount, true, order.currency)),
    },
    { key: 'currency', label: 'currency', plain: order.currency },
    { key: 'payment_method', label: 'method', plain: order.payment_method },
    { key: 'client_reference', label: 'reference', plain: orDash(order.client_reference) },
    { key: 'environment', label: 'environment', plain: order.environment },
    { key: 'invoice_url', label: 'invoice url', plain: order.invoice_url },
    { key: 'created_at', label: 'created', plain: timeText(order.created_at, view) },
    { key: 'updated_at', label: 'updated', plain: timeText(order.updated_at, view) },
    { key: 'paid_at', label: 'paid', plain: timeText(order.paid_at, view) },
    { key: 'completed_at', label: 'completed', plain: timeText(order.completed_at, view) },
  ];
}

export async function runOrdersShow(ctx: CliContext, invoiceCode: string): Promise<void> {
  const client = await ctx.client();
  await runShow<Order>(ctx, invoiceCode, {
    key: 'order',
    title: 'Order',
    fetch: () => client.orders.get(invoiceCode, { signal: ctx.signal }),
    fields: orderFields,
  });
}

/** `topup orders show INVOICE`. */
export function registerOrdersShow(orders: Command, ctx: CliContext): void {
  orders
    .command('show')
    .argument('<invoice>', "the order's invoice code", parseInvoiceCode)
    .description('Show one order with its pricing and dates')
    .addHelpText(
      'after',
      `
Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup orders show "$inv"
  $ topup orders show "$inv" --json | jq .order.status`,
    )
    .action((invoice: string) => runOrdersShow(ctx, invoice));
}
