import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { noSuchProfile, type ProfileSettings } from '../../settings.js';
import { namedProfile } from '../../target.js';
import { switchWord } from '../../io/switch-word.js';

export const CONFIG_KEYS = ['profile', 'base_url', 'chat_user_id', 'time_zone', 'accessible'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** A value for `accessible`: true, false, or undefined to clear it. */
export function parseSwitch(key: string, raw: string): boolean | undefined {
  if (raw.trim() === '') return undefined;
  const value = switchWord(raw);
  if (value !== undefined) return value;
  throw new UsageError(`${key} must be true or false (or on/off, yes/no, 1/0); an empty value clears it.`);
}

/** The key, checked; `token` gets its own answer because people will try it. */
export function configKey(key: string): ConfigKey {
  if (key === 'token')
    throw new UsageError('The token is not a config value; store it with `topup auth login` (hidden prompt, or --with-token on stdin).');
  if (!(CONFIG_KEYS as readonly string[]).includes(key))
    throw new UsageError(`Unknown config key '${key}'; valid keys: ${CONFIG_KEYS.join(', ')}.`);
  return key as ConfigKey;
}

/** The profile whose values base_url and chat_user_id are: --profile, then TOPUP_PROFILE, then the current one. */
export function selectedProfileName(ctx: CliContext): string | undefined {
  return namedProfile(ctx.globals.profile, ctx.io.env)?.name ?? ctx.settings().currentProfile();
}

export function requireProfile(ctx: CliContext): { name: string; profile: ProfileSettings } {
  const name = selectedProfileName(ctx);
  if (name === undefined)
    throw new CliError(
      'No profile is current (commands use the built-in offline sandbox); log in with `topup auth login`, or name a profile with --profile.',
    );
  const profile = ctx.settings().profile(name);
  if (profile === undefined) throw noSuchProfile(name, ctx.settings().profileNames());
  return { name, profile };
}
