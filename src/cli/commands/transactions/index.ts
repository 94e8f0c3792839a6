import { hintCommand } from '../../hint-command.js';
import { Option, type Command } from 'commander';
import type { BalanceTransaction, TransactionList } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, orDash, plainCell, timeText } from '../../io/format.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { listIn } from '../shared/answer.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';

export function transactionColumns(view: View): Column<BalanceTransaction>[] {
  const signed = (t: BalanceTransaction) => {
    const amount = amountText(t.amount, t.formatted_amount, view.terminal, t.currency);
    if (!view.terminal || amount === '-') return amount;
    // An amount the server already signed (a negative number, a text that starts with a sign) keeps its own sign:
    // `+-Rp 500` would read as neither. An unknown type is shown as it is, with no sign that would guess its direction.
    const sign = alreadySigned(t.amount, amount) ? '' : t.type === 'credit' ? '+' : '-';
    return t.type === 'credit'
      ? view.style.green(`${sign}${amount}`)
      : t.type === 'debit'
        ? view.style.red(`${sign}${amount}`)
        : `${amount} (${t.type ?? '?'})`;
  };
  return [
    { header: 'id', value: (t) => t.id },
    { header: 'created', value: (t) => timeText(t.created_at, view), priority: 3 },
    // On a terminal the amount's sign says the type: it is the first to go.
    { header: 'type', value: (t) => t.type, priority: 1 },
    { header: 'amount', value: signed, align: 'right', priority: 6 },
    {
      header: 'balance after',
      value: (t) => amountText(t.balance_after, t.formatted_balance_after, view.terminal, t.currency),
      align: 'right',
      priority: 5,
    },
    { header: 'reference', value: (t) => orDash(t.reference), priority: 2 },
    { header: 'description', value: (t) => plainCell(t.description), free: true, priority: 4 },
  ];
}

/** Whether the server's amount carries a sign of its own: a negative number, or a text shown that starts with one. */
function alreadySigned(raw: unknown, shown: string): boolean {
  return (typeof raw === 'number' && raw < 0) || /^[-+\u2212]/.test(shown);
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
    commandFor: (page) => hintCommand(ctx, ['transactions', ...extra, `--page ${page}`].join(' ')),
  });
}

/** `topup transactions`: the balance's credits and debits, paged. */
export function registerTransactionsCommand(program: Command, ctx: CliContext): void {
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
}
