import type { TokenMode } from '../contract/index.js';
import { UsageError } from './errors.js';
import { listedProfiles, noSuchProfile, type ProfileSettings } from './settings.js';

/** What chose the server: shown by `topup doctor` and in messages that must say why a request went where it went. */
export type ServerSource = '--mock' | '--base-url' | 'TOPUP_BASE_URL' | 'profile' | 'nothing configured';
/** What chose the profile, when one was chosen. */
export type ProfileSource = '--profile' | 'TOPUP_PROFILE' | 'current profile';

/** Where a command's requests go, decided before anything heavy is loaded. */
export type TargetSpec =
  | {
      kind: 'embedded';
      profile: 'sandbox';
      source: '--mock' | 'nothing configured';
      /** --mock with TOPUP_TOKEN set: the variable is not used, and the notice says so. */
      ignoredEnvToken: boolean;
    }
  | {
      kind: 'remote';
      profile: string | undefined;
      baseUrl: string;
      token: string | undefined;
      tokenSource: 'environment' | 'profile' | 'none';
      mode: TokenMode | undefined;
      chatUserId: string | undefined;
      /** The zone of the server's times that name none, as the profile serving `baseUrl` stores it (not checked). */
      serverTimeZone: unknown;
      source: '--base-url' | 'TOPUP_BASE_URL' | 'profile';
      /** The profile that was chosen (by flag, variable or as the current one), whether or not it serves `baseUrl`. */
      chosenProfile: { name: string; from: ProfileSource; baseUrl: string } | undefined;
      /** The chosen profile's stored token exists but is not sent, because `baseUrl` is another server than the profile's. */
      tokenWithheld: boolean;
    };

export interface TargetInput {
  mock: boolean;
  profileFlag: string | undefined;
  baseUrlFlag: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  currentProfile: string | undefined;
  profileNames(): readonly string[];
  profile(name: string): ProfileSettings | undefined;
  token(name: string): string | undefined;
}

export const ENV_TOKEN_WITHOUT_SERVER =
  'TOPUP_TOKEN is set but no server is: set TOPUP_BASE_URL, log in with `topup auth login`, or pass --mock.';

/** A URL's origin, or the text itself when it is no URL (messages name where a request went, never its path). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

const sameOrigin = (a: string, b: string) => URL.canParse(a) && URL.canParse(b) && originOf(a) === originOf(b);

/**
 * The profile a run names: --profile, then TOPUP_PROFILE (an empty variable names none). Undefined when neither
 * does; each caller says what stands in then (the current profile, or `auth login`'s default name).
 */
