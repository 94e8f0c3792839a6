import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerInvoicesShow } from './show.js';
import { registerInvoiceStatus } from './status.js';

/** `topup invoices`: show (show.ts) and status (status.ts, which waits with wait.ts). */
export function registerInvoiceCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const invoices = program
    .command('invoices')
    .description('Show invoices (of orders and deposits) and wait for their payment')
    .addHelpText(
      'after',
      `
Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup invoices show "$inv"
  $ topup mock pay "$inv"   # the sandbox pays it
  $ topup invoices status "$inv" --wait`,
    );
  if (scope === 'top') return;

  registerInvoicesShow(invoices, ctx);
  registerInvoiceStatus(invoices, ctx);
}
