import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lockStateFile } from '../../mocks/state/lock.js';
import { formatMark, systemProbe } from '../../src/process-mark.js';
import { baseEnv, ensureBuilt, topup } from '../e2e/built-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'topup-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MOCKS = pathToFileURL(join(import.meta.dirname, '../../dist/mocks.js')).href;

/**
 * Opens the state file with `topup/mocks`' openStateFile at one instant in every process, holds it a moment, and logs
 * in/out. Each process says it is ready once loaded; the test then names the instant (in the go file), so a slow
 * machine delays the race instead of spoiling it.
 */
const WORKER = `
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const { openStateFile } = await import(${JSON.stringify(MOCKS)});
const [file, log, go] = process.argv.slice(1);
appendFileSync(log, 'ready\\n');
while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 5));
const startAt = Number(readFileSync(go, 'utf8'));
while (Date.now() < startAt) {}
const state = await openStateFile(file, { waitMs: 30_000 });
appendFileSync(log, 'in\\n');
await new Promise((resolve) => setTimeout(resolve, 25));
appendFileSync(log, 'out\\n');
await state.close();
`;

/** A pid that no process has: one that just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the state file lock', () => {
  it('lets exactly one of many processes take over a lock abandoned by a dead process at a time', async () => {
    const processes = 6;
    for (let round = 0; round < 2; round++) {
      const file = join(dir, `state-${round}.json`);
      const log = join(dir, `log-${round}`);
      writeFileSync(`${file}.lock`, String(deadPid()));
      writeFileSync(log, '');
      const go = join(dir, `go-${round}`);
      const exits = Array.from(
        { length: processes },
        () =>
          new Promise<number | null>((resolve) => {
            spawn(process.execPath, ['--input-type=module', '-e', WORKER, file, log, go], { stdio: 'inherit' }).on('exit', resolve);
          }),
      );
      while (
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line === 'ready').length < processes
      )
        await new Promise((resolve) => setTimeout(resolve, 10));
      writeFileSync(go, String(Date.now() + 300));
      const codes = await Promise.all(exits);
      expect(codes).toEqual(Array(processes).fill(0));
      const events = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter((line) => line !== 'ready');
      expect(events).toHaveLength(2 * processes);
      // Inside one at a time: in, out, in, out…
      expect(events).toEqual(Array.from({ length: 2 * processes }, (_, i) => (i % 2 === 0 ? 'in' : 'out')));
    }
  }, 60_000);
});

describe.runIf(process.platform === 'linux')('a lock whose pid was given to another process', () => {
  const sleepers: ChildProcess[] = [];
  afterAll(() => {
    for (const sleeper of sleepers) sleeper.kill();
  });

  /** A live process that holds no lock: what a crashed owner's pid may belong to after a reboot. */
  async function liveStranger(): Promise<number> {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    sleepers.push(sleeper);
    await new Promise((resolve) => sleeper.once('spawn', resolve));
    return sleeper.pid!;
  }

  /** The mark a process with `pid` would have written had it started at another tick of this boot. */
  function earlierIncarnation(pid: number): string {
    const [boot, namespace, ticks] = systemProbe().startOf(pid)!.split(':');
    return `${pid} ${boot}:${namespace}:${Number(ticks) - 1}`;
  }

  it('is taken over at once by the offline CLI, where it used to be waited on until the command gave up', async () => {
    ensureBuilt();
    const configDir = mkdtempSync(join(dir, 'config-'));
    const env = baseEnv(configDir);
    expect((await topup(['--mock', 'balance', '--json'], { env })).code).toBe(0);
    const lock = join(configDir, 'sandbox-state.json.lock');
    writeFileSync(lock, earlierIncarnation(await liveStranger()));
    const run = await topup(['--mock', 'balance', '--json'], { env });
    expect(run.stderr).not.toContain('busy');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('balance');
    expect(existsSync(lock)).toBe(false);
  }, 60_000);

  it("naming this very pid with another start (a restarted container's predecessor): taken over", async () => {
    const file = join(dir, 'own-pid.json');
    writeFileSync(`${file}.lock`, earlierIncarnation(process.pid));
    const release = await lockStateFile(file, { waitMs: 0 });
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(formatMark(systemProbe().own));
    await release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a live owner is still waited on: its own mark, or a pid alone as older versions wrote it', async () => {
    const stranger = await liveStranger();
    for (const [name, text] of <[string, string][]>[
      ['live-mark', formatMark({ pid: stranger, start: systemProbe().startOf(stranger)! })],
      ['pid-only', String(stranger)],
    ]) {
      const file = join(dir, `${name}.json`);
      writeFileSync(`${file}.lock`, text);
      await expect(lockStateFile(file, { waitMs: 0 })).rejects.toThrow(
        `The state file ${file} is in use by another process (${stranger}).`,
      );
      expect(readFileSync(`${file}.lock`, 'utf8')).toBe(text);
    }
  });

  it('a lock that names no process is left alone, and the refusal says how to clear it, not to try again', async () => {
    for (const [name, text] of <[string, string][]>[
      ['empty', ''],
      ['garbage', 'not a pid'],
    ]) {
      const file = join(dir, `${name}.json`);
      writeFileSync(`${file}.lock`, text);
      await expect(lockStateFile(file, { waitMs: 0 })).rejects.toThrow(
        `The state file's lock ${file}.lock names no process (topup never leaves one so): if no topup command or \`topup mock serve\` uses ${file}, remove the lock file.`,
      );
      expect(readFileSync(`${file}.lock`, 'utf8')).toBe(text);
    }
  });
});
