import { rowsOf } from './redraw.js';

/**
 * The pager for long lists, as git and gh choose it: TOPUP_PAGER, then PAGER, then `less -FRX`. None when it is
 * empty or `cat` (that is how a person turns it off).
 */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const command = (env.TOPUP_PAGER ?? env.PAGER ?? 'less -FRX').trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/**
 * Whether `text` needs a pager: it is taller than the terminal, keeping one row for the hint or prompt after it.
 * A terminal that does not say its height gets the pager, and `less -F` quits at once if the text fits after all.
 */
export function tallerThan(text: string, rows: number | undefined, columns: number | undefined): boolean {
  if (rows === undefined || rows <= 0) return true;
  return rowsOf(text, columns) > rows - 1;
}

export interface PagerRun {
  /** False when the pager could not be run (no such command): the caller prints the text itself. */
  started: boolean;
  /** What the pager said on stderr, to pass on once it has quit. */
  stderr: string;
}

/** Exit codes of `sh -c` when the command is missing (127) or cannot be run (126): nothing was shown. */
const NOT_STARTED = new Set([126, 127]);

/**
 * Runs `command` through the shell, as git does (so `PAGER='less -S'` works), on our terminal, and feeds it `text`.
 * A pager that quits before reading it all (q) closes its input: that ends the feeding and is no error. Resolves when
 * the pager exits, whatever its exit status; Ctrl-C reaches the pager through the terminal, and is left to it.
 */
export async function runPager(command: string, text: string, env: Readonly<Record<string, string | undefined>>): Promise<PagerRun> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    // less and lv without options of their own page with colours (R), quit when the text fits (F) and leave it on the
    // screen (X), like git and gh.
    const pagerEnv = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'pipe'], env: pagerEnv });
    } catch {
      // Thrown at once, e.g. E2BIG: no pager ran.
      return resolve({ started: false, stderr: '' });
    }
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // EPIPE when the pager quit early; any other failure to feed it is the same for us: it has what it will show.
    child.stdin!.on('error', () => {});
    child.on('error', () => resolve({ started: false, stderr: '' }));
    child.on('close', (code) => resolve(NOT_STARTED.has(code ?? 0) ? { started: false, stderr: '' } : { started: true, stderr }));
    child.stdin!.end(text);
  });
}
