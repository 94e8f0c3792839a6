import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerDepositsList } from './list.js';
import { registerDepositsShow } from './show.js';

/** `topup deposits`: list and show. */
export function registerDepositCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const deposits = program
    .command('deposits')
    .description('List and show deposits (balance top-ups)')
    .addHelpText(
      'after',
      `
Examples:
  $ topup deposits list --status pending
  $ dep=$(topup mock deposit 50000)   # a sandbox deposit
  $ topup deposits show "$dep"`,
    );
  if (scope === 'top') return;

  registerDepositsList(deposits, ctx);
  registerDepositsShow(deposits, ctx);
}
