import type { Command } from 'commander';
import type { Balance } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, renderRecord, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { refreshIntervals } from '../shared/choices.js';
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
  const view = await ctx.io.tableView();
  const fetch = () => client.balance.get({ signal: ctx.signal });
  const render = (b: Balance) => renderRecord(balanceFields(b, view), { ...view, title: 'Balance' });
  const seconds = watchInterval(options.watch, refreshIntervals.balance.recommended);
  if (seconds !== undefined) return runWatch(ctx, { seconds, fetch, render });
  const balance = await fetch();
  if (ctx.globals.json) return ctx.io.writeJson(balance);
  ctx.io.out(render(balance));
}

/** `topup balance [--watch]`. */
export function registerBalanceCommand(program: Command, ctx: CliContext): void {
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
}
