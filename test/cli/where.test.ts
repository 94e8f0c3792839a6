import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { REVOKED_TOKEN } from '../../mocks/store/seed.js';
import { looksLikeTestServer, testServerWarning } from '../../src/cli/where.js';
import { tempConfigDir } from '../support/fake-io.js';
import { urlOf } from '../support/url-of.js';
import { runCli, useServedCli, type ServedSandbox } from './run-cli.js';

let served: ServedSandbox;
const topup = useServedCli((context) => {
  served = context.served;
});

type Account = 'rich' | 'demo';
const login = (profile: string, account: Account) =>
  topup(['auth', 'login', '--with-token', '--base-url', served.url, '--profile', profile], { stdin: `${served.token(account)}\n` });
/** Two profiles on the served sandbox, `default` the current one (the last login is current). */
async function twoProfiles(current: Account = 'demo'): Promise<void> {
  expect((await login('staging', 'demo')).code).toBe(0);
  expect((await login('default', current)).code).toBe(0);
}
const warningAt = (origin: string) => `Warning: a production token answered by a test server at ${origin} — this is not the real shop.`;
const envelope = (err: string) => JSON.parse(err) as { error: { kind: string; code?: string }; target?: unknown };

describe('a terminal says which target answered when it is not the current profile', () => {
  it('nothing for the current profile', async () => {
    await twoProfiles();
    const result = await topup(['balance'], { stderrTTY: true, color: false });
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
  });

  it('--profile and TOPUP_PROFILE: the profile and its origin, once', async () => {
    await twoProfiles();
    const byFlag = await topup(['balance', '--profile', 'staging'], { stderrTTY: true, color: false });
    expect(byFlag.code).toBe(0);
    expect(byFlag.err).toBe(`→ staging (${served.url})\n`);
    const byEnv = await topup(['balance'], { stderrTTY: true, color: false, env: { TOPUP_PROFILE: 'staging' } });
    expect(byEnv.err).toBe(`→ staging (${served.url})\n`);
    // Many answers, one line.
    const doctor = await topup(['doctor', '--profile', 'staging'], { stderrTTY: true, color: false });
    expect(doctor.err.split('\n').filter((line) => line.startsWith('→'))).toEqual([`→ staging (${served.url})`]);
  });

  it('--base-url and TOPUP_BASE_URL: the origin, without its path', async () => {
    const env = { TOPUP_TOKEN: served.token('demo') };
    const byFlag = await topup(['balance', '--base-url', `${served.url}/`], { stderrTTY: true, color: false, env });
    expect(byFlag.code).toBe(0);
    expect(byFlag.err).toBe(`→ ${served.url}\n`);
    const byEnv = await topup(['balance'], { stderrTTY: true, color: false, env: { ...env, TOPUP_BASE_URL: served.url } });
    expect(byEnv.err).toBe(`→ ${served.url}\n`);
  });

  it('piped: stderr stays as it was', async () => {
    await twoProfiles('rich');
    const result = await topup(['balance', '--profile', 'staging']);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect((await topup(['balance'])).err).toBe('');
  });
});

