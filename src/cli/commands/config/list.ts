import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { noSuchProfile } from '../../settings.js';
import { sanitizeText } from '../../io/sanitize.js';
import { renderFields } from '../../io/table.js';
import { selectedProfileName } from './keys.js';

export async function runList(ctx: CliContext): Promise<void> {
  const settings = ctx.settings();
  const name = selectedProfileName(ctx);
  const profile = name === undefined ? undefined : settings.profile(name);
  if (name !== undefined && profile === undefined && name !== settings.currentProfile()) {
    throw noSuchProfile(name, settings.profileNames());
  }
  const values = {
    profile: settings.currentProfile() ?? null,
    base_url: profile?.base_url ?? null,
    chat_user_id: profile?.chat_user_id ?? null,
    profiles: settings.profileNames(),
    accessible: settings.accessible() ?? null,
  };
  // The values stored; an environment that overrides one in this shell is said beside them on a terminal, and on
  // stderr otherwise (a person reading a piped list may have forgotten it, and stdout stays the stored values).
  const override = accessibleOverride(ctx);
  if (override !== undefined && !ctx.io.terminal) ctx.io.notice(`Note: ${override} in the environment overrides accessible here.`);
  if (ctx.globals.json) return ctx.io.writeJson(values);
  const unset = ctx.io.terminal ? ctx.io.style.dim('(not set)') : '';
  ctx.io.out(
    renderFields(
      [
        ['profile', values.profile ?? (ctx.io.terminal ? ctx.io.style.dim('(none: built-in offline sandbox)') : '')],
        ['base_url', values.base_url ?? unset],
        ['chat_user_id', values.chat_user_id ?? unset],
        ['profiles', values.profiles.join(', ') || unset],
        ['accessible', accessibleShown(ctx, values.accessible, unset, override)],
      ],
      ctx.io.view,
    ),
  );
}

/** `TOPUP_ACCESSIBLE=1` when the environment sets accessible mode for this shell, made safe to show. */
function accessibleOverride(ctx: CliContext): string | undefined {
  const env = ctx.io.env.TOPUP_ACCESSIBLE;
  if (env === undefined || env === '') return undefined;
  return `TOPUP_ACCESSIBLE=${sanitizeText(env, { multiline: false })}`;
}

/** The stored setting; on a terminal also the environment's override. */
function accessibleShown(ctx: CliContext, stored: boolean | null, unset: string, override: string | undefined): string {
  const shown = stored === null ? unset : String(stored);
  if (!ctx.io.terminal || override === undefined) return shown;
  return `${shown} ${ctx.io.style.dim(`(${override} overrides it here)`)}`.trim();
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
