import type { CliContext } from './context.js';
import { sanitizeText } from './io/sanitize.js';

/** A word as a POSIX shell reads it back unchanged. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A topup command for a hint to name (`Next: …`, `Pay it with: …`): `topup`, the options that chose where this run
 * went (--mock, --profile, --base-url), then `rest`. Pasted, it acts where this run did: without them it would act on
 * the default profile's server or the config folder's sandbox, and could pay another sandbox's invoice of the same
 * number. The environment (TOPUP_PROFILE, TOPUP_BASE_URL) is the shell's, and goes on applying there.
 */
export function hintCommand(ctx: Pick<CliContext, 'globals'>, rest: string): string {
  const { mock, profile, baseUrl } = ctx.globals;
  const target = [
    ...(mock ? ['--mock'] : []),
    ...(profile === undefined ? [] : ['--profile', shellWord(profile)]),
    ...(baseUrl === undefined ? [] : ['--base-url', shellWord(baseUrl)]),
  ];
  return sanitizeText(['topup', ...target, rest].join(' '), { multiline: false });
}
