import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { LEAN } from '../support/cli-assertions.js';
import { describe, expect, it } from 'vitest';
import { REVOKED_TOKEN } from '../../mocks/store/seed.js';
import { tokenFamily, tokenModeOf } from '../../src/cli/commands/auth/token-family.js';
import { useServedCli, type RunOptions, type ServedSandbox } from './run-cli.js';
import { scriptedPrompter } from './scripted-prompter.js';

let served: ServedSandbox;
let config: { dir: string };
const topup = useServedCli((context) => {
  served = context.served;
  config = { dir: context.configDir };
});

const readJson = (file: string) => JSON.parse(readFileSync(join(config.dir, file), 'utf8')) as Record<string, unknown>;
const modeOf = (file: string) => statSync(join(config.dir, file)).mode & 0o777;
/** What a login says and stores of the account's name: nothing, when the server's token check does not report it. */
const as = (username: string) => (LEAN ? '' : ` as ${username}`);
const named = (username: string) => (LEAN ? {} : { username });

const login = (name: 'rich' | 'demo' | 'unlinked' = 'rich', extra: string[] = [], options: RunOptions = {}) =>
  topup(['auth', 'login', '--with-token', '--base-url', served.url, ...extra], { stdin: `${served.token(name)}\n`, ...options });

describe('auth login', () => {
  it(
    '--with-token on a pipe whose writer never ends: Ctrl-C ends it at once with 130, and nothing is stored',
    { timeout: 5_000 },
    async () => {
      const pipe = new PassThrough();
      pipe.write(served.token('rich'));
      const controller = new AbortController();
      const running = topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: pipe, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      expect(await running).toEqual({ code: 130, out: '', err: '' });
      expect(existsSync(join(config.dir, 'credentials.json'))).toBe(false);
    },
  );

  it('--with-token: validates the token, stores the profile and the token in 0600 files, and says so on stderr', async () => {
    // Said to a person watching stderr; a script gets the exit code and a quiet stderr.
    const result = await login('rich', [], { stderrTTY: true, color: false });
    // A lean server's token check reports the mode only: no username is shown or stored.
    expect(result).toEqual({ code: 0, out: '', err: `✓ Logged in to ${served.url}${as('rich')} (production token), profile default.\n` });
    expect(await login('rich')).toEqual({ code: 0, out: '', err: '' });
    expect(readJson('config.json')).toEqual({
      current_profile: 'default',
      profiles: { default: { base_url: served.url, mode: 'production', ...named('rich') } },
    });
    expect(readJson('credentials.json')).toEqual({ tokens: { default: served.token('rich') } });
    expect(modeOf('config.json')).toBe(0o600);
    expect(modeOf('credentials.json')).toBe(0o600);
  });

  it('--json prints the profile, base URL, mode and username, and nothing on stderr', async () => {
    const result = await login('demo', ['--json', '--profile', 'local']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ profile: 'local', base_url: served.url, mode: 'sandbox', username: LEAN ? null : 'demo' });
    expect(result.err).toBe('');
    expect(readJson('config.json').current_profile).toBe('local');
  });

  it.each([
    ['a trailing CRLF', (t: string) => `${t}\r\n`],
    ['no trailing newline', (t: string) => t],
  ])('reads the token from stdin with %s', async (_name, wrap) => {
    const result = await topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: wrap(served.token('rich')) });
    expect(result.code).toBe(0);
    expect(readJson('credentials.json')).toEqual({ tokens: { default: served.token('rich') } });
  });

  it('takes the base URL from TOPUP_BASE_URL, stored without its trailing slash', async () => {
    const result = await topup(['auth', 'login', '--with-token'], {
      stdin: served.token('rich'),
      env: { TOPUP_BASE_URL: `${served.url}/` },
    });
    expect(result.code).toBe(0);
    expect((readJson('config.json').profiles as Record<string, { base_url: string }>).default!.base_url).toBe(served.url);
  });

  it.each<[string, string[], RunOptions, number, RegExp]>([
    ['a token as an argument', ['auth', 'login', 'TOKEN'], {}, 2, /never accepted on the command line/],
    ['a token as a --token option', ['auth', 'login', '--token=TOKEN', '--base-url', 'URL'], {}, 2, /never accepted on the command line/],
    ['an empty stdin', ['auth', 'login', '--with-token', '--base-url', 'URL'], { stdin: '' }, 2, /No token on stdin/],
    [
      'a stdin longer than any token',
      ['auth', 'login', '--with-token', '--base-url', 'URL'],
      { stdin: 'x'.repeat(16 * 1024 + 1) },
      2,
      /^Error: stdin holds more than 16 KiB, more than a token sent in a header can be\.\n/,
    ],
    [
      'a token with inner whitespace',
      ['auth', 'login', '--with-token', '--base-url', 'URL'],
      { stdin: 'TOKEN\n\n' },
      2,
      /token contains whitespace/,
    ],
    [
      'no base URL and no terminal',
      ['auth', 'login', '--with-token'],
      { stdin: 'TOKEN' },
      2,
      /Pass --base-url URL \(or set TOPUP_BASE_URL\)/,
    ],
    [
      'plain http:// to a host that is not loopback',
      ['auth', 'login', '--with-token', '--base-url', 'http://shop.example.com'],
      { stdin: 'TOKEN' },
      2,
      /plain http:\/\/ to a host that is not loopback/,
    ],
    [
      'no terminal and no --with-token',
      ['auth', 'login', '--base-url', 'URL'],
      { stdin: 'TOKEN' },
      2,
      /No terminal to ask for the token on; pipe it in/,
    ],
    [
      '--with-token on a terminal',
      ['auth', 'login', '--with-token', '--base-url', 'URL'],
      { tty: true, stdin: 'TOKEN' },
      2,
      /reads the token from a pipe, not a terminal/,
    ],
    [
      '--no-input on a terminal without --with-token',
      ['--no-input', 'auth', 'login', '--base-url', 'URL'],
      { tty: true },
      2,
      /No terminal to ask for the token on/,
    ],
    ['--mock', ['--mock', 'auth', 'login', '--with-token'], { stdin: 'TOKEN' }, 2, /offline sandbox needs no login/],
    [
      'a bad profile name',
      ['auth', 'login', '--with-token', '--base-url', 'URL', '--profile', '../x'],
      { stdin: 'TOKEN' },
      2,
      /not a valid profile name/,
    ],
    ['a revoked token', ['auth', 'login', '--with-token', '--base-url', 'URL'], { stdin: REVOKED_TOKEN }, 4, /^Error: /],
    ['a token that is not a token at all', ['auth', 'login', '--with-token', '--base-url', 'URL'], { stdin: 'nonsense' }, 4, /^Error: /],
  ])('refuses %s (exit %i) and stores nothing', async (_name, args, options, code, message) => {
    const token = served.token('rich');
    const stdin = typeof options.stdin === 'string' ? options.stdin.replace('TOKEN', token) : options.stdin;
    const result = await topup(
      args.map((a) => a.replace('URL', served.url).replace('TOKEN', token)),
      { ...options, ...(stdin === undefined ? {} : { stdin }) },
    );
    expect(result.code).toBe(code);
    expect(result.err).toMatch(message);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.out).toBe('');
    expect(existsSync(join(config.dir, 'config.json'))).toBe(false);
    expect(existsSync(join(config.dir, 'credentials.json'))).toBe(false);
  });

  it('on a terminal, asks for the base URL and then the token with hidden input', async () => {
    // A production token: login offers to store the chat user id that paying by balance needs; empty skips it.
    const prompter = scriptedPrompter([{ input: served.url }, { password: `  ${served.token('unlinked')}  ` }, { input: '' }]);
    const result = await topup(['--no-color', 'auth', 'login', '--profile', 'store'], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['input', 'password', 'input']);
    expect(prompter.asked[2]!.message).toContain('topup config set chat_user_id');
    // A sandbox has no API-access page: its tokens are its fixtures.
    expect(prompter.asked[1]!.message).toBe('API token (a topup sandbox: `topup mock fixtures` lists its tokens):');
    expect(result.err).toBe(`✓ Logged in to ${served.url}${as('unlinked')} (production token), profile store.\n`);
    expect(readJson('credentials.json')).toEqual({ tokens: { store: served.token('unlinked') } });
  });

  it('on a terminal with --base-url, asks only for the token', async () => {
    const prompter = scriptedPrompter([{ password: served.token('rich') }, { input: ' 700000001 ' }]);
    const result = await topup(['auth', 'login', '--base-url', served.url], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['password', 'input']);
    // The chat user id offered for a production token is stored with the profile.
    expect((readJson('config.json').profiles as Record<string, { chat_user_id?: string }>).default!.chat_user_id).toBe('700000001');
  });

  it('a sandbox token is not asked for a chat user id', async () => {
    const prompter = scriptedPrompter([{ password: served.token('demo') }]);
    const result = await topup(['auth', 'login', '--base-url', served.url], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['password']);
  });

  it('on a terminal, a server that is not a topup sandbox is pointed at its own API-access page', async () => {
    // A shop on this machine that refuses the token: no control API answers there.
    const shop = createHttpServer((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"success":false,"message":"Unauthenticated."}');
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
      const prompter = scriptedPrompter([{ password: 'not-a-token' }]);
      await topup(['auth', 'login', '--base-url', url], { tty: true, prompter });
      expect(prompter.asked[0]!.message).toBe(`API token (create one at ${url}/user/api-access):`);
    } finally {
      await new Promise((resolve) => shop.close(resolve));
    }
  });

  it('the base URL question refuses what the client would refuse', async () => {
    const prompter = scriptedPrompter([{ input: 'http://shop.example.com' }]);
    const result = await topup(['auth', 'login'], { tty: true, prompter });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/was refused: The base URL uses plain http:\/\/ to a host that is not loopback/);
  });

  it('--debug logs the validation request with the Authorization value redacted', async () => {
    const result = await login('rich', ['--debug']);
    expect(result.code).toBe(0);
    expect(result.err).toContain(`> POST ${served.url}/api/v1/auth/token/validate`);
    expect(result.err).toContain(`"authorization":"Bearer topup_live_…${served.token('rich').slice(-4)}"`);
    expect(result.err).not.toContain(served.token('rich'));
  });

  it('with TOPUP_TOKEN set, warns that the environment wins over the stored token', async () => {
    const result = await topup(['auth', 'login', '--with-token', '--base-url', served.url], {
      stdin: served.token('rich'),
      env: { TOPUP_TOKEN: served.token('demo') },
    });
    expect(result.code).toBe(0);
    expect(result.err).toContain('Note: TOPUP_TOKEN is set and wins over the stored token until you unset it.');
  });

  it('logging in again to the same account keeps its chat user id; another account drops it', async () => {
    await login('rich');
    expect((await topup(['config', 'set', 'chat_user_id', '700000001'])).code).toBe(0);
    await login('rich');
    // Without a username from the server (lean) the two logins cannot be told to be one account: the link is dropped.
    const kept = (readJson('config.json').profiles as Record<string, unknown>).default;
    if (LEAN) expect(kept).toEqual({ base_url: served.url, mode: 'production' });
    else expect(kept).toMatchObject({ chat_user_id: '700000001' });
    await login('unlinked');
    expect((readJson('config.json').profiles as Record<string, unknown>).default).toEqual({
      base_url: served.url,
      mode: 'production',
      ...named('unlinked'),
    });
  });
});

