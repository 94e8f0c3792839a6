import { fixtureAccount, type Fixtures } from '../../mocks/store/fixtures.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
