import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIO } from '../../src/cli/io/streams.js';

export interface CapturedIO extends CliIO {
  readonly out: () => string;
  readonly err: () => string;
}

export interface FakeIOOptions {
  /** Sets every stream's TTY-ness. */
  tty?: boolean;
  /** Overrides stderr alone (a person watching a command whose output is piped). */
  stderrTTY?: boolean;
  /** stdin's text, or a stream of it (an input too large to hold as one string). */
  stdin?: string | Iterable<Buffer | string> | AsyncIterable<Buffer | string>;
  /**
   * The environment. Unless given: TZ=UTC, so that times on a terminal read the same on every machine, and
   * TOPUP_PAGER=cat, so that no test starts a real pager by accident (pass `TOPUP_PAGER: undefined` to test the default).
   * Its TZ is injected as the zone (CliIO.timeZone), as a real process takes it from its own TZ.
   */
  env?: Record<string, string | undefined>;
  /** The terminal's width in cells (default 100; stderr's too, the same terminal) and its height in rows (default: not said). */
  columns?: number | undefined;
  rows?: number | undefined;
}

/** Streams for running a command in-process: captured output, a chosen TTY-ness and size, stdin from a string. */
export function fakeIO(options: FakeIOOptions = {}): CapturedIO {
  let out = '';
  let err = '';
  const env = { TZ: 'UTC', TOPUP_PAGER: 'cat', ...options.env };
  const chunks = options.stdin === undefined ? [] : typeof options.stdin === 'string' ? [options.stdin] : options.stdin;
  const stdin = Readable.from(chunks) as Readable & { isTTY?: boolean };
  stdin.isTTY = options.tty ?? false;
  return {
    stdout: {
      write: (s: string) => {
        out += s;
        return true;
      },
      isTTY: options.tty ?? false,
      columns: options.columns ?? 100,
      rows: options.rows,
    },
    stderr: {
      write: (s: string) => {
        err += s;
        return true;
      },
      isTTY: options.stderrTTY ?? options.tty ?? false,
      columns: options.columns ?? 100,
    },
    stdin,
    env,
    timeZone: env.TZ,
    out: () => out,
    err: () => err,
  };
}

/** A fresh config folder, removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'topup-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
