import { chmodSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkProfileName, CONFIG_FILE, CREDENTIALS_FILE, Settings } from '../../src/cli/settings.js';
import { tempConfigDir } from '../support/fake-io.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const modeOf = (file: string) => statSync(join(config.dir, file)).mode & 0o777;
const readJson = (file: string) => JSON.parse(readFileSync(join(config.dir, file), 'utf8')) as unknown;

const prod = { base_url: 'https://shop.example.com', mode: 'production' as const, username: 'rich' };
const local = { base_url: 'http://127.0.0.1:4010', mode: 'sandbox' as const, username: 'demo' };

describe('Settings', () => {
  it('an empty folder has no profiles, no current profile and no tokens', () => {
    const settings = Settings.load(join(config.dir, 'not-created-yet'));
    expect(settings.currentProfile()).toBeUndefined();
    expect(settings.profileNames()).toEqual([]);
    expect(settings.profile('default')).toBeUndefined();
    expect(settings.token('default')).toBeUndefined();
    expect(settings.credentialsExposed()).toBe(false);
  });

  it('saveProfile writes the profile to config.json and only the token to credentials.json, both mode 0600', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    expect(modeOf(CONFIG_FILE)).toBe(0o600);
    expect(modeOf(CREDENTIALS_FILE)).toBe(0o600);
    expect(readJson(CONFIG_FILE)).toEqual({ current_profile: 'default', profiles: { default: prod } });
    expect(readJson(CREDENTIALS_FILE)).toEqual({ tokens: { default: 'topup_live_secret_1' } });
    expect(readFileSync(join(config.dir, CONFIG_FILE), 'utf8')).not.toContain('topup_live_secret_1');
  });

  it('what one instance saves, a fresh load reads back', async () => {
    const first = Settings.load(config.dir);
    await first.saveProfile('default', prod, 'topup_live_secret_1', true);
    await first.saveProfile('staging', local, 'topup_test_secret_2', false);
    const again = Settings.load(config.dir);
    expect(again.currentProfile()).toBe('default');
    expect(again.profileNames()).toEqual(['default', 'staging']);
    expect(again.profile('staging')).toEqual(local);
    expect(again.token('staging')).toBe('topup_test_secret_2');
  });

  it('updateProfile changes fields and keeps the token; an unknown profile is an error', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    await settings.updateProfile('default', { chat_user_id: '700000001' });
    expect(Settings.load(config.dir).profile('default')).toEqual({ ...prod, chat_user_id: '700000001' });
    expect(Settings.load(config.dir).token('default')).toBe('topup_live_secret_1');
    await expect(settings.updateProfile('ghost', { chat_user_id: '1' })).rejects.toMatchObject({
      name: 'UsageError',
      message: "No profile is named 'ghost' (profiles: default); log in with `topup auth login --profile ghost`.",
    });
  });

  it('setCurrentProfile needs an existing profile', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    await settings.saveProfile('staging', local, 'topup_test_secret_2', false);
    await settings.setCurrentProfile('staging');
    expect(Settings.load(config.dir).currentProfile()).toBe('staging');
    await expect(settings.setCurrentProfile('ghost')).rejects.toMatchObject({
      name: 'UsageError',
      message: "No profile is named 'ghost' (profiles: default, staging); log in with `topup auth login --profile ghost`.",
    });
  });

  it('removeProfile forgets the profile, its token and the current pointer; other profiles stay', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    await settings.saveProfile('staging', local, 'topup_test_secret_2', false);
    expect(await settings.removeProfile('default')).toBe(true);
    const again = Settings.load(config.dir);
    expect(again.currentProfile()).toBeUndefined();
    expect(again.profileNames()).toEqual(['staging']);
    expect(again.token('default')).toBeUndefined();
    expect(again.token('staging')).toBe('topup_test_secret_2');
    expect(readFileSync(join(config.dir, CREDENTIALS_FILE), 'utf8')).not.toContain('topup_live_secret_1');
    expect(await settings.removeProfile('default')).toBe(false);
  });

  it('names that could be prototype keys are not profiles', () => {
    const settings = Settings.load(config.dir);
    expect(settings.profile('constructor')).toBeUndefined();
    expect(settings.token('__proto__')).toBeUndefined();
  });

  it('credentialsExposed is true once credentials.json is readable by others', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    expect(settings.credentialsExposed()).toBe(false);
    chmodSync(join(config.dir, CREDENTIALS_FILE), 0o644);
    expect(settings.credentialsExposed()).toBe(true);
  });

  it.each([
    [CONFIG_FILE, '{"profiles": {', 'is not valid JSON'],
    [CREDENTIALS_FILE, '{"tokens": {"a": "b"}', 'is not valid JSON'],
    [CREDENTIALS_FILE, '[1, 2]', 'holds a list instead of an object'],
    [CONFIG_FILE, 'null', 'holds null instead of an object'],
    [CONFIG_FILE, '42', 'holds a number instead of an object'],
  ])('a damaged %s (%s) is one clear error, never silently wiped', (file, text, problem) => {
    writeFileSync(join(config.dir, file), text);
    expect(() => Settings.load(config.dir)).toThrow(`${join(config.dir, file)} ${problem}; fix it or delete it.`);
    expect(readFileSync(join(config.dir, file), 'utf8')).toBe(text);
  });

  it.each([CONFIG_FILE, CREDENTIALS_FILE])('a %s past 4 MiB is refused by its size, never read whole, and left as it is', (file) => {
    const path = join(config.dir, file);
    writeFileSync(path, '{}');
    truncateSync(path, 4 * 2 ** 20 + 1);
    expect(() => Settings.load(config.dir)).toThrow(`${path} is larger than 4 MiB, more than a settings file can be; fix it or delete it.`);
    expect(statSync(path).size).toBe(4 * 2 ** 20 + 1);
  });

  it('a save that would make a settings file larger than it can be read refuses and writes nothing', async () => {
    const settings = Settings.load(config.dir);
    await settings.saveProfile('default', prod, 'topup_live_secret_1', true);
    // Just under the limit: readable, and one more token cannot fit.
    const tokens = { default: 'topup_live_secret_1', big: 'x'.repeat(4 * 2 ** 20 - 100) };
    writeFileSync(join(config.dir, CREDENTIALS_FILE), `${JSON.stringify({ tokens }, null, '\t')}\n`);
    const loaded = Settings.load(config.dir);
    expect(loaded.token('big')).toHaveLength(4 * 2 ** 20 - 100);
    const before = readFileSync(join(config.dir, CREDENTIALS_FILE), 'utf8');
    await expect(loaded.saveProfile('staging', local, 'topup_test_secret_2'.repeat(10), false)).rejects.toThrow(
      `Cannot save ${join(config.dir, CREDENTIALS_FILE)}: it would be larger than 4 MiB, the most a settings file can be; remove profiles you no longer use (topup auth logout --profile NAME).`,
    );
    expect(readFileSync(join(config.dir, CREDENTIALS_FILE), 'utf8')).toBe(before);
    expect(Settings.load(config.dir).profileNames()).toEqual(['default']);
  });
});

describe('checkProfileName', () => {
  it.each(['default', 'staging-2', 'bot_1', 'A', 'x'.repeat(32)])('accepts %j', (name) => {
    expect(() => checkProfileName(name)).not.toThrow();
  });

  it.each(['', '-lead', '_lead', 'has space', 'dot.ted', 'slash/y', 'x'.repeat(33), '../up'])('refuses %j as a usage error', (name) => {
    expect(() => checkProfileName(name)).toThrow(
      expect.objectContaining({ name: 'UsageError', message: expect.stringContaining('is not a valid profile name') }),
    );
  });

  it('saveProfile refuses a bad name before writing anything', async () => {
    const settings = Settings.load(config.dir);
    await expect(settings.saveProfile('../evil', prod, 'topup_live_secret_1', true)).rejects.toMatchObject({ name: 'UsageError' });
    expect(() => statSync(join(config.dir, CREDENTIALS_FILE))).toThrow();
  });
});
