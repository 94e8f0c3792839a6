import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { CONFIG_KEYS, configKey, requireProfile, selectedProfileName, type ConfigKey } from './keys.js';

function valueOf(ctx: CliContext, key: ConfigKey): string | undefined {
  if (key === 'profile') return ctx.settings().currentProfile();
  return requireProfile(ctx).profile[key];
}

export async function runGet(ctx: CliContext, rawKey: string): Promise<void> {
  const key = configKey(rawKey);
  const value = valueOf(ctx, key);
  if (value === undefined) {
    throw new CliError(
      key === 'profile'
        ? 'No profile is current; commands use the built-in offline sandbox.'
        : `${key} is not set for profile '${selectedProfileName(ctx)}'.`,
    );
  }
  if (ctx.globals.json) return ctx.io.writeJson({ [key]: value });
  ctx.io.out(`${value}\n`);
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
