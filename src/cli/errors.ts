/** A wrong flag, argument or missing input (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A refusal by a business rule outside the API, e.g. a sandbox control move that does not apply (exit 5). */
export class RejectedError extends Error {
  override name = 'RejectedError';
}

/** Anything else the CLI refuses to do, in one sentence (exit 1). */
export class CliError extends Error {
  override name = 'CliError';
}
