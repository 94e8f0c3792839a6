import { TopupError } from '../errors.js';

/** The CLI's own errors: topup errors with the kinds only the CLI gives. `UsageError` is the library's (exit 2). */
export { UsageError } from '../errors.js';

/** A refusal by a business rule outside the API, e.g. a sandbox control move that does not apply (exit 5). */
export class RejectedError extends TopupError {
  override name = 'RejectedError';
  override readonly kind = 'rejected';
}

/** Anything else the CLI refuses to do, in one sentence (exit 1). */
export class CliError extends TopupError {
  override name = 'CliError';
  override readonly kind = 'failed';
}

/** Ctrl-C or SIGTERM ended the command; `signal` says which (exit 130 or 143). */
export class InterruptedError extends TopupError {
  override name = 'InterruptedError';
  override readonly kind = 'interrupted';
  constructor(readonly signal: NodeJS.Signals) {
    super('Interrupted.');
  }
}
