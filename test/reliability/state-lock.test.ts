import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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
