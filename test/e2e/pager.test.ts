import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, ROOT } from './built-cli.js';

/**
 * The built binary on a real terminal: util-linux `script` gives it a pseudo-terminal of 80×5 (or wider), so stdout is a TTY
 * with a height, and TOPUP_PAGER is a script that keeps what it is given in a file.
 */
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'topup-pager-e2e-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function onTerminal(args: string[], env: Record<string, string>, cols = 80): Promise<{ code: number | null; screen: string }> {
  const command = `stty rows 5 cols ${cols}; exec '${process.execPath}' '${join(ROOT, 'bin', 'topup.js')}' ${args.join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...baseEnv(dir), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.stdin.end();
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, screen });
    }),
  );
}

describe.skipIf(!hasScript)('the pager, in a real process on a terminal', () => {
  it('a list taller than the terminal goes through TOPUP_PAGER, not to the screen', async () => {
    const paged = join(dir, 'packages.txt');
    const result = await onTerminal(['--mock', 'packages', '--no-color'], { TOPUP_PAGER: `cat > '${paged}'` });
    expect(result.code).toBe(0);
    const table = readFileSync(paged, 'utf8');
    expect(table.split('\n')[0]).toBe('CODE     NAME            CREDITS         PRICE');
    expect(table.split('\n')).toHaveLength(9);
    expect(result.screen).not.toContain('CR80');
  });

  it('a pager that quits at once: exit 0, no error on the screen', async () => {
    const paged = join(dir, 'head.txt');
    const result = await onTerminal(['--mock', 'articles', 'list', '--all', '--no-color'], { TOPUP_PAGER: `head -c 4 > '${paged}'` }, 120);
    expect(result.code).toBe(0);
    expect(readFileSync(paged, 'utf8')).toBe('PUBL');
    expect(result.screen).not.toMatch(/Error|EPIPE/);
    expect(result.screen).toContain('12 articles.');
  });

  it("times on a terminal are in the process's own TZ, with its offset; piped, ISO 8601 in UTC", async () => {
    const tty = await onTerminal(
      ['--mock', 'articles', 'list', '--page', '2', '--no-color'],
      { TOPUP_PAGER: 'cat', TZ: 'Asia/Jakarta' },
      120,
    );
    expect(tty.code).toBe(0);
    expect(tty.screen).toContain('2026-01-02 15:00 +07:00  news');
    const piped = spawnSync(process.execPath, [join(ROOT, 'bin', 'topup.js'), '--mock', 'articles', 'list', '--page', '2'], {
      env: { ...baseEnv(dir), TZ: 'Asia/Jakarta' },
      encoding: 'utf8',
    });
    expect(piped.stdout.split('\n')[0]).toBe('2026-01-02T08:00:00Z\tnews\tpaying-an-invoice-step-by-step\tPaying an invoice step by step');
  });
});
