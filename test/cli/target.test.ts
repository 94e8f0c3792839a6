import { describe, expect, it } from 'vitest';
import type { ProfileSettings } from '../../src/cli/settings.js';
import { describeTarget, ENV_TOKEN_WITHOUT_SERVER, resolveTarget, type TargetInput, type TargetSpec } from '../../src/cli/target.js';

const profiles: Record<string, ProfileSettings> = {
  default: {
    base_url: 'https://shop.example.com',
    mode: 'production',
    username: 'rich',
    chat_user_id: '700000001',
    time_zone: 'Asia/Jakarta',
  },
  staging: { base_url: 'http://127.0.0.1:4010', mode: 'sandbox', username: 'demo' },
};
const tokens: Record<string, string> = { default: 'topup_live_stored_default', staging: 'topup_test_stored_staging' };

function input(change: Partial<TargetInput> & { env?: Record<string, string> } = {}): TargetInput {
  return {
    mock: false,
    profileFlag: undefined,
    baseUrlFlag: undefined,
    currentProfile: undefined,
    profileNames: () => Object.keys(profiles).sort(),
    profile: (name) => profiles[name],
    token: (name) => tokens[name],
    ...change,
    env: change.env ?? {},
  };
}
/** A machine where nobody has logged in yet. */
const fresh = (change: Partial<TargetInput> & { env?: Record<string, string> } = {}) =>
  input({ profileNames: () => [], profile: () => undefined, token: () => undefined, ...change });

const embedded: TargetSpec = { kind: 'embedded', profile: 'sandbox', source: 'nothing configured', ignoredEnvToken: false };
const mocked = (ignoredEnvToken: boolean): TargetSpec => ({ kind: 'embedded', profile: 'sandbox', source: '--mock', ignoredEnvToken });
const chosen = (name: 'default' | 'staging', from: string) => ({ name, from, baseUrl: profiles[name]!.base_url });
const viaDefault = (from = 'current profile'): TargetSpec => ({
  kind: 'remote',
  profile: 'default',
  baseUrl: 'https://shop.example.com',
  token: 'topup_live_stored_default',
  tokenSource: 'profile',
  mode: 'production',
  chatUserId: '700000001',
  serverTimeZone: 'Asia/Jakarta',
  source: 'profile',
  chosenProfile: chosen('default', from) as never,
  tokenWithheld: false,
});
const viaStaging = (from = 'current profile'): TargetSpec => ({
  kind: 'remote',
  profile: 'staging',
  baseUrl: 'http://127.0.0.1:4010',
  token: 'topup_test_stored_staging',
  tokenSource: 'profile',
  mode: 'sandbox',
  chatUserId: undefined,
  serverTimeZone: undefined,
  source: 'profile',
  chosenProfile: chosen('staging', from) as never,
  tokenWithheld: false,
});
const bare = (
  baseUrl: string,
  source: '--base-url' | 'TOPUP_BASE_URL',
  token?: string,
  profile?: { name: 'default' | 'staging'; from: string; withheld: boolean },
): TargetSpec => ({
  kind: 'remote',
  profile: undefined,
  baseUrl,
  token,
  tokenSource: token === undefined ? 'none' : 'environment',
  mode: undefined,
  chatUserId: undefined,
  serverTimeZone: undefined,
  source,
  chosenProfile: profile === undefined ? undefined : (chosen(profile.name, profile.from) as never),
  tokenWithheld: profile?.withheld ?? false,
});

