import { Option, type Command } from 'commander';
import type { Balance, BalanceTransaction, Deposit, DepositList, PaymentStatus, TransactionList } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, orDash, plainCell, renderRecord, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { parseInvoiceCode, paymentStatuses, refreshIntervals } from '../shared/choices.js';
import { listIn, recordIn } from '../shared/answer.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';
import { parseWatchSeconds, runWatch, watchInterval } from '../shared/watch.js';

export function balanceFields(balance: Balance, view: View): RecordField[] {
  return [
    {
      key: 'balance',
      label: 'balance',
      plain: amountText(balance.balance, balance.formatted_balance, view.terminal, balance.currency),
      pretty: view.style.bold(amountText(balance.balance, balance.formatted_balance, true, balance.currency)),
    },
    { key: 'currency', label: 'currency', plain: balance.currency },
    { key: 'updated_at', label: 'updated', plain: timeText(balance.updated_at, view) },
  ];
}

export async function runBalance(ctx: CliContext, options: { watch?: number | boolean }): Promise<void> {
  const client = await ctx.client();
  const view = ctx.io.view;
  const fetch = () => client.balance.get({ signal: ctx.signal });
  const render = (b: Balance) => renderRecord(balanceFields(b, view), { ...view, title: 'Balance' });
  const seconds = watchInterval(options.watch, refreshIntervals.balance.recommended);
  if (seconds !== undefined) return runWatch(ctx, { seconds, fetch, render });
  const balance = await fetch();
  if (ctx.globals.json) return ctx.io.writeJson(balance);
  ctx.io.out(render(balance));
}

export function transactionColumns(view: View): Column<BalanceTransaction>[] {
  const signed = (t: BalanceTransaction) => {
    const amount = amountText(t.amount, t.formatted_amount, view.terminal, t.currency);
    if (!view.terminal || amount === '-') return amount;
    // An unknown type is shown as it is, with no sign that would guess its direction.
    return t.type === 'credit'
      ? view.style.green(`+${amount}`)
      : t.type === 'debit'
        ? view.style.red(`-${amount}`)
        : `${amount} (${t.type ?? '?'})`;
  };
  return [
    { header: 'id', value: (t) => t.id },
    { header: 'created', value: (t) => timeText(t.created_at, view) },
    { header: 'type', value: (t) => t.type },
    { header: 'amount', value: signed, align: 'right' },
    {
      header: 'balance after',
      value: (t) => amountText(t.balance_after, t.formatted_balance_after, view.terminal, t.currency),
      align: 'right',
    },
    { header: 'reference', value: (t) => orDash(t.reference) },
    { header: 'description', value: (t) => plainCell(t.description), free: true },
  ];
}

export async function runTransactions(ctx: CliContext, flags: PagingFlags & { type?: 'credit' | 'debit' | undefined }): Promise<void> {
  const client = await ctx.client();
  const extra = [flags.type && `--type ${flags.type}`, flags.perPage && `--per-page ${flags.perPage}`].filter(Boolean);
  await runList<TransactionList, BalanceTransaction>(ctx, flags, {
    noun: 'transactions',
    key: 'transactions',
    columns: transactionColumns(ctx.io.view),
    fetch: (query) => client.balance.transactions({ ...(flags.type ? { type: flags.type } : {}), ...query }, { signal: ctx.signal }),
    itemsOf: (page) => listIn(page, 'transactions'),
    commandFor: (page) => ['topup transactions', ...extra, `--page ${page}`].join(' '),
  });
}

export function depositColumns(view: View): Column<Deposit>[] {
  return [
    { header: 'invoice', value: (d) => d.invoice_code },
    { header: 'status', value: (d) => statusText(d.payment_status, view.style) },
    { header: 'amount', value: (d) => amountText(d.amount, d.formatted_amount, view.terminal, d.currency), align: 'right' },
    { header: 'method', value: (d) => d.payment_method },
    { header: 'created', value: (d) => timeText(d.created_at, view) },
    { header: 'paid', value: (d) => timeText(d.paid_at, view) },
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
    commandFor: (page) => ['topup deposits list', ...extra, `--page ${page}`].join(' '),
  });
}

