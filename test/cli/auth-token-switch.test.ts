import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANSI_ESCAPE, expectUsageError } from '../support/cli-assertions.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, serveSandbox, type RunOptions, type ServedSandbox } from './run-cli.js';
import { scriptedPrompter } from './scripted-prompter.js';

// Not useServedCli: `auth token` prints a token on purpose, which that harness rightly forbids everywhere else.
let served: ServedSandbox;
let other: ServedSandbox;
let config: { dir: string; cleanup: () => void };
beforeAll(async () => {
  [served, other] = await Promise.all([serveSandbox(), serveSandbox()]);
});
afterAll(() => Promise.all([served.close(), other.close()]));
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const topup = (args: string[], options: RunOptions = {}) => runCli(config.dir, args, options);
const currentProfile = () =>
  (JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8')) as { current_profile?: string }).current_profile;

async function loginAs(account: 'rich' | 'demo', profile: string, url = served.url): Promise<void> {
  const token = (url === served.url ? served : other).token(account);
  const result = await topup(['auth', 'login', '--with-token', '--base-url', url, '--profile', profile], { stdin: token });
  expect(result.code).toBe(0);
}

describe('auth token', () => {
  beforeEach(async () => {
    await loginAs('demo', 'staging');
    await loginAs('rich', 'main');
  });

  it.each([false, true])("prints the current profile's token on stdout and nothing else (tty %s)", async (tty) => {
    expect(await topup(['auth', 'token'], { tty })).toEqual({ code: 0, out: `${served.token('rich')}\n`, err: '' });
  });

  it.each<[string, string[], Record<string, string>, () => string]>([
    ['--profile names another profile', ['--profile', 'staging'], {}, () => served.token('demo')],
    ['TOPUP_PROFILE names another profile', [], { TOPUP_PROFILE: 'staging' }, () => served.token('demo')],
    [
      'TOPUP_TOKEN wins over the stored token',
      [],
      { TOPUP_TOKEN: 'topup_live_from_the_environment' },
      () => 'topup_live_from_the_environment',
    ],
    [
      'TOPUP_TOKEN wins with --base-url too',
      ['--base-url', 'OTHER'],
      { TOPUP_TOKEN: 'topup_live_from_the_environment' },
      () => 'topup_live_from_the_environment',
    ],
  ])('%s', async (_name, flags, env, token) => {
    const result = await topup(['auth', 'token', ...flags.map((f) => f.replace('OTHER', other.url))], { env });
    expect(result).toEqual({ code: 0, out: `${token()}\n`, err: '' });
  });

  it('--json: the token with where it came from', async () => {
    const result = await topup(['auth', 'token', '--json', '--profile', 'staging']);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual({
      token: served.token('demo'),
      profile: 'staging',
      base_url: served.url,
      token_source: 'profile',
    });
  });

  it.each<[string, string[], Record<string, string>, string]>([
    [
      'a stored token is never printed for another server',
      ['--base-url', 'OTHER'],
      {},
      'Error: No token was sent to OTHER: the stored token of profile main is sent only to its own server, SERVED; set TOPUP_TOKEN for OTHER, or drop --base-url.\n',
    ],
    [
      '--mock: the embedded sandbox has no token to give',
      ['--mock'],
      {},
      'Error: No token: commands use the embedded offline sandbox, which needs none; log in with `topup auth login`, or set TOPUP_TOKEN and TOPUP_BASE_URL.\n',
    ],
  ])('%s: exit 4, one sentence, nothing on stdout', async (_name, flags, env, message) => {
    const result = await topup(['auth', 'token', ...flags.map((f) => f.replace('OTHER', other.url))], { env });
    expect(result).toEqual({
      code: 4,
      out: '',
      err: message.replaceAll('OTHER', other.url).replaceAll('SERVED', served.url),
    });
  });

  it('a profile whose token was not stored: exit 4', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(config.dir, 'credentials.json'), JSON.stringify({ tokens: {} }), { mode: 0o600 });
    const result = await topup(['auth', 'token']);
    // The current profile is `main`: a login without --profile would go into `default`.
    expect(result).toEqual({
      code: 4,
      out: '',
      err: `Error: No token for ${served.url}: log in with \`topup auth login --base-url ${served.url} --profile main\`, or set TOPUP_TOKEN.\n`,
    });
  });

  it('a named profile whose token was not stored: the login it suggests goes into that profile', async () => {
    const login = await topup(['auth', 'login', '--with-token', '--base-url', served.url, '--profile', 'p5'], {
      stdin: served.token('demo'),
    });
    expect(login.code).toBe(0);
    const { readFileSync, writeFileSync } = await import('node:fs');
    const file = join(config.dir, 'credentials.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { tokens: Record<string, string> };
    delete stored.tokens.p5;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    const result = await topup(['--profile', 'p5', 'balance']);
    expect(result).toEqual({
      code: 4,
      out: '',
      err: `Error: No token for ${served.url}: log in with \`topup auth login --base-url ${served.url} --profile p5\`, or set TOPUP_TOKEN.\n`,
    });
  });

  it('an unknown --profile is a usage error', async () => {
    expectUsageError(
      await topup(['auth', 'token', '--profile', 'ghost']),
      /^Error: No profile is named 'ghost' \(from --profile; profiles: main, staging\)/,
    );
  });

  it('a line break typed into a profile name is shown escaped, not taken for the end of the sentence', async () => {
    for (const args of [
      ['--profile', 'gh\nost', 'me'],
      ['auth', 'login', '--with-token', '--profile', 'gh\nost'],
    ]) {
      const result = await topup(args, { stdin: served.token('demo'), env: { TOPUP_BASE_URL: served.url } });
      expect(result.code).toBe(2);
      expect(result.err).toContain("'gh\\x0aost'");
      expect(result.err.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});

describe('auth token with nothing configured', () => {
  it('is exit 4: the embedded sandbox has no token of yours', async () => {
    expect(await topup(['auth', 'token'])).toEqual({
      code: 4,
      out: '',
      err: 'Error: No token: commands use the embedded offline sandbox, which needs none; log in with `topup auth login`, or set TOPUP_TOKEN and TOPUP_BASE_URL.\n',
    });
  });
});

describe('auth switch', () => {
  beforeEach(async () => {
    await loginAs('demo', 'staging');
    await loginAs('rich', 'main');
  });

  it('--profile NAME makes it current; success said only to a person watching stderr', async () => {
    expect(await topup(['auth', 'switch', '--profile', 'staging'])).toEqual({ code: 0, out: '', err: '' });
    expect(currentProfile()).toBe('staging');
    expect(await topup(['--no-color', 'auth', 'switch', '--profile', 'main'], { tty: true })).toEqual({
      code: 0,
      out: '',
      err: `✓ Switched to profile main (${served.url}).\n`,
    });
    expect(currentProfile()).toBe('main');
    expect((await topup(['--no-color', 'auth', 'switch', '--profile', 'main'], { tty: true })).err).toBe(
      `✓ Profile main (${served.url}) was already the current one.\n`,
    );
  });

  it('--json: the new and the previous profile', async () => {
    const result = await topup(['auth', 'switch', '--profile', 'staging', '--json']);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual({ profile: 'staging', base_url: served.url, previous: 'main' });
  });

  it('says when TOPUP_PROFILE will still win', async () => {
    const result = await topup(['auth', 'switch', '--profile', 'staging'], { env: { TOPUP_PROFILE: 'main' } });
    expect(result).toEqual({
      code: 0,
      out: '',
      err: 'Note: TOPUP_PROFILE=main is set and wins over the current profile until you unset it.\n',
    });
  });

  it.each<[string, string[], RunOptions, string]>([
    [
      'an unknown profile',
      ['auth', 'switch', '--profile', 'ghost'],
      {},
      "No profile is named 'ghost' (profiles: main, staging); log in with `topup auth login --profile ghost`.",
    ],
    [
      'no name and no terminal',
      ['auth', 'switch'],
      {},
      'Which profile? Pass --profile NAME (profiles: main, staging); there is no terminal to ask on.',
    ],
    [
      'no name and --no-input on a terminal',
      ['--no-input', '--no-color', 'auth', 'switch'],
      { tty: true },
      'Which profile? Pass --profile NAME (profiles: main, staging); --no-input is set.',
    ],
    [
      'no name and TOPUP_NO_PROMPT on a terminal',
      ['--no-color', 'auth', 'switch'],
      { tty: true, env: { TOPUP_NO_PROMPT: '1' } },
      'Which profile? Pass --profile NAME (profiles: main, staging); TOPUP_NO_PROMPT is set.',
    ],
  ])('%s: usage error (exit 2), the current profile unchanged', async (_name, args, options, message) => {
    const result = await topup(args, options);
    expect(result).toEqual({ code: 2, out: '', err: `Error: ${message}\n` });
    expect(currentProfile()).toBe('main');
  });

  it('on a terminal without --profile: picks from the profiles, the current one first chosen', async () => {
    const prompter = scriptedPrompter([{ select: 'staging' }]);
    const result = await topup(['--no-color', 'auth', 'switch'], { tty: true, prompter });
    expect(prompter.asked).toEqual([
      { kind: 'select', message: 'Switch to which profile?', choices: ['main', 'staging'], default: 'main' },
    ]);
    expect(result).toEqual({ code: 0, out: '', err: `✓ Switched to profile staging (${served.url}).\n` });
    expect(result.err).not.toMatch(ANSI_ESCAPE);
    expect(currentProfile()).toBe('staging');
  });

  it('Ctrl-C at the question: exit 130, quietly, nothing changed', async () => {
    const result = await topup(['auth', 'switch'], { tty: true, prompter: scriptedPrompter([{ cancel: true }]) });
    expect(result).toEqual({ code: 130, out: '', err: '' });
    expect(currentProfile()).toBe('main');
  });
});

describe('auth switch without profiles', () => {
  it('is exit 1 with what to do', async () => {
    expect(await topup(['auth', 'switch', '--profile', 'main'])).toEqual({
      code: 1,
      out: '',
      err: 'Error: There are no profiles to switch to; log in with `topup auth login`.\n',
    });
  });
});
