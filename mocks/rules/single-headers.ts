import { ApiError } from '../core/exchange.js';

/**
 * Headers the service reads one value of. Sent twice they are ambiguous (which token, which key?), so the request is
 * refused with 400 INVALID_HEADER rather than joined with a comma. Only an adapter that sees the raw header lines
 * (node:http) can tell; a fetch Headers object has already joined them.
 */
export const SINGLE_VALUED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'idempotency-key', 'x-chat-user-id', 'content-type']);

/** The refusal for a request that repeated one of them, or undefined when none was repeated. */
export function repeatedHeaderError(repeated: readonly string[]): ApiError | undefined {
  if (repeated.length === 0) return undefined;
  const names = repeated.map((name) =>
    name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`),
  );
  return new ApiError(
    400,
    `The ${names.join(' and ')} ${names.length === 1 ? 'header was' : 'headers were'} sent more than once; send ${names.length === 1 ? 'it' : 'each'} once.`,
    'INVALID_HEADER',
    repeated,
  );
}
