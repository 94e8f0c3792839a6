import { expect } from 'vitest';

/** A usage error as the CLI must give it: exit 2, nothing on stdout, one line on stderr matching `message`. */
export function expectUsageError(result: { code: number; out: string; err: string }, message: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.out).toBe('');
  expect(result.err).toMatch(message);
  expect(result.err.trim().split('\n')).toHaveLength(1);
}
