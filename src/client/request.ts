import type { z } from 'zod';
import type { EndpointId, endpointById } from '../contract/endpoints.js';
import { RATE_LIMIT_HEADERS } from '../contract/rate-limits.js';
import { endpointRoutes } from '../contract/routes.js';
import { errorFromResponse } from './error-from-response.js';
import { TopupError, UsageError } from '../errors.js';
import { sendAttempt, type Answer } from './http.js';
import type { ResolvedOptions } from './options.js';
import { Pacer, type RateLimitReport } from './pacing.js';
import { parseRetryAfter, withRetries } from './retry.js';

/** Per-call options every method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the call, including any wait for pacing or a retry; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

export interface Call extends RequestOptions {
  /** Values for the `{name}` placeholders of the path; each is URL-encoded. */
  params?: Record<string, string>;
  query?: object | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as Idempotency-Key; it is what makes a POST safe to retry. */
  idempotencyKey?: string | undefined;
}

/** The envelope's `data` of an endpoint, typed from its schema; only the type is imported, so zod never loads. */
export type EndpointData<Id extends EndpointId> = z.infer<(typeof endpointById)[Id]['data']>;

/** Sends one endpoint's request with pacing and retries, and returns the envelope's `data`. */
export type Requester = <Id extends EndpointId>(id: Id, call?: Call) => Promise<EndpointData<Id>>;

export function createRequester(options: ResolvedOptions): Requester {
  const { clock, token } = options;
  const pacer = options.pacing ? new Pacer({ clock }) : undefined;
  const secrets = token === undefined ? [] : [token];

  return async <Id extends EndpointId>(id: Id, call: Call = {}): Promise<EndpointData<Id>> => {
    const endpoint = endpointRoutes[id];
    const headers: Record<string, string> = { ...call.headers };
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    // Public endpoints never see the token: the fewer places it goes, the fewer places it can leak from.
    if (endpoint.auth && token !== undefined) headers.authorization = `Bearer ${token}`;
    for (const [name, value] of Object.entries(headers)) checkHeaderValue(name, value);
    const attempt = {
      method: endpoint.method,
      path: expandPath(endpoint.path, call.params ?? {}).slice(1),
      searchParams: toSearchParams(call.query),
      json: call.body,
      headers,
      signal: call.signal,
    };
    refuseTokenInUrl(attempt.path, attempt.searchParams, token);
    // A POST is repeated only under an Idempotency-Key, which makes the repeat harmless.
    const retryable = endpoint.method === 'GET' || call.idempotencyKey !== undefined;
    const onWait = options.onWait;
    const waitHook = onWait && ((reason: 'pacing' | 'retry-after' | 'backoff', ms: number) => onWait({ reason, ms, request: `${endpoint.method} ${endpoint.path}` }));

    const data = await withRetries(
      async () => {
        const release = pacer === undefined ? undefined : await pacer.acquire(endpoint.rateClass, call.signal, waitHook && ((ms) => waitHook('pacing', ms)));
        try {
          const sentAt = clock.now();
          const { answer, body } = await sendAttempt(attempt, options);
          options.onResponse?.({ method: endpoint.method, url: `${options.baseUrl}${attempt.path}`, status: answer.status, durationMs: clock.now() - sentAt });
          const parsed = parseBody(body);
          const retryAfter = parseRetryAfter(answer.headers.get(RATE_LIMIT_HEADERS.retryAfter), clock.now());
          pacer?.observe(endpoint.rateClass, rateLimitReport(answer, retryAfter));
          if (!answer.ok) throw errorFromResponse({ status: answer.status, body: parsed, retryAfter }, secrets);
          return dataOf(parsed, answer.status);
        } finally {
          release?.();
        }
      },
      { retryable, policy: options.retryPolicy, clock, signal: call.signal, onWait: waitHook },
    );
    return data as EndpointData<Id>;
  };
}

/** Fills `{name}` placeholders. Dot segments are refused: the URL parser would resolve them into another path. */
export function expandPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
      throw new UsageError(`The ${name} must be a non-empty string.`);
    }
    return encodeURIComponent(value);
  });
}

/** Query values as strings; undefined and null are left out rather than sent as text. */
export function toSearchParams(query: object | undefined): URLSearchParams | undefined {
  if (query === undefined) return undefined;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(name, String(value));
  }
  return params.size === 0 ? undefined : params;
}

/** A token pasted into a path parameter or a query value would end up in logs and histories: refuse before sending. */
function refuseTokenInUrl(path: string, query: URLSearchParams | undefined, token: string | undefined): void {
  if (token === undefined) return;
  const inPath = path.includes(token) || path.includes(encodeURIComponent(token));
  const inQuery = query !== undefined && [...query.entries()].some(([name, value]) => name.includes(token) || value.includes(token));
  if (inPath || inQuery) throw new UsageError('The token must never be put in a URL; it is sent only in the Authorization header.');
}

function checkHeaderValue(name: string, value: string): void {
  // fetch would reject these with a TypeError that reads like a network failure.
  if (typeof value !== 'string' || value === '' || !/^[\x20-\x7e]+$/.test(value)) {
    throw new UsageError(`The ${name} header must be non-empty visible ASCII text.`);
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A proxy's HTML error page: the status still decides the error class.
    return undefined;
  }
}

function rateLimitReport(response: Answer, retryAfter: number | undefined): RateLimitReport {
  const remaining = Number(response.headers.get(RATE_LIMIT_HEADERS.remaining) ?? Number.NaN);
  const reset = Number(response.headers.get(RATE_LIMIT_HEADERS.reset) ?? Number.NaN);
  return {
    remaining: Number.isInteger(remaining) && remaining >= 0 ? remaining : undefined,
    resetAt: Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined,
    retryAfter: response.status === 429 ? retryAfter : undefined,
  };
}

function dataOf(body: unknown, status: number): unknown {
  if (typeof body === 'object' && body !== null && 'data' in body && (body as { success?: unknown }).success === true) {
    return body.data;
  }
  throw new TopupError('The server answered without a success envelope.', { status });
}
