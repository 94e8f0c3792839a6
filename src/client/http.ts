import ky, { TimeoutError as KyTimeoutError, type KyInstance } from 'ky';
import { raceAbort } from './clock.js';
import { scrub } from './error-from-response.js';
import { ConnectionError, TimeoutError } from './errors.js';
import type { OutgoingRequest, ResolvedOptions } from './options.js';

/** One attempt as the transport sends it. */
export interface Attempt {
  method: 'GET' | 'POST';
  /** Relative to the base URL, without a leading slash. */
  path: string;
  searchParams?: URLSearchParams | undefined;
  json?: unknown;
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * The ky instance: base URL, Accept, User-Agent, the injected fetch and the per-attempt timeout.
 * ky's own retries are off (limit 0) because ky never retries a POST and would not reuse our pacing;
 * HTTP errors come back as responses, and retry.ts decides what happens next.
 */
export function createHttp(options: ResolvedOptions): KyInstance {
  const { onRequest } = options;
  return ky.create({
    prefixUrl: options.baseUrl,
    fetch: options.fetch,
    timeout: options.timeout,
    retry: 0,
    throwHttpErrors: false,
    headers: { accept: 'application/json', 'user-agent': options.userAgent },
    hooks: {
      beforeRequest:
        onRequest === undefined
          ? []
          : [
              (request) => {
                try {
                  onRequest(describeRequest(request));
                } catch (error) {
                  throw new HookFailure(error);
                }
              },
            ],
    },
  });
}

/** Sends one attempt. Transport failures become ConnectionError or TimeoutError; an abort rejects with the signal's reason. */
export async function sendAttempt(http: KyInstance, attempt: Attempt, options: Pick<ResolvedOptions, 'timeout' | 'token'>): Promise<Response> {
  const { signal } = attempt;
  try {
    const request = http(attempt.path, {
      method: attempt.method,
      headers: attempt.headers,
      searchParams: attempt.searchParams,
      json: attempt.json,
      signal,
    });
    return await raceAbort(Promise.resolve(request), signal);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof HookFailure) throw error.cause;
    if (error instanceof KyTimeoutError) {
      throw new TimeoutError(`The server did not answer within ${options.timeout} ms.`);
    }
    throw transportFailure(error, options.token);
  }
}

/** A transport failure, described without anything that might hold the token (ky errors carry the request and its headers). */
export function transportFailure(error: unknown, token: string | undefined): ConnectionError {
  const secrets = token === undefined ? [] : [token];
  const reason = describeReason(error);
  const cause = new Error(scrub(reason, secrets));
  return new ConnectionError(`Could not reach the server (${scrub(reason, secrets)}).`, { cause });
}

function describeReason(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND) in cause.code.
  const cause = error.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code === undefined ? error.message || error.name : `${error.message || error.name}: ${code}`;
}

/** The request with its Authorization value redacted, for the debug hook. */
export function describeRequest(request: Request): OutgoingRequest {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = name === 'authorization' ? redactAuthorization(value) : value;
  });
  return { method: request.method, url: request.url, headers };
}

function redactAuthorization(value: string): string {
  const scheme = /^(\w+) /.exec(value)?.[1];
  return scheme === undefined ? '[REDACTED]' : `${scheme} [REDACTED]`;
}

/** Carries an error thrown by the caller's onRequest hook through ky untouched. */
class HookFailure extends Error {
  constructor(cause: unknown) {
    super('onRequest hook failed', { cause });
  }
}
