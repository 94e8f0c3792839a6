import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, ROOT, serveMock, topupCommand, type ServedMock } from './built-cli.js';

/**
 * Accessible mode on a real pseudo-terminal: util-linux `script` runs the built CLI on a pty, and everything the
 * terminal would be sent (stdout and stderr both) is read back byte for byte. A screen reader reads what is written;
 * anything that moves the cursor back or erases makes it read a line again, or lose it.
 */
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Cursor movement and erasing (ESC[…A to H, J, K, S, T, f, s, u), hiding or showing the cursor (ESC[?25l/h), saving
 * and restoring it (ESC 7/8), and a carriage return that is not the pty's own end of line (\r\n: the terminal turns
 * every \n into it), which sends the cursor back to redraw the line.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CURSOR_MOVEMENT = /\u001b\[[0-9;?]*[A-HJKSTfsu]|\u001b\[\?25[lh]|\u001b[78]|\r(?!\n)/;

let dir: string;
let served: ServedMock;
let richToken: string;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'topup-a11y-pty-'));
  served = await serveMock({ ...baseEnv(join(dir, 'serve')), NO_COLOR: '1' });
  richToken = served.accounts.find((a) => a.name === 'rich')!.token;
}, 120_000);
afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** A fresh config folder; with `accessible`, its config.json holds the key as `topup config set accessible true` writes it. */
function configFolder(name: string, accessible?: boolean): string {
  const folder = mkdtempSync(join(dir, `${name}-`));
  if (accessible !== undefined) writeFileSync(join(folder, 'config.json'), `${JSON.stringify({ accessible })}\n`, { mode: 0o600 });
  return folder;
}

