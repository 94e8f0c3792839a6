import { redactText } from '../contract/redact.js';
import { ConnectionError, TimeoutError } from '../errors.js';

/** Error codes of node's sockets, resolvers and TLS, as a person would name the cause. */
const CAUSES: readonly [RegExp, string][] = [
  [/^ECONNREFUSED$/, 'connection refused: nothing is listening there'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/, 'DNS: the host name was not found'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET)$/, 'the connection was reset'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/, 'the connection timed out'],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN|EHOSTDOWN)$/, 'the network or host is unreachable'],
  [
    /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/,
    "TLS: the server's certificate was refused",
  ],
];

/** The origin of a URL, or a placeholder: a message names where it tried, never the path or query. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}

/** The first error code on the error or its causes (undici hides ECONNREFUSED or ENOTFOUND in `cause`). */
function codeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
}

function reasonOf(error: unknown): string {
  const code = codeOf(error);
  const known = code === undefined ? undefined : CAUSES.find(([pattern]) => pattern.test(code))?.[1];
  if (known !== undefined) return `${known} (${code})`;
  if (!(error instanceof Error)) return 'unknown error';
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  const text = [error.message || error.name, cause].filter(Boolean).join(': ');
  return code === undefined ? text : `${text}: ${code}`;
}

/**
 * A request that never got its answer, as one sentence naming the server's origin and the cause (refused, DNS, TLS,
 * reset, timeout). Nothing that might hold the token survives (fetch errors may carry the request).
 */
export function connectionFailure(
  error: unknown,
  url: string,
  token: string | undefined,
  during: 'request' | 'body' = 'request',
): ConnectionError {
  const reason = redactText(reasonOf(error), [token]);
  // Part of the answer had come: the server was reached, and the request may have taken effect.
  if (during === 'body')
    return new ConnectionError(`${originOf(url)} closed the connection before its answer was complete (${reason}).`, {
      cause: new Error(reason),
    });
  return new ConnectionError(`Could not reach ${originOf(url)}: ${reason}.`, { cause: new Error(reason) });
}

/** One attempt that ran out of time: before any of the answer came, or (`body`) with the answer begun but not whole. */
export function timeoutFailure(url: string, timeoutMs: number, during: 'request' | 'body' = 'request'): TimeoutError {
  const limit = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  return new TimeoutError(
    during === 'body'
      ? `${originOf(url)} began its answer but did not finish it within ${limit}.`
      : `${originOf(url)} did not answer within ${limit}.`,
  );
}

/**
 * The last attempt's TimeoutError once retries gave up, saying how many attempts each ran out of time, so that "within
 * 30 s" is not read as the whole wait. Other errors are returned as they are.
 */
export function afterAttempts(error: unknown, attempts: number): unknown {
  if (attempts < 2 || !(error instanceof TimeoutError)) return error;
  error.message = `${error.message.replace(/\.$/, '')} (the last of ${attempts} attempts).`;
  return error;
}
