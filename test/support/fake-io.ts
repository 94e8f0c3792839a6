import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIO } from '../../src/cli/io/streams.js';

export interface CapturedIO extends CliIO {
  readonly out: () => string;
  readonly err: () => string;
}

/** Streams for running a command in-process: captured output, a chosen TTY-ness, stdin from a string. */
/** `tty` sets every stream; `stderrTTY` overrides stderr alone (a person watching a command whose output is piped). */
export function fakeIO(
  options: { tty?: boolean; stderrTTY?: boolean; stdin?: string; env?: Record<string, string | undefined> } = {},
): CapturedIO {
  let out = '';
  let err = '';
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]) as Readable & { isTTY?: boolean };
  stdin.isTTY = options.tty ?? false;
  return {
    stdout: {
      write: (s: string) => {
        out += s;
        return true;
      },
      isTTY: options.tty ?? false,
      columns: 100,
    },
    stderr: {
      write: (s: string) => {
        err += s;
        return true;
      },
      isTTY: options.stderrTTY ?? options.tty ?? false,
    },
    stdin,
    env: { ...options.env },
    out: () => out,
    err: () => err,
  };
}

/** A fresh config folder, removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'topup-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
