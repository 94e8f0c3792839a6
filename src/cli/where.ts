/**
 * Where a run's requests go, told so that nobody mistakes one server for another: the summary scripts read
 * (`target` in `auth status --json`, `doctor --json` and the --json error envelopes), the one line a terminal shows
 * when the target is not the current profile's, and the warning when a production token is answered by a test server.
 */
import type { TokenMode } from '../contract/index.js';
import { INSTANCE_HEADER } from '../contract/sandbox-control.js';
import { isLoopbackHost } from '../client/base-url.js';
import { tokenModeOf } from './commands/auth/token-family.js';
import { originOf, type TargetSpec } from './target.js';

/** What is needed here of a resolved target (context.ts's Target, named structurally: the context loads this module). */
export type Target =
  | { kind: 'embedded'; baseUrl: string }
  | { kind: 'remote'; spec: Extract<TargetSpec, { kind: 'remote' }>; baseUrl: string; token: string | undefined };

/** What a script may check of the target: never the token, only its mode. */
export interface TargetSummary {
  /** Scheme, host and port: no credentials, no path. */
  origin: string;
  profile: string | null;
  mode: TokenMode | 'unknown';
}

/** The mode of the token a target sends: its prefix's, else what its profile remembers from login, else unknown. */
export function targetMode(target: Target): TargetSummary['mode'] {
  if (target.kind === 'embedded') return 'sandbox';
  return tokenModeOf(target.token ?? '') ?? target.spec.mode ?? 'unknown';
}

export function targetSummary(target: Target): TargetSummary {
  return {
    origin: originOf(target.baseUrl),
    profile: target.kind === 'remote' ? (target.spec.profile ?? null) : null,
    mode: targetMode(target),
  };
}

/**
 * The line a terminal shows when a flag or variable sends this run elsewhere than the current profile's server
 * ("→ staging (https://…)"); undefined for the current profile's server (nothing to tell) and the embedded sandbox
 * (it has its own notice).
 */
export function elsewhereNotice(target: Target): string | undefined {
  if (target.kind !== 'remote') return undefined;
  const { spec } = target;
  // The current profile's own server is the default target, however it was named (TOPUP_BASE_URL may repeat it).
  if (spec.profile !== undefined && spec.chosenProfile?.from === 'current profile') return undefined;
  const origin = originOf(target.baseUrl);
  return spec.profile === undefined ? `→ ${origin}` : `→ ${spec.profile} (${origin})`;
}

/** A server that is no real shop: it says it is a topup sandbox, or it is on this machine, or it speaks plain http. */
export function looksLikeTestServer(url: string, headers: { get(name: string): string | null }): boolean {
  if (headers.get(INSTANCE_HEADER) !== null) return true;
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.protocol === 'http:' || isLoopbackHost(parsed.hostname);
}

/** The warning for a token that may be a production one answered by a test server; undefined when none is due. */
export function testServerWarning(
  mode: TargetSummary['mode'],
  url: string,
  headers: { get(name: string): string | null },
): string | undefined {
  if (mode === 'sandbox' || !looksLikeTestServer(url, headers)) return undefined;
  const token = mode === 'production' ? 'a production token' : 'a token of unknown mode';
  return `Warning: ${token} answered by a test server at ${originOf(url)} — this is not the real shop.`;
}

/**
 * Tells, through `say`, where this run's answers come from: the elsewhere line and, for a server that is a test one
 * by its URL, the warning, at once (before any progress bar or spinner draws, so no line lands inside one); the
 * warning for a server that says so only by its header comes with its first answer. Returns the fetch to use.
 */
export function tellWhere(
  fetch: typeof globalThis.fetch,
  target: Target,
  say: (text: string, warning: boolean) => void,
): typeof globalThis.fetch {
  const notice = elsewhereNotice(target);
  if (notice !== undefined) say(notice, false);
  // No token goes with this run's requests: nothing of the user's is at stake on a test server.
  if (target.kind === 'remote' && target.token === undefined) return fetch;
  const mode = targetMode(target);
  const byUrl = testServerWarning(mode, target.baseUrl, new Headers());
  if (byUrl !== undefined) say(byUrl, true);
  if (byUrl !== undefined || mode === 'sandbox') return fetch;
  let told = false;
  return async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const answer = await fetch(input, init);
    const warning = told ? undefined : testServerWarning(mode, target.baseUrl, answer.headers);
    if (warning !== undefined) {
      told = true;
      say(warning, true);
    }
    return answer;
  };
}
