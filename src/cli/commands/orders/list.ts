import { hintCommand } from '../../hint-command.js';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { OrderList, OrderListQuery, OrderSummary } from '../../../contract/index.js';
import { listIn } from '../shared/answer.js';
import type { CliContext } from '../../context.js';
import { amountText, creditText, statusText, timeText } from '../../io/format.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { orderStatuses, orderTypes, paymentStatuses } from '../shared/choices.js';
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
    { header: 'status', value: (o) => statusText(o.status, view.style), priority: 7 },
    { header: 'payment', value: (o) => statusText(o.payment_status, view.style), priority: 4 },
    { header: 'type', value: (o) => o.order_type, priority: 2 },
    { header: 'username', value: (o) => o.platform_username, free: true, priority: 5 },
    { header: 'credits', value: (o) => creditText(o.credit_amount, view.terminal, o.currency), align: 'right', priority: 3 },
    {
      header: 'total',
      value: (o) => amountText(o.total_amount, o.formatted_total_amount, view.terminal, o.currency),
      align: 'right',
      priority: 6,
    },
    { header: 'created', value: (o) => timeText(o.created_at, view), priority: 1 },
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
    commandFor: (page) => hintCommand(ctx, ['orders list', ...filterArgs, `--page ${page}`].join(' ')),
  });
}

/** `topup orders list`: its filters, paging and help. */
export function registerOrdersList(orders: Command, ctx: CliContext): void {
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
}

function parseReference(value: string): string {
  if (value.length < 1 || value.length > 64) throw new InvalidArgumentError('A reference is 1 to 64 characters.');
  return value;
}
