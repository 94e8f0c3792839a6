import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, exitCodeByKind, exitCodeFor } from '../../src/cli/exit-codes.js';
import { CliError, InterruptedError, RejectedError } from '../../src/cli/errors.js';
import * as library from '../../src/index.js';
import { errorForStatus, errorKind, isTopupError, type TopupError, type ErrorKind } from '../../src/errors.js';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';

/** Each error class of the library, and the exit code docs/scripting.md's table documents for it. */
const documented: [string, ExitCode][] = [
  ['UsageError', ExitCode.usage],
  ['BadRequestError', ExitCode.error],
  ['AuthError', ExitCode.auth],
  ['PermissionError', ExitCode.rejected],
  ['NotFoundError', ExitCode.error],
  ['ConflictError', ExitCode.rejected],
  ['ValidationError', ExitCode.rejected],
  ['RateLimitError', ExitCode.rateLimited],
  ['ServerError', ExitCode.unavailable],
  ['ConnectionError', ExitCode.unavailable],
  ['TimeoutError', ExitCode.unavailable],
  ['WaitTimeoutError', ExitCode.stillPending],
  ['ResponseTooLargeError', ExitCode.error],
  ['TopupError', ExitCode.error],
];

type ErrorClass = new (message: string, detail?: never) => Error;

function classesOf(module: Record<string, unknown>): Map<string, ErrorClass> {
  const found = new Map<string, ErrorClass>();
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === 'function' && /^[A-Z]\w*Error$/.test(name)) found.set(name, value as ErrorClass);
  }
  return found;
}

describe('error kinds', () => {
  it('the library exports exactly the documented error classes', () => {
    expect([...classesOf(library).keys()].sort()).toEqual(documented.map(([name]) => name).sort());
  });

  it('every kind has an exit code, and only the CLI kinds are the CLI’s', () => {
    const kinds = Object.keys(exitCodeByKind) as ErrorKind[];
    for (const Class of classesOf(library).values()) expect(kinds).toContain((new Class('x') as TopupError).kind);
    expect(exitCodeFor(new CliError('x'))).toBe(ExitCode.error);
    expect(exitCodeFor(new RejectedError('x'))).toBe(ExitCode.rejected);
    expect(exitCodeFor(new InterruptedError('SIGINT'))).toBe(ExitCode.interrupted);
  });

  it('errors of other libraries are known by their documented names, anything else is exit 1', () => {
    expect(exitCodeFor(new DOMException('aborted', 'AbortError'))).toBe(ExitCode.interrupted);
    expect(exitCodeFor(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toBe(ExitCode.interrupted);
    expect(exitCodeFor(Object.assign(new Error('x'), { name: 'CommanderError' }))).toBe(ExitCode.usage);
    expect(exitCodeFor(new TypeError('x'))).toBe(ExitCode.error);
    expect(exitCodeFor('a string')).toBe(ExitCode.error);
    // A name alone does not make a topup error: only the brand does.
    expect(exitCodeFor(Object.assign(new Error('x'), { name: 'AuthError' }))).toBe(ExitCode.error);
    expect(isTopupError(Object.assign(new Error('x'), { name: 'AuthError', kind: 'auth' }))).toBe(false);
  });

  it('errorForStatus gives the class of each status, with the details', () => {
    const cases: [number, string][] = [
      [400, 'BadRequestError'],
      [401, 'AuthError'],
      [403, 'PermissionError'],
      [404, 'NotFoundError'],
      [409, 'ConflictError'],
      [422, 'ValidationError'],
      [429, 'RateLimitError'],
      [500, 'ServerError'],
      [503, 'ServerError'],
      [418, 'TopupError'],
    ];
    for (const [status, name] of cases) {
      const error = errorForStatus(status, 'Refused.', { code: 'SOME_CODE', fields: ['a'] });
      expect(error).toBeInstanceOf(classesOf(library).get(name)!);
      expect(error.constructor.name).toBe(name);
      expect({ status: error.status, code: error.code, fields: error.fields, message: error.message }).toEqual({
        status,
        code: 'SOME_CODE',
        fields: ['a'],
        message: 'Refused.',
      });
    }
  });

  it('toJSON carries the kind', () => {
    expect(new library.RateLimitError('Slow down.', { retryAfter: 3 }).toJSON()).toMatchObject({
      name: 'RateLimitError',
      kind: 'rate_limited',
      retryAfter: 3,
    });
  });
});

describe("the CLI's real bundle", () => {
  let cli: { exitCodeFor(error: unknown): number };
  let chunkClasses: Map<string, ErrorClass>;

  beforeAll(async () => {
    ensureBuilt();
    // The CommonJS start-up bundle decides exit codes; the client that `topup api` loads lazily is a separate build
    // with its own copy of every error class. Errors made by that copy must map as the documentation says.
    const load = createRequire(import.meta.url);
    cli = load(join(ROOT, 'dist/cli/main.cjs')) as typeof cli;
    chunkClasses = classesOf(load(join(ROOT, 'dist/cli/lazy/src/client/index.cjs')) as Record<string, unknown>);
  }, 120_000);

  it('holds a second copy of the classes (so instanceof across the two cannot work)', () => {
    expect(chunkClasses.get('AuthError')).toBeDefined();
    expect(chunkClasses.get('AuthError')).not.toBe(library.AuthError);
    expect(new (chunkClasses.get('AuthError')!)('x')).not.toBeInstanceOf(library.AuthError);
  });

  it.each(documented)('a %s made by the lazily loaded client exits %i', (name, code) => {
    const Class = chunkClasses.get(name);
    expect(Class, `${name} is not exported by the CLI's client chunk`).toBeDefined();
    const error = name === 'WaitTimeoutError' ? new Class!('x', 'pending' as never) : new Class!('x');
    expect(cli.exitCodeFor(error)).toBe(code);
    expect(errorKind(error)).toBe((error as TopupError).kind);
  });
});
