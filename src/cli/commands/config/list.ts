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
    time_zone: profile?.time_zone ?? null,
    profiles: settings.profileNames(),
    accessible: settings.accessible() ?? null,
  };
  // The values stored; an environment that overrides one in this shell is said beside them on a terminal, and on
  // stderr otherwise (a person reading a piped list may have forgotten it, and stdout stays the stored values).
  const override = overrideOf(ctx, 'TOPUP_ACCESSIBLE');
  const zoneOverride = overrideOf(ctx, 'TOPUP_SERVER_TIME_ZONE');
  if (!ctx.io.terminal) {
    if (override !== undefined) ctx.io.notice(`Note: ${override} in the environment overrides accessible here.`);
    if (zoneOverride !== undefined && values.time_zone !== null)
      ctx.io.notice(`Note: ${zoneOverride} in the environment overrides time_zone here.`);
  }
  if (ctx.globals.json) return ctx.io.writeJson(values);
  const unset = ctx.io.terminal ? ctx.io.style.dim('(not set)') : '';
  ctx.io.out(
    renderFields(
      [
        ['profile', values.profile ?? (ctx.io.terminal ? ctx.io.style.dim('(none: built-in offline sandbox)') : '')],
        ['base_url', values.base_url ?? unset],
        ['chat_user_id', values.chat_user_id ?? unset],
        ['time_zone', shownWith(ctx, storedText(values.time_zone, unset), zoneOverride)],
        ['profiles', values.profiles.join(', ') || unset],
        ['accessible', shownWith(ctx, values.accessible === null ? unset : String(values.accessible), override)],
      ],
      ctx.io.view,
    ),
  );
}

/** `TOPUP_ACCESSIBLE=1` when the environment sets that variable for this shell, made safe to show. */
function overrideOf(ctx: CliContext, variable: 'TOPUP_ACCESSIBLE' | 'TOPUP_SERVER_TIME_ZONE'): string | undefined {
  const env = ctx.io.env[variable];
  if (env === undefined || env.trim() === '') return undefined;
  return `${variable}=${sanitizeText(env, { multiline: false })}`;
}

/** A stored value that should be a text (config.json is hand-editable), made safe to show. */
function storedText(value: unknown, unset: string): string {
  if (value === null) return unset;
  return typeof value === 'string' ? sanitizeText(value, { multiline: false }) : JSON.stringify(value);
}

/** The stored setting as shown; on a terminal also the environment's override. */
function shownWith(ctx: CliContext, shown: string, override: string | undefined): string {
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
