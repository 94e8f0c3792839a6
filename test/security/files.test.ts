import { link, lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPersistentSandbox } from '../../mocks/assembly/persistent-sandbox.js';
import { writeStateFile } from '../../mocks/state/file.js';
import { requestLogFile } from '../../mocks/state/request-log.js';
import { createNewFile, ensurePrivateDir, readIfExists, readIfExistsSync, replaceFile } from '../../src/safe-file.js';
import type { JournalEntry } from '../../mocks/inspect/request-journal.js';
import { runCli, serveSandbox, type ServedSandbox } from '../cli/run-cli.js';
import { spawnServe } from '../support/spawn-cli.js';
import { baseEnv, ensureBuilt, topup } from '../e2e/built-cli.js';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/*
 * Every file topup keeps, attacked with a link planted at its name (src/safe-file.ts): a symbolic link or a hard link
 * to a victim file outside must be refused with a sentence naming the path, and the victim must stay byte for byte.
 */

let dir: string;
let victim: string;
const VICTIM_TEXT = '{"victim":"do not touch"}\n';
/** A size limit no file of these tests comes near. */
const ANY_SIZE = 2 ** 30;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-files-'));
  await mkdir(join(dir, 'outside'));
  victim = join(dir, 'outside', 'victim.json');
  await writeFile(victim, VICTIM_TEXT, { mode: 0o644 });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A pid that no process has: one that just exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
}

const victimIntact = async () => {
  expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  expect((await stat(victim)).mode & 0o777).toBe(0o644);
};

const plant = {
  symlink: (target: string, path: string) => symlink(target, path),
  'hard link': (target: string, path: string) => link(target, path),
};
const kinds = Object.keys(plant) as (keyof typeof plant)[];
const refusal = (path: string, kind: keyof typeof plant) =>
  `Refusing to use ${path}: ${kind === 'symlink' ? 'it is a symbolic link' : 'it has 1 other hard link(s)'}.`;

/** A sandbox on a state file that already holds a snapshot and a journal line, closed again. */
async function stateWithOneChange(file: string): Promise<void> {
  const opened = await openPersistentSandbox(file, { rateLimit: false });
  await opened.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true });
  await opened.close();
}

describe.each(kinds)('a %s planted at a state file name', (kind) => {
  it('the snapshot: refused at open, the victim untouched', async () => {
    const file = join(dir, 'state.json');
    await plant[kind](victim, file);
    await expect(openPersistentSandbox(file)).rejects.toThrow(refusal(file, kind));
    await victimIntact();
  });

  it('the journal: refused, never appended through', async () => {
    const file = join(dir, 'state.json');
    await stateWithOneChange(file);
    await rm(`${file}.journal`);
    await plant[kind](victim, `${file}.journal`);
    await expect(openPersistentSandbox(file)).rejects.toThrow(refusal(`${file}.journal`, kind));
    await victimIntact();
  });

  it('the lock: refused or waited on, never written', async () => {
    const file = join(dir, 'state.json');
    await plant[kind](victim, `${file}.lock`);
    // A hard link to another file names no process: waited on, and the refusal says no topup holds it.
    const expected =
      kind === 'symlink'
        ? refusal(`${file}.lock`, kind)
        : `The state file's lock ${file}.lock names no process (topup never leaves one so): if no topup command or \`topup mock serve\` uses ${file}, remove the lock file.`;
    await expect(openPersistentSandbox(file, { waitMs: 0 })).rejects.toThrow(expected);
    await victimIntact();
  });

  it("the embedded sandbox's request log: refused, never appended through", async () => {
    const file = join(dir, 'state.json');
    const log = requestLogFile(file);
    await plant[kind](victim, log.path);
    const entry = { id: 1, method: 'GET', path: '/api/v1/me' } as unknown as JournalEntry;
    await expect(log.append([entry])).rejects.toThrow(refusal(log.path, kind));
    await victimIntact();
  });
});

