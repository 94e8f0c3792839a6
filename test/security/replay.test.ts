import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPersistentSandbox } from '../../mocks/assembly/persistent-sandbox.js';
import { runCli } from '../cli/run-cli.js';
import { ensureBuilt } from '../e2e/built-cli.js';
import { spawnServe } from '../support/spawn-cli.js';

/*
 * Replay that loses nothing quietly (mocks/state/change-log.ts): a torn last line is left out with a notice; a complete
 * line that is damaged anywhere stops start-up naming the file and the line, until --repair keeps a copy, says what
 * it dropped, and moves invoice numbering past every code the dropped lines acknowledged.
 */

let dir: string;
let file: string;
let journal: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-replay-'));
  file = join(dir, 'state.json');
  journal = `${file}.journal`;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Three paid deposits, one journal line each; their invoice codes. */
async function threeDeposits(): Promise<string[]> {
  const opened = await openPersistentSandbox(file, { rateLimit: false });
  const codes: string[] = [];
  for (let i = 0; i < 3; i++)
    codes.push((await opened.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true })).invoice_code);
  await opened.close();
  return codes;
}

/** Changes one byte inside line `n` (1-based) of the journal, keeping it valid JSON: a digit of its invoice code. */
async function flipByteInLine(n: number): Promise<string> {
  const lines = (await readFile(journal, 'utf8')).split('\n');
  const line = lines[n - 1]!;
  const at = line.search(/INV\d{14}/) + 16;
  lines[n - 1] = `${line.slice(0, at)}${line[at] === '9' ? '8' : '9'}${line.slice(at + 1)}`;
  const damaged = lines.join('\n');
  await writeFile(journal, damaged);
  return damaged;
}

const codesOf = async (opened: Awaited<ReturnType<typeof openPersistentSandbox>>) =>
  (opened.sandbox.snapshot().tables.invoices as { invoice_code: string }[]).map((i) => i.invoice_code);

describe('replaying a state journal', () => {
  it('a torn last line (no newline) is left out, with a notice', async () => {
    const codes = await threeDeposits();
    const torn = '{"journal_id":"x","seq":4,"tables":{"invoices":{"put":[{"invoice_';
    await appendFile(journal, torn);
    const opened = await openPersistentSandbox(file);
    expect(opened.notices).toEqual([
      `Left out the unfinished last line (line 4, ${torn.length} bytes) of ${journal}: a write cut short, never acknowledged.`,
    ]);
    expect(await codesOf(opened)).toEqual(expect.arrayContaining(codes));
    await opened.close();
  });

  it.each([
    ['the last line', 3],
    ['a line in the middle', 2],
  ])('one byte changed in %s stops start-up, naming the file and the line', async (_, line) => {
    await threeDeposits();
    const damaged = await flipByteInLine(line);
    await expect(openPersistentSandbox(file)).rejects.toThrow(
      `The state journal ${journal} is damaged at line ${line} (its checksum does not match).`,
    );
    expect(await readFile(journal, 'utf8')).toBe(damaged);
  });

  it('a line that is not JSON at all, in the middle, stops start-up too', async () => {
    await threeDeposits();
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines[1] = '{"not json';
    await writeFile(journal, lines.join('\n'));
    await expect(openPersistentSandbox(file)).rejects.toThrow(`The state journal ${journal} is damaged at line 2 (it has no checksum).`);
  });

  it('repair keeps a copy, says what it dropped, and never hands out a dropped invoice code again', async () => {
    const codes = await threeDeposits();
    const damaged = await flipByteInLine(3);
    const repaired = await openPersistentSandbox(file, { rateLimit: false, repair: true });
    const [dropped, kept] = repaired.notices;
    expect(dropped).toMatch(
      new RegExp(`^Dropped line 3 of ${journal} \\(its checksum does not match, \\d+ bytes; it named (INV\\d{14}(, )?)+\\)\\.$`),
    );
    const copy = /kept as (.*)\.$/.exec(kept!)![1]!;
    expect(await readFile(copy, 'utf8')).toBe(damaged);
    expect(await codesOf(repaired)).toEqual(expect.arrayContaining(codes.slice(0, 2)));
    expect(await codesOf(repaired)).not.toContain(codes[2]);
    const next = (await repaired.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true })).invoice_code;
    expect(codes).not.toContain(next);
    expect(next > codes[2]!).toBe(true);
    await repaired.close();
    // Whole again: it opens without --repair, with the new deposit.
    const again = await openPersistentSandbox(file);
    expect(again.notices).toEqual([]);
    expect(await codesOf(again)).toContain(next);
    await again.close();
    expect((await readdir(dir)).filter((name) => name.includes('.bad-'))).toHaveLength(1);
  });

  it('repair of a line in the middle keeps the lines after it', async () => {
    const codes = await threeDeposits();
    await flipByteInLine(2);
    const repaired = await openPersistentSandbox(file, { repair: true });
    expect(repaired.notices[0]).toMatch(/^Dropped line 2 of /);
    const restored = await codesOf(repaired);
    expect(restored).toEqual(expect.arrayContaining([codes[0], codes[2]]));
    await repaired.close();
  });
});

describe('the embedded sandbox (in-process CLI)', () => {
  it('a damaged journal is refused naming the line; `topup mock state repair` recovers without reusing a code', async () => {
    const configDir = join(dir, 'config');
    const deposit = async () => {
      const result = await runCli(configDir, ['mock', 'deposit', '10000', '--paid']);
      expect(result.code).toBe(0);
      return result.out.trim();
    };
    const codes = [await deposit(), await deposit()];
    journal = join(configDir, 'sandbox-state.json.journal');
    await flipByteInLine(2);
    const refused = await runCli(configDir, ['balance']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `Error: The state journal ${journal} is damaged at line 2 (its checksum does not match); run \`topup mock state repair\``,
    );
    const repaired = await runCli(configDir, ['mock', 'state', 'repair']);
    expect(repaired.code).toBe(0);
    expect(repaired.err).toContain(`Dropped line 2 of ${journal}`);
    expect(codes).not.toContain(await deposit());
  });
});

describe('mock serve --state (built CLI)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('refuses a damaged journal naming file, line and --repair; --repair starts and keeps the copy', async () => {
    const codes = await threeDeposits();
    await flipByteInLine(3);
    const refused = await spawnServe(['--state', file]).then(
      (served) => {
        served.child.kill('SIGKILL');
        return 'started';
      },
      (error: unknown) => (error as Error).message,
    );
    expect(refused).toContain(
      // --json: the error is an envelope on stderr.
      `"message":"The state journal ${journal} is damaged at line 3 (its checksum does not match); start with --repair to keep a copy of it and go on without what is damaged.`,
    );
    const served = await spawnServe(['--state', file, '--repair']);
    try {
      const answer = (await (
        await fetch(`${served.url}/__sandbox/deposits`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ account: 'demo', amount: 50_000 }),
        })
      ).json()) as { data: { invoice_code: string } };
      expect(codes).not.toContain(answer.data.invoice_code);
    } finally {
      served.child.kill('SIGINT');
      await served.exited;
    }
    expect((await readdir(dir)).filter((name) => name.startsWith('state.json.journal.bad-'))).toHaveLength(1);
  }, 40_000);
});
