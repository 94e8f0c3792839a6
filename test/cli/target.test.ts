import { describe, expect, it } from 'vitest';
import type { ProfileSettings } from '../../src/cli/settings.js';
import { resolveTarget, type TargetInput, type TargetSpec } from '../../src/cli/target.js';

const profiles: Record<string, ProfileSettings> = {
  default: { base_url: 'https://shop.example.com', mode: 'production', username: 'rich', chat_user_id: '700000001' },
  staging: { base_url: 'http://127.0.0.1:4010', mode: 'sandbox', username: 'demo' },
};
const tokens: Record<string, string> = { default: 'topup_live_stored_default', staging: 'topup_test_stored_staging' };

function input(change: Partial<TargetInput> & { env?: Record<string, string> } = {}): TargetInput {
  return {
    mock: false,
    profileFlag: undefined,
    baseUrlFlag: undefined,
    currentProfile: undefined,
    profile: (name) => profiles[name],
    token: (name) => tokens[name],
    ...change,
    env: change.env ?? {},
  };
}

const embedded: TargetSpec = { kind: 'embedded', profile: 'sandbox' };
const viaDefault: TargetSpec = {
  kind: 'remote', profile: 'default', baseUrl: 'https://shop.example.com', token: 'topup_live_stored_default',
  tokenSource: 'profile', mode: 'production', chatUserId: '700000001',
};
const viaStaging: TargetSpec = {
  kind: 'remote', profile: 'staging', baseUrl: 'http://127.0.0.1:4010', token: 'topup_test_stored_staging',
  tokenSource: 'profile', mode: 'sandbox', chatUserId: undefined,
};
const bare = (baseUrl: string, token?: string): TargetSpec => ({
  kind: 'remote', profile: undefined, baseUrl, token, tokenSource: token === undefined ? 'none' : 'environment', mode: undefined, chatUserId: undefined,
});

describe('resolveTarget precedence', () => {
  it.each<[string, TargetInput, TargetSpec]>([
    ['nothing configured: the embedded sandbox', input(), embedded],
    ['--mock wins over everything', input({ mock: true, currentProfile: 'default', baseUrlFlag: 'https://x.example', env: { TOPUP_TOKEN: 't', TOPUP_BASE_URL: 'https://y.example' } }), embedded],
    ['the current profile: its URL, token, mode and chat id', input({ currentProfile: 'default' }), viaDefault],
    ['--profile beats the current profile', input({ currentProfile: 'default', profileFlag: 'staging' }), viaStaging],
    ['TOPUP_PROFILE beats the current profile', input({ currentProfile: 'default', env: { TOPUP_PROFILE: 'staging' } }), viaStaging],
    ['--profile beats TOPUP_PROFILE', input({ profileFlag: 'default', env: { TOPUP_PROFILE: 'staging' } }), viaDefault],
    ['TOPUP_TOKEN beats the stored token', input({ currentProfile: 'default', env: { TOPUP_TOKEN: 'topup_live_from_env' } }), { ...viaDefault, token: 'topup_live_from_env', tokenSource: 'environment' }],
    ['an empty TOPUP_TOKEN is ignored', input({ currentProfile: 'default', env: { TOPUP_TOKEN: '' } }), viaDefault],
    ['--base-url to the profile\'s own origin keeps the stored token', input({ currentProfile: 'default', baseUrlFlag: 'https://shop.example.com/' }), { ...viaDefault, baseUrl: 'https://shop.example.com/' }],
    ['--base-url to another server never gets the stored token', input({ currentProfile: 'default', baseUrlFlag: 'https://evil.example' }), bare('https://evil.example')],
    ['--base-url to another server with TOPUP_TOKEN sends that', input({ currentProfile: 'default', baseUrlFlag: 'https://other.example', env: { TOPUP_TOKEN: 'topup_live_env' } }), bare('https://other.example', 'topup_live_env')],
    ['TOPUP_BASE_URL with no profile', input({ env: { TOPUP_BASE_URL: 'http://127.0.0.1:9999', TOPUP_TOKEN: 'topup_test_env' } }), bare('http://127.0.0.1:9999', 'topup_test_env')],
    ['--base-url beats TOPUP_BASE_URL', input({ baseUrlFlag: 'http://127.0.0.1:1', env: { TOPUP_BASE_URL: 'http://127.0.0.1:2' } }), bare('http://127.0.0.1:1')],
    ['TOPUP_BASE_URL beats the profile\'s URL, and its token stays home', input({ currentProfile: 'default', env: { TOPUP_BASE_URL: 'http://127.0.0.1:2' } }), bare('http://127.0.0.1:2')],
    ['an empty TOPUP_BASE_URL is ignored', input({ currentProfile: 'staging', env: { TOPUP_BASE_URL: '' } }), viaStaging],
    ['a --base-url that is not a URL shares no origin, so no stored token', input({ currentProfile: 'default', baseUrlFlag: 'not a url' }), bare('not a url')],
    ['an unknown --profile with a --base-url is just that URL', input({ profileFlag: 'ghost', baseUrlFlag: 'http://127.0.0.1:3' }), bare('http://127.0.0.1:3')],
    ['an unknown TOPUP_PROFILE without any URL falls back to the embedded sandbox', input({ env: { TOPUP_PROFILE: 'ghost' } }), embedded],
    ['a current profile that no longer exists falls back to the embedded sandbox', input({ currentProfile: 'gone' }), embedded],
  ])('%s', (_name, given, expected) => {
    expect(resolveTarget(given)).toEqual(expected);
  });

  it('an unknown --profile without any URL is a usage error that says how to log in', () => {
    expect(() => resolveTarget(input({ profileFlag: 'ghost' }))).toThrow(expect.objectContaining({
      name: 'UsageError',
      message: "No profile is named 'ghost'; log in with: topup auth login --profile ghost",
    }));
  });

  it('a profile without a stored token resolves with no token rather than another profile\'s', () => {
    const spec = resolveTarget(input({ currentProfile: 'default', token: () => undefined }));
    expect(spec).toEqual({ ...viaDefault, token: undefined, tokenSource: 'none' });
  });
});