describe('state file aliases', () => {
  it("a state file's second name (hard link) cannot be opened as another state file", async () => {
    const file = join(dir, 'state.json');
    await stateWithOneChange(file);
    const alias = join(dir, 'alias.json');
    await link(file, alias);
    await expect(openPersistentSandbox(alias, { waitMs: 0 })).rejects.toThrow(refusal(alias, 'hard link'));
    await expect(openPersistentSandbox(file, { waitMs: 0 })).rejects.toThrow(refusal(file, 'hard link'));
  });

  it('a snapshot written while symlinks wait at every temp name the old scheme (pid and time) would use', async () => {
    const file = join(dir, 'state.json');
    const now = Date.now();
    for (let i = 0; i < 3_000; i++) await symlink(victim, join(dir, `.state.json.${process.pid}.${now + i}.tmp`));
    await writeStateFile(file, await seedSnapshot());
    await victimIntact();
    expect((await lstat(file)).isFile()).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('a journal without its snapshot is refused and kept byte for byte', async () => {
    const file = join(dir, 'state.json');
    await stateWithOneChange(file);
    await rm(file);
    const journal = await readFile(`${file}.journal`);
    await expect(openPersistentSandbox(file)).rejects.toThrow(
      `The state journal ${file}.journal holds changes, but its snapshot ${file} is missing.`,
    );
    expect(await readFile(`${file}.journal`)).toEqual(journal);
  });
});

async function seedSnapshot() {
  const { createSandbox } = await import('../../mocks/assembly/sandbox.js');
  return (await createSandbox()).snapshot();
}

describe('the one opener (src/safe-file.ts)', () => {
  it('replaceFile refuses a link at the name; a link in a folder above is fine', async () => {
    await symlink(victim, join(dir, 'linked.json'));
    await expect(replaceFile(join(dir, 'linked.json'), 'x')).rejects.toThrow(refusal(join(dir, 'linked.json'), 'symlink'));
    await symlink(join(dir, 'outside'), join(dir, 'linked-folder'));
    await replaceFile(join(dir, 'linked-folder', 'mine.json'), 'mine');
    expect(await readFile(join(dir, 'outside', 'mine.json'), 'utf8')).toBe('mine');
    await victimIntact();
  });

  it('a read that needs the sole name refuses a second one, sync or not; an ordinary read follows neither kind of link', async () => {
    const alias = join(dir, 'alias.json');
    await link(victim, alias);
    await expect(readIfExists(alias, { soleName: true, maxBytes: ANY_SIZE })).rejects.toThrow(refusal(alias, 'hard link'));
    expect(() => readIfExistsSync(alias, { soleName: true, maxBytes: ANY_SIZE })).toThrow(refusal(alias, 'hard link'));
    expect(readIfExistsSync(alias, { maxBytes: ANY_SIZE })?.toString('utf8')).toBe(VICTIM_TEXT);
    const linked = join(dir, 'linked.json');
    await symlink(victim, linked);
    expect(() => readIfExistsSync(linked, { maxBytes: ANY_SIZE })).toThrow(refusal(linked, 'symlink'));
    expect(readIfExistsSync(join(dir, 'missing.json'), { soleName: true, maxBytes: ANY_SIZE })).toBeUndefined();
    await victimIntact();
  });

  it('a read with a size limit refuses a larger file before reading it, sync or not', async () => {
    const file = join(dir, 'eleven.json');
    await writeFile(file, '"123456789"');
    const tooLarge = `${file} is 11 bytes, more than the 10 its reader can use.`;
    await expect(readIfExists(file, { maxBytes: 10 })).rejects.toThrow(tooLarge);
    expect(() => readIfExistsSync(file, { maxBytes: 10 })).toThrow(tooLarge);
    expect((await readIfExists(file, { maxBytes: 11 }))?.toString('utf8')).toBe('"123456789"');
    expect(readIfExistsSync(file, { maxBytes: 11 })?.toString('utf8')).toBe('"123456789"');
  });

  it('a state lock of 600 MiB holds no pid: waited on, said to name no process, never read whole', async () => {
    const file = join(dir, 'state.json');
    await writeFile(`${file}.lock`, '1');
    await truncate(`${file}.lock`, 600 * 2 ** 20);
    await expect(openPersistentSandbox(file, { waitMs: 0 })).rejects.toThrow(`The state file's lock ${file}.lock names no process`);
  });

  // A file whose size says nothing of what it holds: /proc's report 0 bytes. A file that grows between the size check
  // and the read is the same case to the reader, which must stop at the limit rather than trust the size.
  it.runIf(existsSync('/proc/self/status'))(
    'a read with a size limit stops at it when the file holds more than its size said',
    async () => {
      const file = '/proc/self/status';
      expect((await stat(file)).size).toBe(0);
      const holdsMore = `${file} holds more than the 100 bytes its reader can use.`;
      await expect(readIfExists(file, { maxBytes: 100 })).rejects.toThrow(holdsMore);
      expect(() => readIfExistsSync(file, { maxBytes: 100 })).toThrow(holdsMore);
      await expect(readIfExists(file, { maxBytes: 100 })).rejects.toMatchObject({ sizeKnown: false, bytes: 101 });
      // Within the limit, read whole: the buffer grows past its first 8 KiB when the file needs it.
      const smaps = '/proc/self/smaps';
      for (const contents of [await readIfExists(smaps, { maxBytes: ANY_SIZE }), readIfExistsSync(smaps, { maxBytes: ANY_SIZE })]) {
        const text = contents?.toString('utf8') ?? '';
        expect(text.length).toBeGreaterThan(8_192);
        expect(text.startsWith((await readFile(smaps, 'utf8')).slice(0, 20))).toBe(true);
        expect(text.endsWith('\n')).toBe(true);
      }
      expect((await readIfExists(file, { maxBytes: ANY_SIZE }))?.toString('utf8')).toMatch(/^Name:\t/);
    },
  );

  it('createNewFile never writes through anything at its name', async () => {
    await symlink(victim, join(dir, 'new.json'));
    await expect(createNewFile(join(dir, 'new.json'), 'x')).rejects.toMatchObject({ code: 'EEXIST' });
    await victimIntact();
  });

  it('ensurePrivateDir makes missing folders 0700 and refuses a linked last folder', async () => {
    await ensurePrivateDir(join(dir, 'a', 'b'));
    expect(await stat(join(dir, 'a')).then((s) => s.mode & 0o777)).toBe(0o700);
    expect(await stat(join(dir, 'a', 'b')).then((s) => s.mode & 0o777)).toBe(0o700);
    await symlink(join(dir, 'outside'), join(dir, 'linked-folder'));
    await expect(ensurePrivateDir(join(dir, 'linked-folder'))).rejects.toThrow(refusal(join(dir, 'linked-folder'), 'symlink'));
  });
});

describe('credentials and config', () => {
  let served: ServedSandbox;
  beforeAll(async () => {
    served = await serveSandbox();
  });
  afterAll(() => served.close());
  const login = (configDir: string) =>
    runCli(configDir, ['auth', 'login', '--with-token', '--base-url', served.url], { stdin: `${served.token('rich')}\n` });

  it('auth login into a new config folder creates it 0700, with 0600 files', async () => {
    const configDir = join(dir, 'home', 'config', 'topup');
    expect((await login(configDir)).code).toBe(0);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(configDir, 'config.json'))).mode & 0o777).toBe(0o600);
    expect((await readdir(configDir)).sort()).toEqual(['config.json', 'credentials.json']);
  });

  it.each(['credentials.json', 'config.json'])('%s symlinked to another JSON file: login refused, the file untouched', async (name) => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    await symlink(victim, join(configDir, name));
    const result = await login(configDir);
    expect(result.code).toBe(1);
    expect(result.err).toBe(`Error: Refusing to use ${join(configDir, name)}: it is a symbolic link.\n`);
    await victimIntact();
  });

  it('settings.lock symlinked to another file: login refused in one sentence, nothing written, the file untouched', async () => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    await symlink(victim, join(configDir, 'settings.lock'));
    const result = await login(configDir);
    expect(result.code).toBe(1);
    expect(result.err).toBe(`Error: Refusing to use ${join(configDir, 'settings.lock')}: it is a symbolic link.\n`);
    expect((await readdir(configDir)).sort()).toEqual(['settings.lock']);
    await victimIntact();
  });

  it('settings.lock left by a process that no longer runs is taken over at once, and let go after', async () => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    await writeFile(join(configDir, 'settings.lock'), String(deadPid()));
    expect((await login(configDir)).code).toBe(0);
    expect((await readdir(configDir)).sort()).toEqual(['config.json', 'credentials.json']);
  });

  it(
    'settings.lock that names no process (emptied, or written by hand): after the wait, the refusal says to remove it, and it is left',
    { timeout: 30_000 },
    async () => {
      const configDir = join(dir, 'config');
      await mkdir(configDir, { mode: 0o700 });
      const lock = join(configDir, 'settings.lock');
      await writeFile(lock, '');
      const result = await login(configDir);
      expect(result.code).toBe(1);
      expect(result.err).toBe(
        `Error: The settings lock ${lock} names no process (topup never leaves one so): if no other topup command is running, remove it.\n`,
      );
      expect((await readdir(configDir)).sort()).toEqual(['settings.lock']);
      expect(await readFile(lock, 'utf8')).toBe('');
    },
  );

  it.each(['credentials.json', 'config.json'])('%s hard-linked to another file: replaced, the other file untouched', async (name) => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    await writeFile(victim, '{}', { mode: 0o644 });
    await link(victim, join(configDir, name));
    expect((await login(configDir)).code).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('{}');
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
  });
});

