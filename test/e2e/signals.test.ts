import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, ROOT, serveMock, topup, topupCommand, type ServedMock } from './built-cli.js';

/**
 * Signals reach the built binary as a shell delivers them: Ctrl-C is 130, SIGTERM (a supervisor, `timeout`,
 * `docker stop`) is 143, both with nothing but the progress already printed.
 */
let configDir: string;
let served: ServedMock;
beforeAll(async () => {
  ensureBuilt();
  configDir = mkdtempSync(join(tmpdir(), 'topup-signals-'));
  served = await serveMock(baseEnv(configDir));
}, 120_000);
afterAll(async () => {
  await served?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

/** Spawns `topup invoices status INV --wait`, and once its first poll is on stderr, sends `signal`. */
function waitThenSignal(invoice: string, signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const token = fixtureAccount(served, 'demo').token;
  const env = { ...baseEnv(configDir), TOPUP_TOKEN: token };
  const [command, args] = topupCommand(['invoices', 'status', invoice, '--wait', '--base-url', served.url]);
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (/next check in/.test(stderr)) child.kill(signal);
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.stdin.end();
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('signals', () => {
  it.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('%s during a wait exits %i, quietly', async (signal, code) => {
    const token = fixtureAccount(served, 'demo').token;
    const created = await topup(
      ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--base-url', served.url],
      { env: { ...baseEnv(configDir), TOPUP_TOKEN: token } },
    );
    expect(created.code).toBe(0);
    const result = await waitThenSignal(created.stdout.trim(), signal);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/Error|at .*\(/);
  });
});