describe('a production token answered by a test server is marked', () => {
  it('over HTTP on loopback: warned on a terminal, even with --json; stdout stays the data', async () => {
    await twoProfiles('rich');
    const human = await topup(['balance'], { stderrTTY: true, color: false });
    expect(human.code).toBe(0);
    expect(human.err).toBe(`${warningAt(served.url)}\n`);
    const json = await topup(['balance', '--json'], { stderrTTY: true, color: false });
    const piped = await topup(['balance', '--json']);
    expect(json.err).toBe(`${warningAt(served.url)}\n`);
    expect(piped.err).toBe('');
    expect(json.out).toBe(piped.out);
    expect(Object.keys(JSON.parse(json.out) as object)).not.toContain('target');
  });

  it('a sandbox token is not warned about; another target gets both lines', async () => {
    await twoProfiles('rich');
    expect((await topup(['balance', '--profile', 'staging'], { stderrTTY: true, color: false })).err).not.toContain('Warning');
    const env = { TOPUP_TOKEN: served.token('rich') };
    const other = await topup(['balance', '--profile', 'staging'], { stderrTTY: true, color: false, env });
    expect(other.err).toBe(`→ staging (${served.url})\n${warningAt(served.url)}\n`);
    // TOPUP_BASE_URL naming the current profile's own server is the default target: the warning alone.
    const same = await topup(['balance'], { stderrTTY: true, color: false, env: { ...env, TOPUP_BASE_URL: served.url } });
    expect(same.err).toBe(`${warningAt(served.url)}\n`);
  });

  it('in process, on http://sandbox.localhost', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const config = tempConfigDir();
    try {
      const env = { TOPUP_BASE_URL: sandbox.baseUrl, TOPUP_TOKEN: sandbox.account('rich').token };
      const result = await runCli(config.dir, ['balance'], { stderrTTY: true, color: false, env, fetch: sandbox.fetch });
      expect(result.code).toBe(0);
      expect(result.err).toBe(`→ ${sandbox.baseUrl}\n${warningAt(sandbox.baseUrl)}\n`);
      const unknown = await runCli(config.dir, ['balance'], {
        stderrTTY: true,
        color: false,
        env: { ...env, TOPUP_TOKEN: 'not-a-known-prefix' },
        fetch: sandbox.fetch,
      });
      expect(unknown.err).toContain(`Warning: a token of unknown mode answered by a test server at ${sandbox.baseUrl}`);
      // No token at all: nothing of the user's is at stake, so no word of a token.
      const tokenless = await runCli(config.dir, ['packages'], {
        stderrTTY: true,
        color: false,
        env: { TOPUP_BASE_URL: sandbox.baseUrl },
        fetch: sandbox.fetch,
      });
      expect(tokenless.code).toBe(0);
      expect(tokenless.err).toBe(`→ ${sandbox.baseUrl}\n`);
    } finally {
      config.cleanup();
    }
  });

  it('an https server elsewhere: warned only when it says it is a topup sandbox (its instance header)', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const config = tempConfigDir();
    // Played by the in-process sandbox without its instance header (or with another), so no request leaves the machine.
    const shop =
      (header: boolean): typeof fetch =>
      async (input, init) => {
        const url = new URL(urlOf(input));
        const answer = await sandbox.fetch(`${sandbox.baseUrl}${url.pathname}${url.search}`, init);
        const headers = new Headers(answer.headers);
        if (header) headers.set('X-Topup-Sandbox-Instance', 'abc123');
        else headers.delete('X-Topup-Sandbox-Instance');
        return new Response(await answer.text(), { status: answer.status, headers });
      };
    try {
      const env = { TOPUP_BASE_URL: 'https://shop.example', TOPUP_TOKEN: sandbox.account('rich').token };
      const plain = await runCli(config.dir, ['balance'], { stderrTTY: true, color: false, env, fetch: shop(false) });
      expect(plain).toMatchObject({ code: 0, err: '→ https://shop.example\n' });
      const marked = await runCli(config.dir, ['balance'], { stderrTTY: true, color: false, env, fetch: shop(true) });
      expect(marked.err).toBe(`→ https://shop.example\n${warningAt('https://shop.example')}\n`);
    } finally {
      config.cleanup();
    }
  });

  it('what looks like a test server: the sandbox header, loopback, or plain http', () => {
    const none = new Headers();
    expect(looksLikeTestServer('https://shop.example/api', new Headers({ 'X-Topup-Sandbox-Instance': 'abc' }))).toBe(true);
    expect(looksLikeTestServer('https://127.0.0.1:4010', none)).toBe(true);
    expect(looksLikeTestServer('http://shop.example', none)).toBe(true);
    expect(looksLikeTestServer('https://shop.example', none)).toBe(false);
    expect(testServerWarning('sandbox', 'http://127.0.0.1:4010', none)).toBeUndefined();
    expect(testServerWarning('production', 'https://shop.example', none)).toBeUndefined();
    expect(testServerWarning('production', 'http://127.0.0.1:4010/api', none)).toBe(warningAt('http://127.0.0.1:4010'));
  });
});

describe('--json error envelopes carry the target, never the token', () => {
  it('over HTTP: a refused token, with and without a profile', async () => {
    const env = { TOPUP_TOKEN: REVOKED_TOKEN, TOPUP_BASE_URL: served.url };
    const refused = await topup(['balance', '--json'], { env });
    expect(refused.code).toBe(4);
    expect(envelope(refused.err).target).toEqual({ origin: served.url, profile: null, mode: 'production' });
    expect(refused.err).not.toContain(REVOKED_TOKEN);
    await twoProfiles();
    const missing = await topup(['orders', 'show', 'INV99999999999999', '--json']);
    expect(missing.code).not.toBe(0);
    expect(envelope(missing.err).target).toEqual({ origin: served.url, profile: 'default', mode: 'sandbox' });
  });

  it('in process (--mock): the embedded sandbox, sandbox mode; a usage error before any target has none', async () => {
    const config = tempConfigDir();
    try {
      const missing = await runCli(config.dir, ['orders', 'show', 'INV99999999999999', '--mock', '--json'], {
        stderrTTY: true,
        color: false,
      });
      expect(missing.code).not.toBe(0);
      const lines = missing.err.trimEnd().split('\n');
      expect(lines.some((line) => line.startsWith('→'))).toBe(false);
      expect(envelope(lines.at(-1)!).target).toEqual({
        origin: expect.stringMatching(/^https?:\/\/[^/]+$/),
        profile: null,
        mode: 'sandbox',
      });
      const usage = await runCli(config.dir, ['orders', 'show', '--json']);
      expect(usage.code).toBe(2);
      expect(envelope(usage.err)).not.toHaveProperty('target');
    } finally {
      config.cleanup();
    }
  });
});
