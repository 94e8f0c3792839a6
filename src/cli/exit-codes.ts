import { errorKind, type ErrorKind } from '../errors.js';

/** The CLI's exit codes. Documented in `topup --help` and docs/scripting.md (Exit codes); decided only by `exitCodeFor`. */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 4,
  rejected: 5,
  rateLimited: 6,
  unavailable: 7,
  stillPending: 8,
  interrupted: 130,
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const exitCodeTable: readonly [ExitCode, string][] = [
  [ExitCode.ok, 'ok'],
  [ExitCode.error, 'error'],
  [ExitCode.usage, 'usage: a wrong flag, argument or missing input'],
  [ExitCode.auth, 'auth: the token is missing, invalid or revoked'],
  [ExitCode.rejected, 'rejected: validation (422), a conflict or a business rule'],
  [ExitCode.rateLimited, 'rate limited after retries'],
  [ExitCode.unavailable, 'network or server unavailable'],
  [ExitCode.stillPending, 'still pending when a wait timed out'],
  [ExitCode.interrupted, 'interrupted (Ctrl-C)'],
  [ExitCode.terminated, 'terminated (SIGTERM)'],
];

/** The exit code of each kind of error: the one place that decides it. */
export const exitCodeByKind: Readonly<Record<ErrorKind, ExitCode>> = {
  usage: ExitCode.usage,
  bad_request: ExitCode.error,
  auth: ExitCode.auth,
  permission: ExitCode.rejected,
  not_found: ExitCode.error,
  conflict: ExitCode.rejected,
  validation: ExitCode.rejected,
  rejected: ExitCode.rejected,
  rate_limited: ExitCode.rateLimited,
  server: ExitCode.unavailable,
  connection: ExitCode.unavailable,
  timeout: ExitCode.unavailable,
  wait_timeout: ExitCode.stillPending,
  api: ExitCode.error,
  failed: ExitCode.error,
  interrupted: ExitCode.interrupted,
};

/** Maps any thrown value to its exit code by its kind (src/errors.ts), so two bundled copies of a class agree. */
export function exitCodeFor(error: unknown): ExitCode {
  const kind = errorKind(error);
  return kind === undefined ? ExitCode.error : exitCodeByKind[kind];
}