describe('auth logout', () => {
  it('forgets the current profile and its token, and says the offline sandbox is back', async () => {
    await login();
    const result = await topup(['auth', 'logout'], { stderrTTY: true, color: false });
    expect(result).toEqual({
      code: 0,
      out: '',
      err: [
        `✓ Logged out of profile default (${served.url}); its stored token was deleted.`,
        `The token itself stays valid until you revoke it at ${served.url}/user/api-access.`,
        'Commands use the built-in offline sandbox again.',
        '',
      ].join('\n'),
    });
    expect(readJson('config.json')).toEqual({ profiles: {} });
    expect(readJson('credentials.json')).toEqual({ tokens: {} });
  });

  it('--profile names another profile; the current one stays, --json reports what was removed', async () => {
    await login('rich');
    await login('demo', ['--profile', 'local']);
    const result = await topup(['auth', 'logout', '--profile', 'default', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ profile: 'default', base_url: served.url, logged_out: true });
    expect(result.err).toBe('');
    expect(readJson('config.json')).toEqual({
      current_profile: 'local',
      profiles: { local: { base_url: served.url, mode: 'sandbox', ...named('demo') } },
    });
  });

  it('after logging out of the current one, points to the profiles that are left', async () => {
    await login('demo', ['--profile', 'local']);
    await login('rich');
    const result = await topup(['auth', 'logout']);
    expect(result.err).toContain('No profile is current now; pick one with: topup config set profile local');
  });

  it.each<[string, string[], boolean, number, RegExp]>([
    [
      // A name that names no profile is a usage error wherever it is given (docs/scripting.md).
      'an unknown profile',
      ['auth', 'logout', '--profile', 'ghost'],
      true,
      2,
      /^Error: No profile is named 'ghost', so nothing was logged out \(profiles: default\)\.\n$/,
    ],
    [
      'no profile at all',
      ['auth', 'logout'],
      false,
      1,
      /^Error: Not logged in: no profile is current, and the built-in offline sandbox needs no logout\.\n$/,
    ],
  ])('%s is exit %i with one clear sentence', async (_name, args, loggedIn, code, message) => {
    if (loggedIn) await login();
    const result = await topup(args);
    expect(result.code).toBe(code);
    expect(result.err).toMatch(message);
    expect(result.out).toBe('');
  });
});

