import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { isVisibleWord } from '../../../contract/visible-word.js';
import { CliError, UsageError } from '../../errors.js';
import { renderFields } from '../../io/table.js';
import { CHAT_USER_ID_MAX_LENGTH, type ProfileSettings } from '../../settings.js';
import { namedProfile } from '../../target.js';

export const CONFIG_KEYS = ['profile', 'base_url', 'chat_user_id'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** The key, checked; `token` gets its own answer because people will try it. */
export function configKey(key: string): ConfigKey {
  if (key === 'token')
    throw new UsageError('The token is not a config value; store it with `topup auth login` (hidden prompt, or --with-token on stdin).');
  if (!(CONFIG_KEYS as readonly string[]).includes(key))
    throw new UsageError(`Unknown config key '${key}'; valid keys: ${CONFIG_KEYS.join(', ')}.`);
  return key as ConfigKey;
}

/** The profile whose values base_url and chat_user_id are: --profile, then TOPUP_PROFILE, then the current one. */
function selectedProfileName(ctx: CliContext): string | undefined {
  return namedProfile(ctx.globals.profile, ctx.io.env)?.name ?? ctx.settings().currentProfile();
}

function requireProfile(ctx: CliContext): { name: string; profile: ProfileSettings } {
  const name = selectedProfileName(ctx);
  if (name === undefined)
    throw new CliError(
      'No profile is current (commands use the built-in offline sandbox); log in with `topup auth login`, or name a profile with --profile.',
    );
  const profile = ctx.settings().profile(name);
  if (profile === undefined) throw new CliError(`No profile is named '${name}'; log in with: topup auth login --profile ${name}`);
  return { name, profile };
}

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

export async function runSet(ctx: CliContext, rawKey: string, rawValue: string): Promise<void> {
  const key = configKey(rawKey);
  const settings = ctx.settings();
  let stored: string | null;
  let done: string;
  if (key === 'profile') {
    await settings.setCurrentProfile(rawValue);
    stored = rawValue;
    done = `Current profile: ${rawValue} (${settings.profile(rawValue)!.base_url}).`;
  } else if (key === 'base_url') {
    const { name, profile } = requireProfile(ctx);
    const { parseBaseUrl } = await import('../../../client/base-url.js');
    stored = parseBaseUrl(rawValue).replace(/\/$/, '');
    // The stored token was issued by the old server; sending it to another one would leak it.
    if (new URL(stored).origin !== new URL(profile.base_url).origin && settings.token(name) !== undefined) {
      throw new CliError(
        `Profile '${name}' holds a token for ${new URL(profile.base_url).origin}; to use another server, log in to it: topup auth login --base-url ${stored} --profile ${name}`,
      );
    }
    await settings.updateProfile(name, { base_url: stored });
    done = `Set base_url of profile '${name}' to ${stored}.`;
  } else {
    const { name } = requireProfile(ctx);
    const value = rawValue.trim();
    if (value !== '' && !isVisibleWord(value, CHAT_USER_ID_MAX_LENGTH))
      throw new UsageError(`chat_user_id must be 1 to ${CHAT_USER_ID_MAX_LENGTH} visible characters without spaces.`);
    stored = value === '' ? null : value;
    await settings.updateProfile(name, { chat_user_id: stored ?? undefined });
    done = stored === null ? `Cleared chat_user_id of profile '${name}'.` : `Set chat_user_id of profile '${name}' to ${stored}.`;
  }
  if (ctx.globals.json) return ctx.io.writeJson({ [key]: stored });
  ctx.io.success(done);
}

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
      { terminal: ctx.io.terminal, style: ctx.io.style },
    ),
  );
}

export async function runPath(ctx: CliContext): Promise<void> {
  if (ctx.globals.json) return ctx.io.writeJson({ path: ctx.configDir });
  ctx.io.out(`${ctx.configDir}\n`);
}

export function registerConfigCommands(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description("Show and change settings: the current profile, and a profile's base URL and chat user id")
    .addHelpText(
      'after',
      `
Keys: profile (the current profile), base_url and chat_user_id (of the current profile, or --profile NAME).
Tokens are not config values: use \`topup auth login\`. TOPUP_CONFIG_DIR moves the folder.

Examples:
  $ topup config list
  $ topup config set profile staging
  $ topup config set chat_user_id 700000001
  $ topup config get base_url --profile staging`,
    );

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

  config
    .command('set <key> <value>')
    .description('Change one value; profile must name an existing profile, an empty chat_user_id clears it')
    .addHelpText(
      'after',
      `
Examples:
  $ topup config set profile default
  $ topup config set chat_user_id 700000001 --profile bot
  $ topup config set base_url https://shop.example.com/`,
    )
    .action((key: string, value: string) => runSet(ctx, key, value));

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
