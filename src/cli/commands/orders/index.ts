import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerOrdersList } from './list.js';
import { registerOrdersShow } from './show.js';

/**
 * Creates the `orders` group with `list` and `show`, and returns it:
 * `orders create` (create.ts) attaches to the same command.
 */
export function registerOrderCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): Command {
  const orders = program
    .command('orders')
    .description('List, show and create orders')
    .addHelpText(
      'after',
      `
Examples:
  $ topup orders list --status pending
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup orders show "$inv"`,
    );
  if (scope === 'top') return orders;

  registerOrdersList(orders, ctx);
  registerOrdersShow(orders, ctx);
  return orders;
}