/** A port on loopback with nothing listening: connections are refused at once. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Adds a profile by hand, as another login (or a hand edit) would have left it. */
function addProfile(name: string, baseUrl: string, token: string | undefined, mode?: string): void {
  const configFile = join(config.dir, 'config.json');
  const credentialsFile = join(config.dir, 'credentials.json');
  const current = existsSync(configFile) ? readJson('config.json') : {};
  const profiles = { ...(current.profiles as object), [name]: { base_url: baseUrl, ...(mode ? { mode } : {}) } };
  writeFileSync(configFile, JSON.stringify({ ...current, profiles }), { mode: 0o600 });
  if (token !== undefined) {
    const stored = existsSync(credentialsFile) ? readJson('credentials.json') : {};
    writeFileSync(credentialsFile, JSON.stringify({ tokens: { ...(stored.tokens as object), [name]: token } }), { mode: 0o600 });
  }
}

describe('a token check that answers `valid: false`', () => {
  /** The served sandbox, except that its token check says the token is not valid (a 200, as some servers answer). */
  const sayingInvalid: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (!String(input instanceof Request ? input.url : input).endsWith('/auth/token/validate')) return answer;
    const body = (await answer.json()) as { data: Record<string, unknown> };
    body.data.valid = false;
    return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it('is a refused token: login stores nothing, and status says invalid, exit 4', async () => {
    const refused = await login('rich', [], { fetch: sayingInvalid });
    expect(refused.code).toBe(4);
    expect(refused.err).toContain('the token is not valid');
    expect(existsSync(join(config.dir, 'credentials.json'))).toBe(false);
    const status = await topup(['auth', 'status', '--base-url', served.url, '--json'], {
      env: { TOPUP_TOKEN: served.token('rich') },
      fetch: sayingInvalid,
    });
    expect(status.code).toBe(4);
    expect(status.out).toContain('"invalid"');
    expect(status.out).not.toContain('"valid"');
  });
});

