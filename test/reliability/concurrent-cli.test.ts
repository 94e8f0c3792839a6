import { fixtureAccount, type Fixtures } from '../../mocks/store/fixtures.js';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/spawn-cli.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'topup-concurrent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const topup = (...args: string[]) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, TOPUP_CONFIG_DIR: dir, NO_COLOR: '1' } });

describe('two CLI processes on the offline sandbox', () => {
  it('lose no update: every paid deposit of both is in the final balance', async () => {
    const perProcess = 8;
    const worker = async () => {
      for (let i = 0; i < perProcess; i++) await topup('mock', 'deposit', '10000', '--paid');
    };
    await Promise.all([worker(), worker()]);
    const { stdout } = await topup('mock', 'fixtures', '--json');
    const demo = fixtureAccount(JSON.parse(stdout) as Fixtures, 'demo');
    expect(demo.balance).toBe(2 * perProcess * 10_000);
  }, 60_000);
});

describe('CLI processes changing the settings at once', () => {
  it('lose no profile, token or setting: each change waits for the others and reads the files again', async () => {
    const { createSandbox, startHttpSandbox } = await import('../../mocks/index.js');
    const sandbox = await createSandbox({ rateLimit: false });
    const server = await startHttpSandbox(sandbox, { port: 0 });
    const settings = mkdtempSync(join(tmpdir(), 'topup-settings-'));
    const cli = (args: string[], stdin?: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOPUP_CONFIG_DIR: settings, NO_COLOR: '1' } });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
        child.stdin.end(stdin ?? '');
      });
    try {
      const logins = 10;
      const demo = sandbox.account('demo').token;
      const results = await Promise.all(
        Array.from({ length: logins }, (_, i) =>
          cli(['auth', 'login', '--with-token', '--base-url', server.url, '--profile', `p${i}`], demo),
        ),
      );
      for (const result of results) expect(result).toMatchObject({ code: 0 });
      // Every profile with its token: each answers as the account it was logged in as.
      const listed = JSON.parse(
        (await run(process.execPath, [BIN, '--json', 'config', 'list'], { env: { ...process.env, TOPUP_CONFIG_DIR: settings } })).stdout,
      ) as { profiles: string[] };
      expect([...listed.profiles].sort()).toEqual(Array.from({ length: logins }, (_, i) => `p${i}`).sort());
      const tokens = JSON.parse(readFileSync(join(settings, 'credentials.json'), 'utf8')) as { tokens: Record<string, string> };
      expect(Object.keys(tokens.tokens).sort()).toEqual([...listed.profiles].sort());

      const sets = await Promise.all(
        Array.from({ length: logins }, (_, i) => cli(['config', 'set', 'chat_user_id', `7000${i}`, '--profile', `p${i}`])),
      );
      for (const result of sets) expect(result).toMatchObject({ code: 0 });
      const config = JSON.parse(readFileSync(join(settings, 'config.json'), 'utf8')) as {
        profiles: Record<string, { chat_user_id?: string }>;
      };
      for (let i = 0; i < logins; i++) expect(config.profiles[`p${i}`]?.chat_user_id).toBe(`7000${i}`);
      expect(existsSync(join(settings, 'settings.lock'))).toBe(false);
    } finally {
      await server.close();
      rmSync(settings, { recursive: true, force: true });
    }
  }, 90_000);
});
