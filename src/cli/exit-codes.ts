/** The CLI's exit codes. Documented in `topup --help` and the README; decided only by `exitCodeFor`. */
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

/**
 * Maps an error to its exit code by the error's `name`, so that the start-up path need not load the client
 * to tell its error classes apart.
 */
export function exitCodeFor(error: unknown): ExitCode {
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'UsageError':
    case 'CommanderError':
      return ExitCode.usage;
    case 'AuthError':
      return ExitCode.auth;
    case 'ValidationError':
    case 'ConflictError':
    case 'PermissionError':
    case 'RejectedError':
      return ExitCode.rejected;
    case 'RateLimitError':
      return ExitCode.rateLimited;
    case 'ConnectionError':
    case 'TimeoutError':
    case 'ServerError':
      return ExitCode.unavailable;
    case 'WaitTimeoutError':
      return ExitCode.stillPending;
    case 'AbortError':
    case 'InterruptedError':
    case 'ExitPromptError':
      return ExitCode.interrupted;
    default:
      return ExitCode.error;
  }
}