describe("the offline sandbox's state file replaced by a link", () => {
  it('says to move it away (a reset would be refused the same way), and the victim is untouched', async () => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    const state = join(configDir, 'sandbox-state.json');
    await symlink(victim, state);
    const said = `Error: The offline sandbox's state is unreadable (Refusing to use ${state}: it is a symbolic link); move ${state} away and run the command again.\n`;
    for (const args of [['packages'], ['mock', 'reset']]) {
      const result = await runCli(configDir, ['--mock', ...args]);
      expect(result.code).toBe(1);
      expect(result.err).toContain(said);
      expect(result.err).not.toContain('mock reset');
    }
    await victimIntact();
    await rm(state);
    expect((await runCli(configDir, ['--mock', 'packages', '--json'])).code).toBe(0);
  });
});

describe('two `mock serve --state` on one file (built CLI)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it.each(kinds)(
    'the second, through a %s alias, is refused while the first runs',
    async (kind) => {
      const file = join(dir, 'state.json');
      const first = await spawnServe(['--state', file]);
      try {
        const alias = join(dir, 'alias.json');
        await plant[kind](file, alias);
        const second = await spawnServe(['--state', alias]).then(
          async (s) => {
            s.child.kill('SIGKILL');
            return 'started';
          },
          (e: unknown) => (e as Error).message,
        );
        expect(second).toContain(refusal(alias, kind));
      } finally {
        first.child.kill('SIGINT');
        await first.exited;
      }
    },
    30_000,
  );
});

