import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Order, OrderList, OrderListQuery, OrderSummary } from '../../../contract/index.js';
import { listIn, recordIn } from '../shared/answer.js';
import type { CliContext } from '../../context.js';
import { amountText, orDash, renderRecord, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { orderStatuses, orderTypes, parseInvoiceCode, paymentStatuses } from '../shared/choices.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';

export interface OrderListFlags extends PagingFlags {
  status?: string | undefined;
  paymentStatus?: string | undefined;
  type?: string | undefined;
  reference?: string | undefined;
}

/** The columns of `orders list`, also used for the dashboard's recent orders. */
export function orderSummaryColumns(view: View): Column<OrderSummary>[] {
  return [
    { header: 'invoice', value: (o) => o.invoice_code },
    { header: 'status', value: (o) => statusText(o.status, view.style) },
    { header: 'payment', value: (o) => statusText(o.payment_status, view.style) },
    { header: 'type', value: (o) => o.order_type },
    { header: 'username', value: (o) => o.platform_username, free: true },
    { header: 'credits', value: (o) => o.credit_amount, align: 'right' },
    {
      header: 'total',
      value: (o) => amountText(o.total_amount, o.formatted_total_amount, view.terminal, o.currency),
      align: 'right',
    },
    { header: 'created', value: (o) => timeText(o.created_at, view) },
  ];
}

export async function runOrdersList(ctx: CliContext, flags: OrderListFlags): Promise<void> {
  const client = await ctx.client();
  const filters = {
    status: flags.status as OrderListQuery['status'],
    payment_status: flags.paymentStatus as OrderListQuery['payment_status'],
    order_type: flags.type as OrderListQuery['order_type'],
    client_reference: flags.reference,
  };
  const filterArgs = [
    flags.status && `--status ${flags.status}`,
    flags.paymentStatus && `--payment-status ${flags.paymentStatus}`,
    flags.type && `--type ${flags.type}`,
    flags.reference && `--reference '${flags.reference.replace(/'/g, `'\\''`)}'`,
    flags.perPage && `--per-page ${flags.perPage}`,
  ].filter(Boolean);
  await runList<OrderList, OrderSummary>(ctx, flags, {
    noun: 'orders',
    key: 'orders',
    columns: orderSummaryColumns(ctx.io.view),
    fetch: (query) => client.orders.list({ ...filters, ...query }, { signal: ctx.signal }),
    itemsOf: (page) => listIn(page, 'orders'),
    commandFor: (page) => ['topup orders list', ...filterArgs, `--page ${page}`].join(' '),
  });
}

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
    { key: 'credit_amount', label: 'credits', plain: order.credit_amount },
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
  const data = await (await ctx.client()).orders.get(invoiceCode, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = ctx.io.view;
  const order = recordIn<Order>(data, 'order');
  ctx.io.out(renderRecord(orderFields(order, view), { ...view, title: `Order ${order.invoice_code ?? invoiceCode}` }));
}

/**
 * Creates the `orders` group with `list` and `show`, and returns it:
 * `orders create` (commands/orders/create.ts) attaches to the same command.
 */
export function registerOrderCommands(program: Command, ctx: CliContext): Command {
  const orders = program
    .command('orders')
    .description('List, show and create orders')
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup orders list --status pending\n  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)\n  $ topup orders show "$inv"',
    );

  const list = orders
    .command('list')
    .description('List your orders, newest first')
    .addOption(new Option('--status <status>', 'only orders in this status').choices(orderStatuses))
    .addOption(new Option('--payment-status <status>', 'only orders whose invoice is in this payment status').choices(paymentStatuses))
    .addOption(new Option('--type <type>', 'only orders of this type').choices(orderTypes))
    .addOption(new Option('--reference <text>', 'only orders with this client reference').argParser(parseReference));
  addPagingOptions(list)
    .addHelpText(
      'after',
      `
Piped, each order is one tab-separated line: invoice, status, payment status, type, username, credits, total (IDR),
created (ISO 8601, UTC). On a terminal: a table as wide as the terminal (long usernames end in …), times in your
zone, and the pager when it is taller than the terminal.

Examples:
  $ topup orders list
  $ TOPUP_PAGER=cat topup orders list --all
  $ topup orders list --status pending --type gamepass
  $ topup orders list --reference chat-4711
  $ topup orders list --all --json | jq '.orders[].invoice_code'`,
    )
    .action((flags: OrderListFlags) => runOrdersList(ctx, flags));

  orders
    .command('show')
    .argument('<invoice>', "the order's invoice code", parseInvoiceCode)
    .description('Show one order with its pricing and dates')
    .addHelpText(
      'after',
      '\nExamples:\n  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)\n  $ topup orders show "$inv"\n  $ topup orders show "$inv" --json | jq .order.status',
    )
    .action((invoice: string) => runOrdersShow(ctx, invoice));

  return orders;
}

function parseReference(value: string): string {
  if (value.length < 1 || value.length > 64) throw new InvalidArgumentError('A reference is 1 to 64 characters.');
  return value;
}