export function namedProfile(
  profileFlag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { name: string; from: Exclude<ProfileSource, 'current profile'> } | undefined {
  if (profileFlag !== undefined) return { name: profileFlag, from: '--profile' };
  const envName = env.TOPUP_PROFILE || undefined;
  return envName === undefined ? undefined : { name: envName, from: 'TOPUP_PROFILE' };
}

/** The profile the run names, and what named it; an unknown name is a usage error, never a silent fallback. */
function chooseProfile(input: TargetInput): { name: string; from: ProfileSource; settings: ProfileSettings } | undefined {
  const named = namedProfile(input.profileFlag, input.env);
  const { name, from }: { name: string | undefined; from: ProfileSource } = named ?? {
    name: input.currentProfile,
    from: 'current profile',
  };
  if (name === undefined) return undefined;
  const settings = input.profile(name);
  if (settings !== undefined) return { name, from, settings };
  const known = input.profileNames();
  if (from === 'current profile') {
    throw new UsageError(
      `The current profile '${name}' does not exist (${listedProfiles(known)}); pick one with \`topup config set profile NAME\`, or log in with \`topup auth login\`.`,
    );
  }
  throw noSuchProfile(name, known, from);
}

/**
 * The one rule for where requests go (docs/scripting.md, "Where commands send requests"):
 * 1. --mock: the embedded sandbox, whatever else is set (TOPUP_TOKEN is then ignored).
 * 2. A profile named by --profile, TOPUP_PROFILE or as the current one must exist.
 * 3. The server: --base-url, then --profile's, then TOPUP_BASE_URL, then the profile of TOPUP_PROFILE or the current one.
 * 4. No server: the embedded sandbox only when nothing at all is configured; TOPUP_TOKEN or a profile that exists
 *    but is not current mean the user meant a real server, which is a usage error, never fake data.
 * 5. The embedded sandbox is the config folder's own: while `topup mock serve` serves that state (it announced
 *    itself beside it, its process runs and its URL answers as the announced instance), it answers there, over
 *    HTTP; else in this process, from the same state (context.ts, sandboxHome). Only this changes where the embedded
 *    target answers: --mock, --base-url, TOPUP_BASE_URL and profiles are decided above, as they always are.
 * The token: TOPUP_TOKEN, else the profile's, but only when the request goes to that profile's own server,
 * so a stored token is never sent to a URL typed on the command line.
 */
export function resolveTarget(input: TargetInput): TargetSpec {
  const envToken = input.env.TOPUP_TOKEN || undefined;
  if (input.mock) return { kind: 'embedded', profile: 'sandbox', source: '--mock', ignoredEnvToken: envToken !== undefined };
  const chosen = chooseProfile(input);
  const envUrl = input.env.TOPUP_BASE_URL || undefined;
  // Flags beat variables, which beat the stored configuration: --profile wins over TOPUP_BASE_URL.
  const [baseUrl, source]: [string | undefined, ServerSource] =
    input.baseUrlFlag !== undefined
      ? [input.baseUrlFlag, '--base-url']
      : chosen?.from === '--profile'
        ? [chosen.settings.base_url, 'profile']
        : envUrl !== undefined
          ? [envUrl, 'TOPUP_BASE_URL']
          : [chosen?.settings.base_url, 'profile'];
  if (baseUrl === undefined) {
    if (envToken !== undefined) throw new UsageError(ENV_TOKEN_WITHOUT_SERVER);
    const known = input.profileNames();
    if (known.length > 0) {
      throw new UsageError(
        `No profile is current (${listedProfiles(known)}): pick one with \`topup config set profile NAME\` or --profile, or pass --mock for the embedded sandbox.`,
      );
    }
    return { kind: 'embedded', profile: 'sandbox', source: 'nothing configured', ignoredEnvToken: false };
  }
  const profileServes = chosen !== undefined && sameOrigin(chosen.settings.base_url, baseUrl);
  const storedToken = chosen === undefined ? undefined : input.token(chosen.name);
  const stored = profileServes ? storedToken : undefined;
  return {
    kind: 'remote',
    profile: profileServes ? chosen.name : undefined,
    baseUrl,
    token: envToken ?? stored,
    tokenSource: envToken !== undefined ? 'environment' : stored !== undefined ? 'profile' : 'none',
    mode: profileServes ? chosen.settings.mode : undefined,
    chatUserId: profileServes ? chosen.settings.chat_user_id : undefined,
    serverTimeZone: profileServes ? chosen.settings.time_zone : undefined,
    source: source === 'profile' ? 'profile' : source === '--base-url' ? '--base-url' : 'TOPUP_BASE_URL',
    chosenProfile: chosen === undefined ? undefined : { name: chosen.name, from: chosen.from, baseUrl: chosen.settings.base_url },
    tokenWithheld: envToken === undefined && !profileServes && storedToken !== undefined,
  };
}

/**
 * One line on where the requests of this run go and why: `topup doctor`, `auth status`, and messages. `servedAt`: the
 * URL of `topup mock serve` when it serves the embedded target (rule 5).
 */
export function describeTarget(spec: TargetSpec, servedAt?: string): string {
  if (spec.kind === 'embedded') {
    const why = spec.source === '--mock' ? '--mock' : 'nothing is configured';
    return servedAt === undefined ? `the embedded sandbox (${why})` : `the sandbox served at ${servedAt} by topup mock serve (${why})`;
  }
  const by = spec.source === 'profile' ? `profile ${spec.chosenProfile!.name} (${spec.chosenProfile!.from})` : spec.source;
  return `${spec.baseUrl} (from ${by})`;
}
