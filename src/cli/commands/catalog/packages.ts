import type { Command } from 'commander';
import type { CreditPackage } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { listIn } from '../shared/answer.js';
import { showWholeList } from '../shared/whole-list.js';
import { amountText, creditText } from '../../io/format.js';

export async function runPackages(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.creditPackages({ signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  await showWholeList<CreditPackage>(
    ctx,
    listIn(data, 'packages'),
    [
      { header: 'code', value: (p) => p.code },
      { header: 'name', value: (p) => p.name, free: true, priority: 1 },
      { header: 'credits', value: (p) => creditText(p.credit_amount, ctx.io.terminal, p.currency), align: 'right', priority: 2 },
      { header: 'price', value: (p) => amountText(p.price, p.formatted_price, ctx.io.terminal, p.currency), align: 'right', priority: 3 },
    ],
    'active credit packages',
  );
}

/** `topup packages`. */
export function registerPackages(program: Command, ctx: CliContext): void {
  program
    .command('packages')
    .description('List the active credit packages')
    .addHelpText(
      'after',
      `
Examples:
  $ topup packages
  $ topup packages --json | jq ".packages[].code"`,
    )
    .action(() => runPackages(ctx));
}
