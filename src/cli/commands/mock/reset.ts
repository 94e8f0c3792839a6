import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { controlFor } from './control.js';

export async function runReset(ctx: CliContext): Promise<void> {
  await (await controlFor(ctx)).control.reset();
  if (ctx.globals.json) return ctx.io.writeJson({ reset: true });
  ctx.io.success('Sandbox reset to its seed.');
}

/** `topup mock reset`. */
export function registerReset(mock: Command, ctx: CliContext): void {
  mock
    .command('reset')
    .description('Reset the sandbox to its seed (orders, balances, deposits)')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock reset`,
    )
    .action(() => runReset(ctx));
}