/*
 * A FIFO planted at one of our names blocks a plain open() until someone writes to it: the start-up read of the
 * settings would hang the CLI for ever. Each must be refused at once (the built CLI, killed after 10 s otherwise).
 */
describe('a FIFO planted at a file of ours (built CLI)', () => {
  beforeAll(() => ensureBuilt(), 120_000);
  const fifo = (path: string) => execFileSync('mkfifo', ['-m', '600', path]);

  it.each([
    ['credentials.json', ['auth', 'status']],
    ['config.json', ['auth', 'status']],
    ['sandbox-state.json', ['balance', '--json']],
  ])('%s: `topup %s` refuses it and exits', async (name, args) => {
    const configDir = join(dir, 'config');
    await mkdir(configDir, { mode: 0o700 });
    fifo(join(configDir, name));
    const result = await topup(args, { env: baseEnv(configDir), timeoutMs: 10_000 });
    expect(result.code).not.toBeNull();
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain(`Refusing to use ${join(configDir, name)}: it is not a regular file`);
  });

  it('the control secret file: `mock serve --control-secret-file` refuses it and exits', async () => {
    const secret = join(dir, 'secret');
    fifo(secret);
    const result = await topup(['mock', 'serve', '--port', '0', '--control-secret-file', secret], {
      env: baseEnv(join(dir, 'config')),
      timeoutMs: 10_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The control secret file ${secret} is not a regular file.`);
  });

  // A private regular file whose size (0) says nothing of what it holds: the process's own environment, here 8 KB.
  // Checked by its size alone, it would be read whole; the read stops at the limit instead.
  it.runIf(existsSync('/proc/self/environ'))(
    'the control secret file: one that holds more than its size said is refused at the limit',
    async () => {
      const result = await topup(['mock', 'serve', '--port', '0', '--control-secret-file', '/proc/self/environ'], {
        env: { ...baseEnv(join(dir, 'config')), PADDING: 'x'.repeat(8_192) },
        timeoutMs: 10_000,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('The control secret file /proc/self/environ is larger than 4096 bytes.');
    },
  );
});
