import { expect } from 'vitest';

/** A usage error as the CLI must give it: exit 2, nothing on stdout, one line on stderr matching `message`. */
export function expectUsageError(result: { code: number; out: string; err: string }, message: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.out).toBe('');
  expect(result.err).toMatch(message);
  expect(result.err.trim().split('\n')).toHaveLength(1);
}

/** The one line every run on the embedded sandbox prints on stderr, --json included. */
export const EMBEDDED_NOTICE =
  'Using the embedded offline sandbox (demo sandbox token). Log in to a real server with `topup auth login`.\n';

/** stderr of a --json run on the embedded sandbox: the notice, then exactly one JSON error envelope. */
export function embeddedJsonError(err: string): unknown {
  expect(err.startsWith(EMBEDDED_NOTICE)).toBe(true);
  const rest = err.slice(EMBEDDED_NOTICE.length);
  expect(rest.trim().split('\n')).toHaveLength(1);
  return JSON.parse(rest);
}

/** True in the lean project (vitest.config.ts): every sandbox answers only what the interface document guarantees. */
export const LEAN = process.env.TOPUP_TEST_LEAN === '1';

/**
 * A record's expected lines as the lean project renders them: the value of each `dropped` field (`key: value` piped,
 * `label   value` on a terminal) is a dash. Unchanged outside the lean project.
 */
export function leanLines(lines: string[], dropped: string[]): string[] {
  if (!LEAN) return lines;
  return lines.map((line) => {
    for (const key of dropped) {
      const match = new RegExp(`^(${key}(?::\\s|\\s{2,}))(.+)$`).exec(line);
      if (match) return `${match[1]}-`;
    }
    return line;
  });
}

/** What starts every colour or cursor sequence; `expect(text).not.toMatch(ANSI_ESCAPE)` finds any. */
export const ANSI_ESCAPE = '\u001b[';
