import { hintCommand } from '../../hint-command.js';
import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseWholeNumber } from '../shared/choices.js';
import { controlFor } from './control.js';

export async function runDeposit(
  ctx: CliContext,
  amount: number,
  options: { paid: boolean; account?: string; mode?: 'sandbox' | 'production' },
): Promise<void> {
  const { control, token } = await controlFor(ctx);
  // Without --account, the deposit is for the target's own account (its token), else the sandbox's demo account.
  const created = await control.deposit({
    amount,
    paid: options.paid,
    account: options.account,
    token: options.account === undefined ? token : undefined,
    mode: options.mode,
  });
  if (ctx.globals.json) return ctx.io.writeJson(created);
  ctx.io.out(`${created.invoice_code}\n`);
  if (options.paid) ctx.io.success('Deposit created and paid; the balance is credited.');
  else ctx.io.notice(`Deposit created. Pay it with: ${hintCommand(ctx, `mock pay ${created.invoice_code}`)}`);
}

/** `topup mock deposit`. */
export function registerDeposit(mock: Command, ctx: CliContext): void {
  mock
    .command('deposit')
    .argument('<amount>', 'amount in IDR, 10000 to 50000000', parseWholeNumber('amount', 1))
    .description("Create a deposit (a balance top-up) for the token's account (the demo account without one), or --account NAME")
    .option('--paid', 'pay it at once, crediting the balance', false)
    .option('--account <name>', "sandbox account by name (demo, rich, broke, unlinked, dual) instead of the token's")
    .addOption(
      new Option('--mode <mode>', 'for an account with both keys (dual): its test or its live world (default live)').choices([
        'sandbox',
        'production',
      ]),
    )
    .addHelpText(
      'after',
      `
Without --account the deposit goes to the account whose token the command uses (a profile logged in to the
sandbox, or TOPUP_TOKEN), as an order would; with no token (the embedded sandbox), to the demo account.

Examples:
  $ topup mock deposit 50000
  $ topup mock deposit 100000 --paid --account rich
  $ topup mock deposit 20000 --paid --account dual --mode sandbox`,
    )
    .action((amount: number, options: { paid: boolean; account?: string; mode?: 'sandbox' | 'production' }) =>
      runDeposit(ctx, amount, options),
    );
}
