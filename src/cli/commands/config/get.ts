import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { CONFIG_KEYS, configKey, requireProfile, selectedProfileName, type ConfigKey } from './keys.js';

function valueOf(ctx: CliContext, key: ConfigKey): string | boolean | undefined {
  if (key === 'profile') return ctx.settings().currentProfile();
  if (key === 'accessible') return ctx.settings().accessible();
  return requireProfile(ctx).profile[key];
}

function notSet(ctx: CliContext, key: ConfigKey): string {
  if (key === 'profile') return 'No profile is current; commands use the built-in offline sandbox.';
  if (key === 'accessible') return 'accessible is not set: accessible mode is off unless TOPUP_ACCESSIBLE=1 is in the environment.';
  return `${key} is not set for profile '${selectedProfileName(ctx)}'.`;
}

export async function runGet(ctx: CliContext, rawKey: string): Promise<void> {
  const key = configKey(rawKey);
  const value = valueOf(ctx, key);
  if (value === undefined) throw new CliError(notSet(ctx, key));
  if (ctx.globals.json) return ctx.io.writeJson({ [key]: value });
  ctx.io.out(`${String(value)}\n`);
}

/** `topup config get KEY`. */
export function registerConfigGet(config: Command, ctx: CliContext): void {
  config
    .command('get <key>')
    .description(`Print one value (${CONFIG_KEYS.join(', ')}); exits 1 when it is not set`)
    .addHelpText(
      'after',
      `
Examples:
  $ topup config get profile
  $ url=$(topup config get base_url)`,
    )
    .action((key: string) => runGet(ctx, key));
}
