import type { Command } from 'commander';
import type { CliContext } from '../../context.js';

export async function runPath(ctx: CliContext): Promise<void> {
  if (ctx.globals.json) return ctx.io.writeJson({ path: ctx.configDir });
  ctx.io.out(`${ctx.configDir}\n`);
}

/** `topup config path`. */
export function registerConfigPath(config: Command, ctx: CliContext): void {
  config
    .command('path')
    .description("Print the folder that holds config.json, credentials.json and the offline sandbox's state")
    .addHelpText(
      'after',
      `
Examples:
  $ topup config path
  $ topup config path --json`,
    )
    .action(() => runPath(ctx));
}