describe('the target rule: every row', () => {
  it.each<[string, TargetInput, TargetSpec]>([
    ['nothing configured: the embedded sandbox', fresh(), embedded],
    [
      '--mock wins over everything',
      input({ mock: true, currentProfile: 'default', baseUrlFlag: 'https://x.example', env: { TOPUP_BASE_URL: 'https://y.example' } }),
      mocked(false),
    ],
    ['--mock ignores TOPUP_TOKEN, and says so', fresh({ mock: true, env: { TOPUP_TOKEN: 'topup_live_x' } }), mocked(true)],
    ['--mock ignores an unknown --profile', input({ mock: true, profileFlag: 'ghost' }), mocked(false)],
    ['the current profile: its URL, token, mode and chat id', input({ currentProfile: 'default' }), viaDefault()],
    ['--profile beats the current profile', input({ currentProfile: 'default', profileFlag: 'staging' }), viaStaging('--profile')],
    [
      'TOPUP_PROFILE beats the current profile',
      input({ currentProfile: 'default', env: { TOPUP_PROFILE: 'staging' } }),
      viaStaging('TOPUP_PROFILE'),
    ],
    ['--profile beats TOPUP_PROFILE', input({ profileFlag: 'default', env: { TOPUP_PROFILE: 'staging' } }), viaDefault('--profile')],
    [
      '--profile beats TOPUP_BASE_URL (a flag beats a variable)',
      input({ profileFlag: 'staging', env: { TOPUP_BASE_URL: 'http://127.0.0.1:2' } }),
      viaStaging('--profile'),
    ],
    [
      'TOPUP_TOKEN beats the stored token',
      input({ currentProfile: 'default', env: { TOPUP_TOKEN: 'topup_live_from_env' } }),
      { ...viaDefault(), token: 'topup_live_from_env', tokenSource: 'environment' } as TargetSpec,
    ],
    ['an empty TOPUP_TOKEN is ignored', input({ currentProfile: 'default', env: { TOPUP_TOKEN: '' } }), viaDefault()],
    [
      "--base-url to the profile's own origin keeps the stored token",
      input({ currentProfile: 'default', baseUrlFlag: 'https://shop.example.com/' }),
      { ...viaDefault(), baseUrl: 'https://shop.example.com/', source: '--base-url' } as TargetSpec,
    ],
    [
      '--base-url to another server never gets the stored token, and says it was withheld',
      input({ currentProfile: 'default', baseUrlFlag: 'https://evil.example' }),
      bare('https://evil.example', '--base-url', undefined, { name: 'default', from: 'current profile', withheld: true }),
    ],
    [
      '--base-url to another server with TOPUP_TOKEN sends that',
      input({ currentProfile: 'default', baseUrlFlag: 'https://other.example', env: { TOPUP_TOKEN: 'topup_live_env' } }),
      bare('https://other.example', '--base-url', 'topup_live_env', { name: 'default', from: 'current profile', withheld: false }),
    ],
    [
      'TOPUP_BASE_URL with no profile',
      fresh({ env: { TOPUP_BASE_URL: 'http://127.0.0.1:9999', TOPUP_TOKEN: 'topup_test_env' } }),
      bare('http://127.0.0.1:9999', 'TOPUP_BASE_URL', 'topup_test_env'),
    ],
    [
      '--base-url beats TOPUP_BASE_URL',
      fresh({ baseUrlFlag: 'http://127.0.0.1:1', env: { TOPUP_BASE_URL: 'http://127.0.0.1:2' } }),
      bare('http://127.0.0.1:1', '--base-url'),
    ],
    [
      "TOPUP_BASE_URL beats the current profile's URL, and its token stays home",
      input({ currentProfile: 'default', env: { TOPUP_BASE_URL: 'http://127.0.0.1:2' } }),
      bare('http://127.0.0.1:2', 'TOPUP_BASE_URL', undefined, { name: 'default', from: 'current profile', withheld: true }),
    ],
    [
      "TOPUP_BASE_URL beats TOPUP_PROFILE's URL",
      input({ env: { TOPUP_PROFILE: 'staging', TOPUP_BASE_URL: 'http://127.0.0.1:2' } }),
      bare('http://127.0.0.1:2', 'TOPUP_BASE_URL', undefined, { name: 'staging', from: 'TOPUP_PROFILE', withheld: true }),
    ],
    ['an empty TOPUP_BASE_URL is ignored', input({ currentProfile: 'staging', env: { TOPUP_BASE_URL: '' } }), viaStaging()],
    ['an empty TOPUP_PROFILE is ignored', input({ currentProfile: 'staging', env: { TOPUP_PROFILE: '' } }), viaStaging()],
    [
      'a --base-url that is not a URL shares no origin, so no stored token',
      input({ currentProfile: 'default', baseUrlFlag: 'not a url' }),
      bare('not a url', '--base-url', undefined, { name: 'default', from: 'current profile', withheld: true }),
    ],
  ])('%s', (_name, given, expected) => {
    expect(resolveTarget(given)).toEqual(expected);
  });

  it.each<[string, TargetInput, string]>([
    [
      'an unknown --profile',
      input({ profileFlag: 'ghost' }),
      "No profile is named 'ghost' (from --profile; profiles: default, staging); log in with `topup auth login --profile ghost`.",
    ],
    [
      'an unknown --profile, even with a --base-url',
      input({ profileFlag: 'ghost', baseUrlFlag: 'http://127.0.0.1:3' }),
      "No profile is named 'ghost' (from --profile; profiles: default, staging); log in with `topup auth login --profile ghost`.",
    ],
    [
      'an unknown TOPUP_PROFILE (a misspelt variable never falls back to fake data)',
      input({ env: { TOPUP_PROFILE: 'stagign' } }),
      "No profile is named 'stagign' (from TOPUP_PROFILE; profiles: default, staging); log in with `topup auth login --profile stagign`.",
    ],
    [
      'an unknown TOPUP_PROFILE on a fresh machine',
      fresh({ env: { TOPUP_PROFILE: 'prod' } }),
      "No profile is named 'prod' (from TOPUP_PROFILE; there are no profiles yet); log in with `topup auth login --profile prod`.",
    ],
    [
      'a current profile that no longer exists',
      input({ currentProfile: 'gone' }),
      "The current profile 'gone' does not exist (profiles: default, staging); pick one with `topup config set profile NAME`, or log in with `topup auth login`.",
    ],
    ['TOPUP_TOKEN without any server', fresh({ env: { TOPUP_TOKEN: 'topup_live_secret' } }), ENV_TOKEN_WITHOUT_SERVER],
    ['TOPUP_TOKEN with profiles but none current', input({ env: { TOPUP_TOKEN: 'topup_live_secret' } }), ENV_TOKEN_WITHOUT_SERVER],
    [
      'profiles exist but none is current',
      input(),
      'No profile is current (profiles: default, staging): pick one with `topup config set profile NAME` or --profile, or pass --mock for the embedded sandbox.',
    ],
  ])('%s is a usage error that says what to do', (_name, given, message) => {
    expect(() => resolveTarget(given)).toThrow(expect.objectContaining({ name: 'UsageError', message }));
  });

  it('the usage error for TOPUP_TOKEN never contains the token', () => {
    expect(() => resolveTarget(fresh({ env: { TOPUP_TOKEN: 'topup_live_secret' } }))).toThrow(
      expect.not.objectContaining({ message: expect.stringContaining('secret') }),
    );
  });

  it("a profile without a stored token resolves with no token rather than another profile's", () => {
    const spec = resolveTarget(input({ currentProfile: 'default', token: () => undefined }));
    expect(spec).toEqual({ ...viaDefault(), token: undefined, tokenSource: 'none' });
  });

  it.each<[TargetInput, string]>([
    [fresh(), 'the embedded sandbox (nothing is configured)'],
    [fresh({ mock: true }), 'the embedded sandbox (--mock)'],
    [input({ currentProfile: 'default' }), 'https://shop.example.com (from profile default (current profile))'],
    [input({ profileFlag: 'staging' }), 'http://127.0.0.1:4010 (from profile staging (--profile))'],
    [fresh({ env: { TOPUP_BASE_URL: 'http://127.0.0.1:9' } }), 'http://127.0.0.1:9 (from TOPUP_BASE_URL)'],
  ])('describes where requests go and why: %#', (given, text) => {
    expect(describeTarget(resolveTarget(given))).toBe(text);
  });
});
