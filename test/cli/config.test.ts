import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { LEAN } from '../support/cli-assertions.js';
import { useServedCli, type ServedSandbox } from './run-cli.js';

let served: ServedSandbox;
let config: { dir: string };
const topup = useServedCli((context) => {
  served = context.served;
  config = { dir: context.configDir };
});

const readConfig = () =>
  JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8')) as {
    current_profile?: string;
    profiles: Record<string, Record<string, string>>;
  };

async function loginBoth() {
  expect(
    (await topup(['auth', 'login', '--with-token', '--base-url', served.url, '--profile', 'local'], { stdin: served.token('demo') })).code,
  ).toBe(0);
  expect((await topup(['auth', 'login', '--with-token', '--base-url', served.url], { stdin: served.token('rich') })).code).toBe(0);
}

describe('config with no profile (the offline sandbox)', () => {
  it('list, piped: every key, empty values for what is not set', async () => {
    const result = await topup(['config', 'list']);
    expect(result).toEqual({ code: 0, out: 'profile: \nbase_url: \nchat_user_id: \nprofiles: \n', err: '' });
  });

  it('list on a terminal says the offline sandbox is in use', async () => {
    const result = await topup(['config', 'list', '--no-color'], { tty: true });
    expect(result.out).toBe(
      [
        'profile       (none: built-in offline sandbox)',
        'base_url      (not set)',
        'chat_user_id  (not set)',
        'profiles      (not set)',
        '',
      ].join('\n'),
    );
  });

  it('list --json has nulls and an empty list', async () => {
    const result = await topup(['config', 'list', '--json']);
    expect(JSON.parse(result.out)).toEqual({ profile: null, base_url: null, chat_user_id: null, profiles: [] });
    expect(result.err).toBe('');
  });

  it('path prints the config folder (TOPUP_CONFIG_DIR), also as JSON', async () => {
    expect(await topup(['config', 'path'])).toEqual({ code: 0, out: `${config.dir}\n`, err: '' });
    expect(JSON.parse((await topup(['config', 'path', '--json'])).out)).toEqual({ path: config.dir });
  });

  it.each<[string, string[], number, string]>([
    [
      'get profile with none current',
      ['config', 'get', 'profile'],
      1,
      'Error: No profile is current; commands use the built-in offline sandbox.\n',
    ],
    [
      'get base_url with no profile',
      ['config', 'get', 'base_url'],
      1,
      'Error: No profile is current (commands use the built-in offline sandbox); log in with `topup auth login`, or name a profile with --profile.\n',
    ],
    [
      'set profile to one that does not exist',
      ['config', 'set', 'profile', 'ghost'],
      1,
      "Error: No profile is named 'ghost'; log in with: topup auth login --profile ghost.\n",
    ],
    [
      'set chat_user_id with no profile',
      ['config', 'set', 'chat_user_id', '1'],
      1,
      'Error: No profile is current (commands use the built-in offline sandbox); log in with `topup auth login`, or name a profile with --profile.\n',
    ],
    [
      'an unknown key',
      ['config', 'get', 'colour'],
      2,
      "Error: Unknown config key 'colour'; valid keys: profile, base_url, chat_user_id.\n",
    ],
    [
      'set token',
      ['config', 'set', 'token', 'topup_live_secret_value'],
      2,
      'Error: The token is not a config value; store it with `topup auth login` (hidden prompt, or --with-token on stdin).\n',
    ],
    [
      'get token',
      ['config', 'get', 'token'],
      2,
      'Error: The token is not a config value; store it with `topup auth login` (hidden prompt, or --with-token on stdin).\n',
    ],
    ['set without a value', ['config', 'set', 'profile'], 2, "Error: missing required argument 'value'\n"],
    ['an unknown subcommand', ['config', 'delete'], 2, "Error: unknown command 'delete'\n"],
  ])('%s → exit %i', async (_name, args, code, err) => {
    const result = await topup(args);
    expect(result).toEqual({ code, out: '', err });
  });

  it('a refused token value never appears in the output', async () => {
    const result = await topup(['config', 'set', 'token', 'topup_live_secret_value']);
    expect(result.err).not.toContain('topup_live_secret_value');
  });
});