interface Terminal {
  /** Everything written to the terminal so far. */
  screen(): string;
  /** Types on the terminal's keyboard (\r is Enter, \u0003 is Ctrl-C). */
  type(keys: string): void;
  /** Resolves once `pattern` has been written `times` times. */
  shown(pattern: RegExp, times?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** The built CLI on a pty of 100×40, its keyboard ours; killed if it runs past the guard. */
function onTerminal(args: string[], env: Record<string, string>): Terminal {
  const [command, commandArgs] = topupCommand(args);
  const line = `stty rows 40 cols 100; exec ${[command, ...commandArgs].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: ROOT,
    env: { ...env, TERM: 'xterm-256color', NO_COLOR: '1', TOPUP_TEST_NO_PACING: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const waiting = new Set<() => void>();
  const record = (chunk: string) => {
    screen += chunk;
    for (const check of waiting) check();
  };
  child.stdout.setEncoding('utf8').on('data', record);
  child.stderr.setEncoding('utf8').on('data', record);
  const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      child.stdin.end();
      for (const check of waiting) check();
      resolve(code);
    }),
  );
  let closed = false;
  void exited.then(() => (closed = true));
  return {
    screen: () => screen,
    type: (keys) => void child.stdin.write(keys),
    exited,
    shown: (pattern, times = 1) =>
      new Promise((resolve, reject) => {
        const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
        const check = () => {
          if ((screen.match(global) ?? []).length >= times) {
            waiting.delete(check);
            resolve();
          } else if (closed) {
            waiting.delete(check);
            reject(new Error(`the terminal closed before ${String(pattern)} was shown ${times} time(s); it showed:\n${screen}`));
          }
        };
        waiting.add(check);
        check();
      }),
  };
}

/** The lines a person hears, without the pty's \r\n endings. */
const linesOf = (screen: string) => screen.replace(/\r\n/g, '\n').split('\n');

describe.skipIf(!hasScript)('accessible mode on a real pseudo-terminal: nothing is drawn in place', () => {
  it('dashboard --watch: redrawn in place without it; with TOPUP_ACCESSIBLE=1, each refresh appended below the last', async () => {
    const args = ['dashboard', '--watch', '15', '--base-url', served.url];
    const env = (accessible: boolean) => ({
      ...baseEnv(configFolder('watch')),
      TOPUP_TOKEN: richToken,
      ...(accessible ? { TOPUP_ACCESSIBLE: '1' } : {}),
    });
    // Both at once: each waits for its second refresh, the document's minimum of 15 s after the first.
    const runs = [onTerminal(args, env(false)), onTerminal(args, env(true))];
    const updated = /^Updated .*Press Ctrl-C to stop\./m;
    await Promise.all(runs.map((run) => run.shown(updated, 2)));
    for (const run of runs) run.type('\u0003');
    const [drawn, accessible] = runs as [Terminal, Terminal];
    expect(await drawn.exited).toBe(130);
    expect(await accessible.exited).toBe(130);

    // The control: the same run without accessible mode moves the cursor up and erases to redraw.
    expect(drawn.screen()).toMatch(CURSOR_MOVEMENT);
    expect(accessible.screen()).not.toMatch(CURSOR_MOVEMENT);
    // One update, one block of lines below the last: both refreshes are still there, in order.
    expect(linesOf(accessible.screen()).filter((l) => updated.test(l))).toHaveLength(2);
  }, 60_000);

  it('orders batch: a bar redrawn in place without it; with the config key, one progress line per row', async () => {
    const rows = ['type,username,place,pass,payment_method,reference', ...[1, 2, 3].map((i) => `gamepass,BuilderBob,5001,9001,,a11y-${i}`)];
    const run = async (name: string, accessible: boolean) => {
      const folder = configFolder(name, accessible ? true : undefined);
      const input = join(folder, `${name}.csv`);
      writeFileSync(input, `${rows.join('\n')}\n`);
      const terminal = onTerminal(['orders', 'batch', input, '--yes', '--base-url', served.url], {
        ...baseEnv(folder),
        TOPUP_TOKEN: richToken,
      });
      expect(await terminal.exited, terminal.screen()).toBe(0);
      return terminal.screen();
    };
    const [drawn, accessible] = await Promise.all([run('bar', false), run('lines', true)]);

    expect(drawn).toMatch(CURSOR_MOVEMENT);
    expect(drawn).toContain('\r\u001b[K[');
    expect(accessible).not.toMatch(CURSOR_MOVEMENT);
    // Stored in config.json, no environment variable: a line for each row as it is sent and as it is done, each said once.
    const progress = linesOf(accessible).filter((l) => /^\d\/3 {2}done /.test(l));
    expect(progress.map((l) => l.replace(/ {2}ETA \w+$/, ''))).toEqual([
      '0/3  done 0  failed 0  left 3  sending line 2 (BuilderBob)',
      '1/3  done 1  failed 0  left 2  line 2 created',
      '1/3  done 1  failed 0  left 2  sending line 3 (BuilderBob)',
      '2/3  done 2  failed 0  left 1  line 3 created',
      '2/3  done 2  failed 0  left 1  sending line 4 (BuilderBob)',
      '3/3  done 3  failed 0  left 0  line 4 created',
    ]);
  }, 60_000);

  it.each([
    ['TOPUP_ACCESSIBLE=1', { TOPUP_ACCESSIBLE: '1' }, undefined],
    ['the config key', {}, true],
  ] as const)(
    'auth login with %s: the questions as lines in order, answered on the keyboard, nothing redrawn',
    async (_how, extra, stored) => {
      const login = async (accessible: boolean) => {
        const folder = configFolder('login', accessible ? stored : undefined);
        const terminal = onTerminal(['auth', 'login'], { ...baseEnv(folder), ...(accessible ? extra : {}) });
        await terminal.shown(/Base URL of the shop/);
        terminal.type(`${served.url}\r`);
        await terminal.shown(/API token/);
        terminal.type(`${richToken}\r`);
        // The rich token is a production one: login offers to keep the chat user id.
        await terminal.shown(/Chat user id/);
        terminal.type('700000001\r');
        expect(await terminal.exited, terminal.screen()).toBe(0);
        const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as {
          profiles: Record<string, { chat_user_id?: string }>;
        };
        expect(config.profiles.default?.chat_user_id).toBe('700000001');
        return terminal.screen();
      };
      const [drawn, accessible] = await Promise.all([login(false), login(true)]);

      // The control: the usual prompts redraw their line and hide the cursor.
      expect(drawn).toMatch(CURSOR_MOVEMENT);
      expect(accessible).not.toMatch(CURSOR_MOVEMENT);
      const lines = linesOf(accessible);
      const asked = ['Base URL of the shop', 'API token', 'Chat user id'].map((q) => lines.findIndex((l) => l.startsWith(q)));
      expect(asked.every((at) => at >= 0)).toBe(true);
      expect([...asked].sort((a, b) => a - b)).toEqual(asked);
      // The token was typed with the echo off: it is nowhere on the screen.
      expect(accessible).not.toContain(richToken);
      expect(accessible).toMatch(/Logged in to /);
    },
    60_000,
  );
});
