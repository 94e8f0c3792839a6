import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { isVisibleWord } from '../../../contract/visible-word.js';
import { CliError, UsageError } from '../../errors.js';
import { CHAT_USER_ID_MAX_LENGTH } from '../../settings.js';
import { configKey, parseSwitch, requireProfile } from './keys.js';
import { parseBaseUrl } from '../../../client/base-url.js';

export async function runSet(ctx: CliContext, rawKey: string, rawValue: string): Promise<void> {
  const key = configKey(rawKey);
  const settings = ctx.settings();
  let stored: string | boolean | null;
  let done: string;
  if (key === 'accessible') {
    const value = parseSwitch(key, rawValue);
    await settings.setAccessible(value);
    stored = value ?? null;
    done =
      value === undefined
        ? 'Cleared accessible: accessible mode is off unless TOPUP_ACCESSIBLE=1.'
        : `Accessible mode is ${value ? 'on' : 'off'} for every profile; TOPUP_ACCESSIBLE=${value ? '0' : '1'} overrides it for one run.`;
  } else if (key === 'profile') {
    await settings.setCurrentProfile(rawValue);
    stored = rawValue;
    done = `Current profile: ${rawValue} (${settings.profile(rawValue)!.base_url}).`;
  } else if (key === 'base_url') {
    const { name, profile } = requireProfile(ctx);
    stored = parseBaseUrl(rawValue).replace(/\/$/, '');
    // The stored token was issued by the old server; sending it to another one would leak it.
    if (new URL(stored).origin !== new URL(profile.base_url).origin && settings.token(name) !== undefined) {
      throw new CliError(
        `Profile '${name}' holds a token for ${new URL(profile.base_url).origin}; to use another server, log in to it: topup auth login --base-url ${stored} --profile ${name}`,
      );
    }
    await settings.updateProfile(name, { base_url: stored });
    done = `Set base_url of profile '${name}' to ${stored}.`;
  } else if (key === 'time_zone') {
    const { name } = requireProfile(ctx);
    const value = rawValue.trim();
    const { canonicalTimeZone } = await import('../../io/time-text.js');
    const zone = value === '' ? undefined : canonicalTimeZone(value);
    if (value !== '' && zone === undefined)
      throw new UsageError(
        `${JSON.stringify(value.slice(0, 60))} is no time zone: name one as Asia/Jakarta or UTC (an empty value clears it).`,
      );
    stored = zone ?? null;
    await settings.updateProfile(name, { time_zone: zone });
    done =
      zone === undefined
        ? `Cleared time_zone of profile '${name}': its server's times without a zone are shown as sent.`
        : `Profile '${name}': times without a zone from its server are read as ${zone} time.`;
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

/** `topup config set KEY VALUE`. */
export function registerConfigSet(config: Command, ctx: CliContext): void {
  config
    .command('set <key> <value>')
    .description('Change one value; profile must name an existing profile, an empty chat_user_id, time_zone or accessible clears it')
    .addHelpText(
      'after',
      `
Examples:
  $ topup config set profile default
  $ topup config set chat_user_id 700000001 --profile bot
  $ topup config set base_url https://shop.example.com/
  $ topup config set time_zone Asia/Jakarta --profile staging
  $ topup config set accessible true`,
    )
    .action((key: string, value: string) => runSet(ctx, key, value));
}
