import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { renderFields } from '../../io/table.js';
import { selectedProfileName } from './keys.js';

export async function runList(ctx: CliContext): Promise<void> {
  const settings = ctx.settings();
  const name = selectedProfileName(ctx);
  const profile = name === undefined ? undefined : settings.profile(name);
  if (name !== undefined && profile === undefined && name !== settings.currentProfile()) {
    throw new CliError(`No profile is named '${name}'; log in with: topup auth login --profile ${name}`);
  }
  const values = {
    profile: settings.currentProfile() ?? null,
    base_url: profile?.base_url ?? null,
    chat_user_id: profile?.chat_user_id ?? null,
    profiles: settings.profileNames(),
  };
  if (ctx.globals.json) return ctx.io.writeJson(values);
  const unset = ctx.io.terminal ? ctx.io.style.dim('(not set)') : '';
  ctx.io.out(
    renderFields(
      [
        ['profile', values.profile ?? (ctx.io.terminal ? ctx.io.style.dim('(none: built-in offline sandbox)') : '')],
        ['base_url', values.base_url ?? unset],
        ['chat_user_id', values.chat_user_id ?? unset],
        ['profiles', values.profiles.join(', ') || unset],
      ],
      ctx.io.view,
    ),
  );
}

/** `topup config list`. */
export function registerConfigList(config: Command, ctx: CliContext): void {
  config
    .command('list')
    .description("Show every key's value and the names of all profiles")
    .addHelpText(
      'after',
      `
Examples:
  $ topup config list
  $ topup config list --json`,
    )
    .action(() => runList(ctx));
}
