import { hintCommand } from '../../hint-command.js';
import { Option, type Command } from 'commander';
import type { Deposit, DepositList, PaymentStatus } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, statusText, timeText } from '../../io/format.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { paymentStatuses } from '../shared/choices.js';
import { listIn } from '../shared/answer.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';

export function depositColumns(view: View): Column<Deposit>[] {
  return [
    { header: 'invoice', value: (d) => d.invoice_code },
    { header: 'status', value: (d) => statusText(d.payment_status, view.style), priority: 5 },
    { header: 'amount', value: (d) => amountText(d.amount, d.formatted_amount, view.terminal, d.currency), align: 'right', priority: 4 },
    { header: 'method', value: (d) => d.payment_method, priority: 2 },
    { header: 'created', value: (d) => timeText(d.created_at, view), priority: 1 },
    { header: 'paid', value: (d) => timeText(d.paid_at, view), priority: 3 },
  ];
}

export async function runDepositsList(ctx: CliContext, flags: PagingFlags & { status?: PaymentStatus | undefined }): Promise<void> {
  const client = await ctx.client();
  const extra = [flags.status && `--status ${flags.status}`, flags.perPage && `--per-page ${flags.perPage}`].filter(Boolean);
  await runList<DepositList, Deposit>(ctx, flags, {
    noun: 'deposits',
    key: 'deposits',
    columns: depositColumns(ctx.io.view),
    fetch: (query) => client.deposits.list({ ...(flags.status ? { payment_status: flags.status } : {}), ...query }, { signal: ctx.signal }),
    itemsOf: (page) => listIn(page, 'deposits'),
    commandFor: (page) => hintCommand(ctx, ['deposits list', ...extra, `--page ${page}`].join(' ')),
  });
}

/** `topup deposits list`. */
export function registerDepositsList(deposits: Command, ctx: CliContext): void {
  const list = deposits
    .command('list')
    .description('List deposits, newest first')
    .addOption(new Option('--status <status>', 'only deposits in this payment status').choices(paymentStatuses));
  addPagingOptions(list)
    .addHelpText(
      'after',
      `
Piped, each deposit is one tab-separated line: invoice, payment status, amount (IDR), method, created and paid (ISO 8601, UTC; - if unpaid).

Examples:
  $ topup deposits list
  $ topup deposits list --status paid --all`,
    )
    .action((flags: PagingFlags & { status?: PaymentStatus }) => runDepositsList(ctx, flags));
}
