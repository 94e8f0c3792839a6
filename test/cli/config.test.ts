import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
    expect(result).toEqual({ code: 0, out: 'profile: \nbase_url: \nchat_user_id: \ntime_zone: \nprofiles: \naccessible: \n', err: '' });
  });

  it('list on a terminal says the offline sandbox is in use', async () => {
    const result = await topup(['config', 'list', '--no-color'], { tty: true });
    expect(result.out).toBe(
      [
        'profile       (none: built-in offline sandbox)',
        'base_url      (not set)',
        'chat_user_id  (not set)',
        'time_zone     (not set)',
        'profiles      (not set)',
        'accessible    (not set)',
        '',
      ].join('\n'),
    );
  });

  it('list --json has nulls and an empty list', async () => {
    const result = await topup(['config', 'list', '--json']);
    expect(JSON.parse(result.out)).toEqual({
      profile: null,
      base_url: null,
      chat_user_id: null,
      time_zone: null,
      profiles: [],
      accessible: null,
    });
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
      2,
      "Error: No profile is named 'ghost' (there are no profiles yet); log in with `topup auth login --profile ghost`.\n",
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
      "Error: Unknown config key 'colour'; valid keys: profile, base_url, chat_user_id, time_zone, accessible.\n",
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
    expect(await topup(['config', 'set', 'chat_user_id', '700000001'], { stderrTTY: true, color: false })).toEqual({
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
    expect((await topup(['config', 'set', 'chat_user_id', ''], { stderrTTY: true, color: false })).err).toBe(
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
    expect(await topup(['config', 'set', 'profile', 'local'], { stderrTTY: true, color: false })).toEqual({
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
      `profile: default\nbase_url: ${served.url}\nchat_user_id: 700000001\ntime_zone: \nprofiles: default, local\naccessible: \n`,
    );
    expect(JSON.parse((await topup(['config', 'list', '--json', '--profile', 'local'])).out)).toEqual({
      profile: 'default',
      base_url: served.url,
      chat_user_id: null,
      time_zone: null,
      profiles: ['default', 'local'],
      accessible: null,
    });
  });

  it('set time_zone stores the zone as the time zone database spells it; get and list show it, with the variable that overrides it', async () => {
    expect(await topup(['config', 'set', 'time_zone', 'asia/JAKARTA'], { stderrTTY: true, color: false })).toEqual({
      code: 0,
      out: '',
      err: "✓ Profile 'default': times without a zone from its server are read as Asia/Jakarta time.\n",
    });
    expect(readConfig().profiles.default!.time_zone).toBe('Asia/Jakarta');
    expect(readConfig().profiles.local).not.toHaveProperty('time_zone');
    expect(await topup(['config', 'get', 'time_zone'])).toEqual({ code: 0, out: 'Asia/Jakarta\n', err: '' });
    const overridden = { env: { TOPUP_SERVER_TIME_ZONE: 'UTC' } };
    expect(await topup(['config', 'list'], overridden)).toMatchObject({
      out: expect.stringContaining('\ntime_zone: Asia/Jakarta\n') as unknown,
      err: 'Note: TOPUP_SERVER_TIME_ZONE=UTC in the environment overrides time_zone here.\n',
    });
    const terminal = await topup(['config', 'list', '--no-color'], { tty: true, ...overridden });
    expect(terminal.out).toContain('\ntime_zone     Asia/Jakarta (TOPUP_SERVER_TIME_ZONE=UTC overrides it here)\n');
    expect(await topup(['config', 'set', 'time_zone', 'Jakarta'])).toEqual({
      code: 2,
      out: '',
      err: 'Error: "Jakarta" is no time zone: name one as Asia/Jakarta or UTC (an empty value clears it).\n',
    });
    expect(readConfig().profiles.default!.time_zone).toBe('Asia/Jakarta');
    expect((await topup(['config', 'set', 'time_zone', ' '], { stderrTTY: true, color: false })).err).toBe(
      "✓ Cleared time_zone of profile 'default': its server's times without a zone are shown as sent.\n",
    );
    expect(readConfig().profiles.default).not.toHaveProperty('time_zone');
    expect((await topup(['config', 'get', 'time_zone'])).code).toBe(1);
  });

  it('list with --profile naming no profile is a usage error that lists the profiles', async () => {
    expect(await topup(['config', 'list', '--profile', 'ghost'])).toEqual({
      code: 2,
      out: '',
      err: "Error: No profile is named 'ghost' (profiles: default, local); log in with `topup auth login --profile ghost`.\n",
    });
  });
});

describe('config accessible: a setting of the person, for every profile', () => {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const CURSOR_MOVEMENT = /\u001b\[[0-9;?]*[A-HJKSTfsu]|\u001b\[\?25[lh]|\u001b[78]|\r/;

  it('set stores it at the top of config.json (0600), beside the profiles; get and list show it, also as JSON', async () => {
    await loginBoth();
    expect(await topup(['config', 'set', 'accessible', 'true'])).toEqual({
      code: 0,
      out: '',
      err: '',
    });
    expect(readConfig()).toMatchObject({ accessible: true, current_profile: 'default' });
    expect(Object.keys(readConfig().profiles.default!)).not.toContain('accessible');
    expect(statSync(join(config.dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(await topup(['config', 'get', 'accessible'])).toEqual({ code: 0, out: 'true\n', err: '' });
    // Whichever profile is named, it is the same one value.
    expect(await topup(['config', 'get', 'accessible', '--profile', 'local'])).toEqual({ code: 0, out: 'true\n', err: '' });
    expect(JSON.parse((await topup(['config', 'get', 'accessible', '--json'])).out)).toEqual({ accessible: true });
    expect((await topup(['config', 'list'])).out).toMatch(/\naccessible: true\n$/);
    expect(JSON.parse((await topup(['config', 'list', '--json', '--profile', 'local'])).out)).toMatchObject({ accessible: true });
    expect(JSON.parse((await topup(['config', 'set', 'accessible', 'off', '--json'])).out)).toEqual({ accessible: false });
    expect(await topup(['config', 'get', 'accessible'])).toEqual({ code: 0, out: 'false\n', err: '' });
  });

  it('on a terminal, set says so, and list says when TOPUP_ACCESSIBLE overrides it', async () => {
    const set = await topup(['config', 'set', 'accessible', 'yes', '--no-color'], { tty: true });
    expect(set.err).toContain('Accessible mode is on for every profile; TOPUP_ACCESSIBLE=0 overrides it for one run.');
    const list = await topup(['config', 'list', '--no-color'], { tty: true, env: { TOPUP_ACCESSIBLE: '0' } });
    expect(list.out).toMatch(/^accessible +true \(TOPUP_ACCESSIBLE=0 overrides it here\)$/m);
  });

  it('piped, list keeps stdout the stored values and says on stderr when TOPUP_ACCESSIBLE overrides them; --json says nothing', async () => {
    expect((await topup(['config', 'set', 'accessible', 'on'])).code).toBe(0);
    const env = { TOPUP_ACCESSIBLE: '0\u001b[2J' };
    const piped = await topup(['config', 'list'], { env });
    expect(piped.code).toBe(0);
    expect(piped.out).toMatch(/\naccessible: true\n$/);
    expect(piped.err).toBe('Note: TOPUP_ACCESSIBLE=0\\x1b[2J in the environment overrides accessible here.\n');
    const json = await topup(['config', 'list', '--json'], { env });
    expect(JSON.parse(json.out)).toMatchObject({ accessible: true });
    expect(json.err).toBe('');
    expect((await topup(['config', 'list'])).err).toBe('');
  });

  it('works with no profile at all (the offline sandbox), and an empty value clears it', async () => {
    expect((await topup(['config', 'set', 'accessible', '1'])).code).toBe(0);
    expect(readConfig()).toEqual({ accessible: true });
    expect((await topup(['config', 'set', 'accessible', ''])).code).toBe(0);
    expect(readConfig()).toEqual({});
    expect(await topup(['config', 'get', 'accessible'])).toEqual({
      code: 1,
      out: '',
      err: 'Error: accessible is not set: accessible mode is off unless TOPUP_ACCESSIBLE=1 is in the environment.\n',
    });
  });

  it('a value that is not a yes or a no is a usage error, and nothing is written', async () => {
    expect(await topup(['config', 'set', 'accessible', 'sometimes'])).toEqual({
      code: 2,
      out: '',
      err: 'Error: accessible must be true or false (or on/off, yes/no, 1/0); an empty value clears it.\n',
    });
    expect(existsSync(join(config.dir, 'config.json'))).toBe(false);
  });

  it('a hand-edited value that is not a boolean is reported with the command that fixes it, never guessed at', async () => {
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ accessible: 'yes' }), { mode: 0o600 });
    const result = await topup(['config', 'get', 'accessible']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('accessible must be true or false; set it with: topup config set accessible true');
    expect((await topup(['config', 'set', 'accessible', 'true'])).code).toBe(0);
    expect(readConfig()).toEqual({ accessible: true });
  });

  it('stored, it turns accessible mode on whichever profile is used; TOPUP_ACCESSIBLE=0 turns it off for a run', async () => {
    await loginBoth();
    const labelled = /^code: CR80, name: 80 Credits/m;
    const drawn = ['packages', '--no-color'];
    // Without it: a table of columns on a terminal.
    expect((await topup(drawn, { tty: true, columns: 100 })).out).not.toMatch(labelled);
    await topup(['config', 'set', 'accessible', 'true']);
    for (const profile of ['default', 'local']) {
      const result = await topup([...drawn, '--profile', profile], { tty: true, columns: 100 });
      expect(result.code, profile).toBe(0);
      expect(result.out, profile).toMatch(labelled);
      expect(result.out + result.err, profile).not.toMatch(CURSOR_MOVEMENT);
    }
    expect((await topup(drawn, { tty: true, columns: 100, env: { TOPUP_ACCESSIBLE: '0' } })).out).not.toMatch(labelled);
    // And the other way round: stored off, the environment turns it on.
    await topup(['config', 'set', 'accessible', 'false']);
    expect((await topup(drawn, { tty: true, columns: 100 })).out).not.toMatch(labelled);
    expect((await topup(drawn, { tty: true, columns: 100, env: { TOPUP_ACCESSIBLE: '1' } })).out).toMatch(labelled);
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
