import type { TokenMode } from '../contract/index.js';
import { UsageError } from './errors.js';
import type { ProfileSettings } from './settings.js';

/** Where a command's requests go, decided before anything heavy is loaded. */
export type TargetSpec =
  | { kind: 'embedded'; profile: 'sandbox' }
  | {
      kind: 'remote';
      profile: string | undefined;
      baseUrl: string;
      token: string | undefined;
      tokenSource: 'environment' | 'profile' | 'none';
      mode: TokenMode | undefined;
      chatUserId: string | undefined;
    };

export interface TargetInput {
  mock: boolean;
  profileFlag: string | undefined;
  baseUrlFlag: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  currentProfile: string | undefined;
  profile(name: string): ProfileSettings | undefined;
  token(name: string): string | undefined;
}

const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/**
 * Precedence: --mock; then --base-url, TOPUP_BASE_URL, the profile's base URL; with none of them, the embedded sandbox.
 * The token: TOPUP_TOKEN, else the profile's, but only when the request goes to that profile's own server,
 * so a stored token is never sent to a URL typed on the command line.
 */
export function resolveTarget(input: TargetInput): TargetSpec {
  if (input.mock) return { kind: 'embedded', profile: 'sandbox' };
  const env = input.env;
  const name = input.profileFlag ?? (env.TOPUP_PROFILE || undefined) ?? input.currentProfile;
  const profile = name === undefined ? undefined : input.profile(name);
  const explicitUrl = input.baseUrlFlag ?? (env.TOPUP_BASE_URL || undefined);
  if (input.profileFlag !== undefined && profile === undefined && explicitUrl === undefined) {
    throw new UsageError(`No profile is named '${input.profileFlag}'; log in with: topup auth login --profile ${input.profileFlag}`);
  }
  const baseUrl = explicitUrl ?? profile?.base_url;
  if (baseUrl === undefined) return { kind: 'embedded', profile: 'sandbox' };
  const profileServes = profile !== undefined && sameOrigin(profile.base_url, baseUrl);
  const stored = name !== undefined && profileServes ? input.token(name) : undefined;
  const envToken = env.TOPUP_TOKEN || undefined;
  return {
    kind: 'remote',
    profile: profileServes ? name : undefined,
    baseUrl,
    token: envToken ?? stored,
    tokenSource: envToken !== undefined ? 'environment' : stored !== undefined ? 'profile' : 'none',
    mode: profileServes ? profile.mode : undefined,
    chatUserId: profileServes ? profile.chat_user_id : undefined,
  };
}