describe('auth status', () => {
  it("embedded: says it is the built-in offline sandbox, with the demo token's family only", async () => {
    const result = await topup(['auth', 'status']);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        'profile: built-in offline sandbox',
        'active: yes',
        'base_url: http://sandbox.localhost (in-process, offline)',
        `username: ${LEAN ? '-' : 'demo'}`,
        'mode: sandbox',
        'token: topup_test_… (built-in demo token)',
        `token_name: ${LEAN ? '-' : 'Demo sandbox key'}`,
        'status: valid',
        '',
      ].join('\n'),
    );
    expect(result.err).toMatch(/embedded offline sandbox/);
    // Success chatter only for a person watching stderr; a script has the exit code.
    expect(result.err).not.toMatch(/valid/);
    const watched = await topup(['auth', 'status'], { stderrTTY: true, color: false });
    expect(watched.out).toBe(result.out);
    expect(watched.err).toMatch(/embedded offline sandbox.*\n✓ The token is valid\.\n$/);
  });

  it("logged in: the profile, its server and its stored token's family", async () => {
    await login();
    const result = await topup(['auth', 'status']);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        'profile: default',
        'active: yes',
        `base_url: ${served.url}`,
        `username: ${LEAN ? '-' : 'rich'}`,
        'mode: production',
        'token: topup_live_… (stored in the profile)',
        `token_name: ${LEAN ? '-' : 'Rich bot key'}`,
        'status: valid',
        '',
      ].join('\n'),
    );
  });

  it('every profile, the active one first: valid, invalid, unreachable (never "invalid") and without a token', async () => {
    const dead = await closedPort();
    await login('demo', ['--profile', 'sandbox']);
    addProfile('gone', dead, served.token('rich'), 'production');
    addProfile('revoked', served.url, REVOKED_TOKEN);
    addProfile('empty', served.url, undefined);
    await login('rich', ['--profile', 'main']);
    const result = await topup(['auth', 'status']);
    expect(result.code).toBe(0);
    const blocks = result.out.split('\n\n').map((block) =>
      Object.fromEntries(
        block
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
      ),
    );
    expect(blocks.map((b) => [b.profile, b.active, b.base_url, b.mode, b.token, b.status])).toEqual([
      ['main', 'yes', served.url, 'production', 'topup_live_… (stored in the profile)', 'valid'],
      ['empty', 'no', served.url, '-', '-', 'no token'],
      [
        'gone',
        'no',
        dead,
        'production',
        'topup_live_… (stored in the profile)',
        `unreachable: Could not reach ${dead}: connection refused: nothing is listening there (ECONNREFUSED).`,
      ],
      ['revoked', 'no', served.url, '-', 'topup_live_… (stored in the profile)', expect.stringMatching(/^invalid: .+/)],
      ['sandbox', 'no', served.url, 'sandbox', 'topup_test_… (stored in the profile)', 'valid'],
    ]);
    expect(result.err).toBe('');
  });

  it('--json: an array, one object per profile, the active one first', async () => {
    const dead = await closedPort();
    await login('demo', ['--profile', 'sandbox']);
    addProfile('gone', dead, served.token('rich'));
    const result = await topup(['auth', 'status', '--json', '--profile', 'sandbox']);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual([
      {
        profile: 'sandbox',
        active: true,
        embedded: false,
        base_url: served.url,
        token_source: 'profile',
        status: 'valid',
        message: null,
        mode: 'sandbox',
        ...(LEAN
          ? { username: null, token_name: null, last_used_at: null }
          : { username: 'demo', token_name: 'Demo sandbox key', last_used_at: expect.any(String) }),
        // Where this run's requests go: only the active entry says it (src/cli/where.ts).
        target: { origin: served.url, profile: 'sandbox', mode: 'sandbox' },
      },
      {
        profile: 'gone',
        active: false,
        embedded: false,
        base_url: dead,
        token_source: 'profile',
        status: 'unreachable',
        message: `Could not reach ${dead}: connection refused: nothing is listening there (ECONNREFUSED).`,
        mode: null,
        username: null,
        token_name: null,
        last_used_at: null,
        target: null,
      },
    ]);
  });

  it("--json with --base-url and TOPUP_TOKEN: the active target is no profile; the token's facts", async () => {
    const result = await topup(['auth', 'status', '--json', '--base-url', served.url], { env: { TOPUP_TOKEN: served.token('unlinked') } });
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual([
      {
        profile: null,
        active: true,
        embedded: false,
        base_url: served.url,
        token_source: 'environment',
        status: 'valid',
        message: null,
        mode: 'production',
        ...(LEAN
          ? { username: null, token_name: null, last_used_at: null }
          : { username: 'unlinked', token_name: 'Web store key', last_used_at: expect.any(String) }),
        target: { origin: served.url, profile: null, mode: 'production' },
      },
    ]);
  });

  it('checks at most two tokens at once (the published limit is 2 to 3 parallel requests)', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) addProfile(name, served.url, served.token('rich'));
    await login('demo', ['--profile', 'main']);
    let inFlight = 0;
    let most = 0;
    const counting: typeof fetch = async (input, init) => {
      most = Math.max(most, ++inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const result = await topup(['auth', 'status', '--json'], { fetch: counting });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.out) as { status: string }[]).map((e) => e.status)).toEqual(Array(6).fill('valid'));
    expect(most).toBe(2);
  });

  it('another profile that is invalid or unreachable does not change the exit code; the active one does', async () => {
    const dead = await closedPort();
    addProfile('gone', dead, served.token('rich'));
    addProfile('revoked', served.url, REVOKED_TOKEN);
    await login('rich', ['--profile', 'main']);
    expect((await topup(['auth', 'status'])).code).toBe(0);
    const revoked = await topup(['auth', 'status', '--profile', 'revoked']);
    expect(revoked.code).toBe(4);
    expect(revoked.out.split('\n')[0]).toBe('profile: revoked');
    expect(revoked.err).toMatch(/^Error: .+\.\n$/);
    const gone = await topup(['auth', 'status', '--profile', 'gone']);
    expect(gone.code).toBe(7);
    expect(gone.out).toContain(`status: unreachable: Could not reach ${dead}`);
    expect(gone.out.split('\n\n')[0]).not.toContain('invalid');
    expect(gone.err).toBe(`Error: Could not reach ${dead}: connection refused: nothing is listening there (ECONNREFUSED).\n`);
  });

  it('--debug logs the request with the Authorization value redacted (and the token appears nowhere)', async () => {
    await login();
    const result = await topup(['--debug', 'auth', 'status']);
    expect(result.code).toBe(0);
    expect(result.err).toContain(`> POST ${served.url}/api/v1/auth/token/validate`);
    expect(result.err).toContain(`"authorization":"Bearer topup_live_…${served.token('rich').slice(-4)}"`);
    expect(result.out + result.err).not.toContain(served.token('rich'));
  });

  it('on a terminal: aligned fields, no colour with --no-color', async () => {
    await login();
    const result = await topup(['auth', 'status', '--no-color'], { tty: true });
    expect(result.out.split('\n')[0]).toBe('profile     default');
    expect(result.out).toContain('token       topup_live_… (stored in the profile)');
    expect(result.out).toContain('status      valid');
    expect(result.out + result.err).not.toMatch(ANSI_ESCAPE);
  });

  it.each<[string, string[], Record<string, string>, string, RegExp]>([
    ['a revoked token', ['auth', 'status', '--base-url', 'URL'], { TOPUP_TOKEN: REVOKED_TOKEN }, 'invalid: ', /^Error: .+\.\n$/],
    [
      'no token for the server',
      ['auth', 'status', '--base-url', 'URL'],
      {},
      'no token',
      /^Error: No token for URL: log in with `topup auth login --base-url URL`, or set TOPUP_TOKEN\.\n$/,
    ],
  ])('%s is exit 4, after the list that shows it', async (_name, args, env, status, message) => {
    const result = await topup(
      args.map((a) => a.replace('URL', served.url)),
      { env },
    );
    expect(result.code).toBe(4);
    expect(result.out).toContain(`\nstatus: ${status}`);
    expect(result.err).toMatch(new RegExp(message.source.replaceAll('URL', served.url.replace(/[.]/g, '\\.'))));
  });
});

describe('token family', () => {
  it.each([
    ['topup_test_abc', 'topup_test_…', 'sandbox'],
    ['topup_live_abc', 'topup_live_…', 'production'],
    ['ghp_abcdef', '…', undefined],
    ['', '…', undefined],
  ])('%j shows as %j, mode %s', (token, shown, mode) => {
    expect(tokenFamily(token)).toBe(shown);
    expect(tokenModeOf(token)).toBe(mode);
  });
});

describe('auth help', () => {
  it.each([['auth'], ['auth', 'login'], ['auth', 'logout'], ['auth', 'status'], ['auth', 'token'], ['auth', 'switch']])(
    '%j has a description and examples',
    async (...path) => {
      const result = await topup([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/\n\S.*\n/);
      expect(result.out).toMatch(/Examples:\n {2}\$ topup /);
    },
  );
});