describe('config with profiles', () => {
  beforeEach(loginBoth);

  it('get prints the bare value for scripts', async () => {
    expect(await topup(['config', 'get', 'profile'])).toEqual({ code: 0, out: 'default\n', err: '' });
    expect(await topup(['config', 'get', 'base_url'])).toEqual({ code: 0, out: `${served.url}\n`, err: '' });
    expect(JSON.parse((await topup(['config', 'get', 'base_url', '--json'])).out)).toEqual({ base_url: served.url });
  });

  it('an unset chat_user_id is exit 1 naming the profile', async () => {
    expect(await topup(['config', 'get', 'chat_user_id'])).toEqual({
      code: 1,
      out: '',
      err: "Error: chat_user_id is not set for profile 'default'.\n",
    });
  });

  it('set chat_user_id stores it in the current profile (or --profile), and an empty value clears it', async () => {
    expect(await topup(['config', 'set', 'chat_user_id', '700000001'], { stderrTTY: true })).toEqual({
      code: 0,
      out: '',
      err: "✓ Set chat_user_id of profile 'default' to 700000001.\n",
    });
    // Piped, the exit code says it: no chatter.
    expect(await topup(['config', 'set', 'chat_user_id', '700000001'])).toEqual({ code: 0, out: '', err: '' });
    expect(readConfig().profiles.default!.chat_user_id).toBe('700000001');
    expect(JSON.parse((await topup(['config', 'set', 'chat_user_id', '42', '--profile', 'local', '--json'])).out)).toEqual({
      chat_user_id: '42',
    });
    expect(readConfig().profiles.local!.chat_user_id).toBe('42');
    expect((await topup(['config', 'get', 'chat_user_id'], { env: { TOPUP_PROFILE: 'local' } })).out).toBe('42\n');
    expect((await topup(['config', 'set', 'chat_user_id', ''], { stderrTTY: true })).err).toBe(
      "✓ Cleared chat_user_id of profile 'default'.\n",
    );
    expect(readConfig().profiles.default).not.toHaveProperty('chat_user_id');
  });

  it('a chat_user_id with spaces is a usage error', async () => {
    expect(await topup(['config', 'set', 'chat_user_id', '700 001'])).toEqual({
      code: 2,
      out: '',
      err: 'Error: chat_user_id must be 1 to 64 visible characters without spaces.\n',
    });
  });

  it('set profile switches the current profile', async () => {
    expect(await topup(['config', 'set', 'profile', 'local'], { stderrTTY: true })).toEqual({
      code: 0,
      out: '',
      err: `✓ Current profile: local (${served.url}).\n`,
    });
    expect(readConfig().current_profile).toBe('local');
    const status = await topup(['auth', 'status', '--json']);
    // An array of every profile, the active one first.
    expect((JSON.parse(status.out) as unknown[])[0]).toMatchObject({
      profile: 'local',
      active: true,
      username: LEAN ? null : 'demo',
      mode: 'sandbox',
    });
  });

  it('set base_url: the same server in another spelling is fine, another server with a stored token is refused', async () => {
    const port = new URL(served.url).port;
    expect((await topup(['config', 'set', 'base_url', `http://127.0.0.1:${port}/`])).code).toBe(0);
    expect(readConfig().profiles.default!.base_url).toBe(served.url);
    const moved = await topup(['config', 'set', 'base_url', 'https://elsewhere.example.com']);
    expect(moved).toEqual({
      code: 1,
      out: '',
      err: `Error: Profile 'default' holds a token for ${served.url}; to use another server, log in to it: topup auth login --base-url https://elsewhere.example.com --profile default.\n`,
    });
    expect(readConfig().profiles.default!.base_url).toBe(served.url);
  });

  it('set base_url refuses what the client refuses', async () => {
    const result = await topup(['config', 'set', 'base_url', 'http://shop.example.com']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/plain http:\/\/ to a host that is not loopback/);
  });

  it('list, piped and --json: the current profile, its values and all profile names', async () => {
    await topup(['config', 'set', 'chat_user_id', '700000001']);
    expect((await topup(['config', 'list'])).out).toBe(
      `profile: default\nbase_url: ${served.url}\nchat_user_id: 700000001\nprofiles: default, local\n`,
    );
    expect(JSON.parse((await topup(['config', 'list', '--json', '--profile', 'local'])).out)).toEqual({
      profile: 'default',
      base_url: served.url,
      chat_user_id: null,
      profiles: ['default', 'local'],
    });
  });

  it('list with --profile naming no profile is exit 1', async () => {
    expect(await topup(['config', 'list', '--profile', 'ghost'])).toEqual({
      code: 1,
      out: '',
      err: "Error: No profile is named 'ghost'; log in with: topup auth login --profile ghost.\n",
    });
  });
});

describe('config help', () => {
  it.each([['config'], ['config', 'list'], ['config', 'get'], ['config', 'set'], ['config', 'path']])(
    '%j has a description and examples',
    async (...path) => {
      const result = await topup([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/Examples:\n {2}\$ /);
    },
  );
});
