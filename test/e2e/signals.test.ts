import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** SIGTERM to a process group; one that is gone already (it stopped by itself) is no error. */
function stopGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

describe('mock serve whose stdout reader goes away', () => {
  it('keeps serving: a runner that reads only the banner (`| head -1`) does not stop the sandbox it started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-serve-pipe-'));
    const ready = join(dir, 'url');
    const [command, args] = topupCommand(['mock', 'serve', '--fresh', '--port', '0', '--ready-file', ready]);
    // `true` exits at once: every line the sandbox writes to stdout meets a closed pipe.
    const quoted = [command, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
    // By its path: the executable's runs have a PATH without node's folder, which on a merged /usr holds sh too.
    const group = spawn('/bin/sh', ['-c', `${quoted} | true`], { cwd: ROOT, env: baseEnv(dir), stdio: 'ignore', detached: true });
    try {
      let url: string | undefined;
      for (let waited = 0; url === undefined && waited < 15_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        url = existsSync(ready) ? readFileSync(ready, 'utf8').trim() || undefined : undefined;
      }
      expect(url).toBeDefined();
      // Past the banner: each of its lines has met the closed pipe by now.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const health = await fetch(`${url}/api/v1/health`);
      expect(health.status).toBe(200);
      expect(existsSync(ready)).toBe(true);
    } finally {
      // The sandbox and the shell; gone already when the sandbox stopped by itself.
      if (group.pid !== undefined) stopGroup(group.pid);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('mock serve stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: exit 0 once it has closed and saved its state (help exit-codes)',
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), 'topup-serve-signal-'));
      const ready = join(dir, 'url');
      const state = join(dir, 'state.json');
      try {
        const [command, args] = topupCommand(['mock', 'serve', '--state', state, '--port', '0', '--ready-file', ready]);
        const child = spawn(command, args, { cwd: ROOT, env: baseEnv(dir), stdio: 'ignore' });
        const closed = new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
        let url: string | undefined;
        for (let waited = 0; url === undefined && waited < 15_000; waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          url = existsSync(ready) ? readFileSync(ready, 'utf8').trim() || undefined : undefined;
        }
        expect(url).toBeDefined();
        const order = await fetch(`${url}/api/v1/me/orders`, {
          method: 'POST',
          headers: { authorization: 'Bearer topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc', 'content-type': 'application/json' },
          body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
        });
        expect(order.status).toBe(201);
        child.kill(signal);
        const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
        expect(await closed).toBe(0);
        clearTimeout(guard);
        // What it served is in the state it left, and its ready file is gone.
        expect(readFileSync(state, 'utf8')).toContain('BuilderBob');
        expect(existsSync(ready)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

describe('orders batch whose stdout reader goes away', () => {
  it('stops after the row in flight, says so with the resume command, and exits 130 (not 0 with rows unsent)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-batch-pipe-'));
    try {
      const input = join(dir, 'rows.csv');
      const rows = Array.from({ length: 40 }, (_, i) => `BuilderBob,5001,9001,pipe-${i}`);
      writeFileSync(input, `username,place,pass,reference\n${rows.join('\n')}\n`);
      const [command, args] = topupCommand(['--mock', 'orders', 'batch', input]);
      const child = spawn(command, args, { cwd: ROOT, env: baseEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // A reader that takes the first line and goes away, as `| head -1` does.
      child.stdout.once('data', () => child.stdout.destroy());
      const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
      clearTimeout(guard);
      expect(code).toBe(130);
      expect(stderr).toMatch(/Its output was closed: stopped after the row in flight; \d+ rows not sent\. Resume with:\n {2}topup /);
      const results = readFileSync(`${input}.results.jsonl`, 'utf8').trim().split('\n');
      expect(results.length).toBeLessThan(1 + 2 * 40);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * Spawns topup with `stdin` as given, sends `signal` after `delayMs`, and resolves with its exit code once it ends (or
 * null when it had to be killed: it did not end within 10 s of the signal).
 */
async function signalled(argv: string[], signal: NodeJS.Signals, stdin: 'pipe' | 'ignore'): Promise<number | null> {
  const [command, args] = topupCommand(argv);
  const child = spawn(command, args, { cwd: ROOT, env: baseEnv(configDir), stdio: [stdin, 'ignore', 'ignore'] });
  // A pipe on stdin that stays open, as `sleep 600 | topup …` leaves it: its writer (this process) never writes.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  child.kill(signal);
  let killed = false;
  const guard = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 10_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  clearTimeout(guard);
  return killed ? null : code;
}

describe('a signal while input is read from a pipe that nothing writes to', () => {
  let dir: string;
  let fifo: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'topup-fifo-'));
    fifo = join(dir, 'input');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A named pipe that no writer opens: node's own read of it would hold a thread of its pool that the exit waits for.
  it.each<[string, NodeJS.Signals, number, string[]]>([
    ['api --input FIFO', 'SIGINT', 130, ['api', '-X', 'POST', 'me/orders', '--input', '{fifo}']],
    ['api -F x=@FIFO', 'SIGTERM', 143, ['api', '-X', 'POST', 'me/orders', '-F', 'client_reference=@{fifo}']],
    ['mock state load FIFO', 'SIGINT', 130, ['mock', 'state', 'load', '{fifo}']],
    ['orders batch FIFO', 'SIGINT', 130, ['orders', 'batch', '{fifo}', '--format', 'csv', '--batch', 'fifo']],
  ])(
    '%s ends on %s with %i',
    async (_name, signal, code, argv) => {
      const words = ['--mock', ...argv.map((word) => word.replace('{fifo}', fifo))];
      expect(await signalled(words, signal, 'ignore')).toBe(code);
    },
    30_000,
  );

  it.each<[string, NodeJS.Signals, number, string[]]>([
    ['api --input -', 'SIGTERM', 143, ['--mock', 'api', '-X', 'POST', 'me/orders', '--input', '-']],
    ['auth login --with-token', 'SIGINT', 130, ['auth', 'login', '--with-token', '--base-url', 'http://127.0.0.1:9']],
  ])(
    '%s on an open, silent stdin ends on %s with %i',
    async (_name, signal, code, argv) => {
      expect(await signalled(argv, signal, 'pipe')).toBe(code);
    },
    30_000,
  );
});
