import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { orDash, timeText } from '../../io/format.js';
import { renderFields } from '../../io/table.js';

export async function runHealth(ctx: CliContext): Promise<void> {
  const health = await (await ctx.client()).health({ signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(health);
  ctx.io.out(
    renderFields(
      [
        ['status', orDash(health.status)],
        ['version', orDash(health.version)],
        ['time', timeText(health.time, ctx.io.view)],
      ],
      ctx.io.view,
    ),
  );
}

/** `topup health`. */
export function registerHealth(program: Command, ctx: CliContext): void {
  program
    .command('health')
    .description('Check that the API answers')
    .addHelpText(
      'after',
      `
Examples:
  $ topup health
  $ topup health --json`,
    )
    .action(() => runHealth(ctx));
}