export function depositFields(deposit: Deposit, view: View): RecordField[] {
  return [
    { key: 'invoice_code', label: 'invoice', plain: deposit.invoice_code },
    { key: 'payment_status', label: 'status', plain: deposit.payment_status, pretty: statusText(deposit.payment_status, view.style) },
    {
      key: 'amount',
      label: 'amount',
      plain: amountText(deposit.amount, deposit.formatted_amount, view.terminal, deposit.currency),
      pretty: view.style.bold(amountText(deposit.amount, deposit.formatted_amount, true, deposit.currency)),
    },
    { key: 'currency', label: 'currency', plain: deposit.currency },
    { key: 'payment_method', label: 'method', plain: deposit.payment_method },
    { key: 'invoice_url', label: 'invoice url', plain: deposit.invoice_url },
    { key: 'created_at', label: 'created', plain: timeText(deposit.created_at, view) },
    { key: 'expires_at', label: 'expires', plain: timeText(deposit.expires_at, view) },
    { key: 'paid_at', label: 'paid', plain: timeText(deposit.paid_at, view) },
  ];
}

export async function runDepositsShow(ctx: CliContext, invoiceCode: string): Promise<void> {
  const data = await (await ctx.client()).deposits.get(invoiceCode, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = ctx.io.view;
  const deposit = recordIn<Deposit>(data, 'deposit');
  ctx.io.out(renderRecord(depositFields(deposit, view), { ...view, title: `Deposit ${deposit.invoice_code ?? invoiceCode}` }));
}

export function registerBalanceCommands(program: Command, ctx: CliContext): void {
  const { min, recommended } = refreshIntervals.balance;
  program
    .command('balance')
    .description('Show the account balance')
    .option(
      '--watch [seconds]',
      `refresh until Ctrl-C, every ${recommended} s or the given seconds (at least ${min})`,
      parseWatchSeconds('balance', min),
    )
    .addHelpText(
      'after',
      `
Piped, prints \`balance: <IDR>\`, \`currency:\` and \`updated_at:\` lines.

Examples:
  $ topup balance
  $ topup balance --watch 60
  $ topup balance --json | jq .balance`,
    )
    .action((options: { watch?: number | boolean }) => runBalance(ctx, options));

  const transactions = program
    .command('transactions')
    .description('List balance transactions (credits and debits), newest first')
    .addOption(new Option('--type <type>', 'only credits or only debits').choices(['credit', 'debit']));
  addPagingOptions(transactions)
    .addHelpText(
      'after',
      `
Piped, each transaction is one tab-separated line: id, created (ISO 8601, UTC), type, amount (IDR), balance after,
reference, description. With --all on a terminal, a progress line on stderr counts the pages.

Examples:
  $ topup transactions
  $ topup transactions --all | wc -l
  $ topup transactions --page 2 --per-page 50
  $ topup transactions --all --json | jq '[.transactions[] | select(.type == "credit") | .amount] | add'`,
    )
    .action((flags: PagingFlags & { type?: 'credit' | 'debit' }) => runTransactions(ctx, flags));

  const deposits = program
    .command('deposits')
    .description('List and show deposits (balance top-ups)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup deposits list --status pending\n  $ dep=$(topup mock deposit 50000)   # a sandbox deposit\n  $ topup deposits show "$dep"',
    );

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

  deposits
    .command('show')
    .argument('<invoice>', "the deposit's invoice code", parseInvoiceCode)
    .description('Show one deposit')
    .addHelpText(
      'after',
      '\nExamples:\n  $ dep=$(topup mock deposit 50000)   # a sandbox deposit\n  $ topup deposits show "$dep"\n  $ topup deposits show "$dep" --json',
    )
    .action((invoice: string) => runDepositsShow(ctx, invoice));
}
