import type { z } from 'zod';
import type { EndpointId, endpointById } from '../contract/endpoints.js';
import { RATE_LIMIT_HEADERS } from '../contract/rate-limits.js';
import type { RateClass } from '../contract/rate-limits.js';
import { endpointRoutes, routeOf } from '../contract/routes.js';
import { dataOf } from './answer-data.js';
import { errorFromResponse } from './error-from-response.js';
import { UsageError } from '../errors.js';
import { sendAttempt, type Answer } from './http.js';
import { LONG_WAIT_MS } from './clock.js';
import type { ClientWait, ResolvedOptions } from './options.js';
import { callHook } from './hook-call.js';
import { Pacer, type RateLimitReport } from './pacing.js';
import { parseRetryAfter, withRetries } from './retry.js';

/** A list endpoint's query as a caller gives it: every parameter may be left out or undefined. */
export type QueryParams<Query> = { [Name in keyof Query]?: Query[Name] | undefined };

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
  /** A body already written: sent as it is instead of `body`. */
  rawBody?: string | undefined;
  headers?: Record<string, string>;
  /** Sent as Idempotency-Key; it is what makes a POST safe to retry. */
  idempotencyKey?: string | undefined;
  /** Told of each failed attempt that is followed by another (its error), before the wait. */
  onRetry?: ((error: unknown) => void) | undefined;
}

/** The envelope's `data` of an endpoint, typed from its schema; only the type is imported, so zod never loads. */
export type EndpointData<Id extends EndpointId> = z.infer<(typeof endpointById)[Id]['data']>;

/** Sends one endpoint's request with pacing and retries, and returns the envelope's `data`. */
export type Requester = <Id extends EndpointId>(id: Id, call?: Call) => Promise<EndpointData<Id>>;

/** One raw request: any method and path on the client's server, sent as the resource methods send theirs. */
export interface RawRequest extends RequestOptions {
  /** `GET`, `POST`, …; case-insensitive. */
  method: string;
  /**
   * The path on the base URL's server, starting with `/`: `/api/v1/me/balance`. It may carry a query. Dot segments,
   * backslashes and absolute URLs are refused, so a raw request never leaves the server the token belongs to.
   */
  path: string;
  /** More query parameters; undefined and null values are left out. */
  query?: Record<string, string | number | boolean | null | undefined> | undefined;
  /** Sent as JSON (Content-Type: application/json). */
  body?: unknown;
  /**
   * Sent exactly as it is, instead of `body` (`topup api --input`); Content-Type is application/json unless
   * `headers` give another.
   */
  rawBody?: string | undefined;
  /** Extra headers. Authorization is the client's own and cannot be given here. */
  headers?: Record<string, string> | undefined;
  /** Sent as Idempotency-Key: makes a POST safe to retry, so it is retried like a GET. */
  idempotencyKey?: string | undefined;
  /**
   * By default an answer outside 2xx rejects with its error class (AuthError, ValidationError, …), as every method
   * does. `false` resolves with it instead, after the same retries: `topup api` prints every answer.
   */
  throwOnError?: boolean | undefined;
}

/** An answer to a raw request. */
export interface RawResponse {
  status: number;
  ok: boolean;
  /** Header lookup by name, case-insensitive; `forEach` lists them all (a fetch Response's headers have it). */
  headers: { get(name: string): string | null; forEach?(callback: (value: string, name: string) => void): void };
  /** The body as text, exactly as it arrived. */
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  body: unknown;
}

export interface Requesters {
  request: Requester;
  raw(this: void, request: RawRequest): Promise<RawResponse>;
  /** The client's one pacer; undefined with `pacing: false`. A batch seeds it with its earlier send times. */
  pacer: Pacer | undefined;
  /** Tells onWait (or the once-per-kind warning) of a pause made outside a request: a batch's pacing. */
  reportWait(this: void, reason: ClientWait['reason'], ms: number, request: string): void;
}

/** What one send needs to know of its route. */
interface Route {
  method: string;
  /** Expanded, with a leading slash, without the query. */
  path: string;
  /** Whether the token goes with it. */
  auth: boolean;
  /** The published limit it counts against; undefined for a write outside the interface (no pacing). */
  rateClass: RateClass | undefined;
  /** A read outside the interface, paced as `rateClass`: its answer's rate-limit headers may be another class's. */
  pacedOnly?: boolean;
  /** How hooks name the request: the route's template for the resource methods. */
  label: string;
}

/** The process warning for a long wait nobody asked to hear about (no onWait hook). */
function longWaitWarning(wait: ClientWait): void {
  const seconds = (wait.ms / 1000).toFixed(1);
  const why =
    wait.reason === 'pacing'
      ? 'to keep under the published rate limit (pass pacing: false for a server without limits, such as a sandbox made with rateLimit: false)'
      : wait.reason === 'retry-after'
        ? 'because the server asked to retry later (Retry-After)'
        : 'before retrying a failed request';
  globalThis.process?.emitWarning?.(`topup client: waiting ${seconds} s before ${wait.request} ${why}; pass onWait to see every wait.`, {
    code: 'TOPUP_LONG_WAIT',
  });
}

/** What every send of one client shares. */
interface Sender {
  options: ResolvedOptions;
  pacer: Pacer | undefined;
  secrets: string[];
  /** The last answer of a request that failed with it, for `throwOnError: false`. */
  failedAnswers: WeakMap<object, RawResponse>;
  /** Kinds of long wait already told about without an onWait hook: once each per client is enough. */
  warnedOf: Set<ClientWait['reason']>;
}

export function createRequester(options: ResolvedOptions): Requesters {
  const sender: Sender = {
    options,
    pacer: options.pacing ? new Pacer({ clock: options.clock }) : undefined,
    secrets: options.token === undefined ? [] : [options.token],
    failedAnswers: new WeakMap(),
    warnedOf: new Set(),
  };

  const request: Requester = async <Id extends EndpointId>(id: Id, call: Call = {}): Promise<EndpointData<Id>> => {
    const endpoint = endpointRoutes[id];
    const path = expandPath(endpoint.path, call.params ?? {});
    const answer = await send(
      sender,
      { ...endpoint, path, label: `${endpoint.method} ${endpoint.path}` },
      { ...call, searchParams: toSearchParams(call.query) },
    );
    return dataOf(id, answer.body, answer.status) as EndpointData<Id>;
  };

  const raw = async (rawRequest: RawRequest): Promise<RawResponse> => {
    const { route, searchParams, headers } = rawRoute(rawRequest);
    try {
      return await send(sender, route, {
        headers,
        body: rawRequest.body,
        rawBody: rawRequest.rawBody,
        idempotencyKey: rawRequest.idempotencyKey,
        signal: rawRequest.signal,
        searchParams,
      });
    } catch (error) {
      const answer = typeof error === 'object' && error !== null ? sender.failedAnswers.get(error) : undefined;
      if (rawRequest.throwOnError === false && answer !== undefined) return answer;
      throw error;
    }
  };

  return { request, raw, pacer: sender.pacer, reportWait: (reason, ms, request) => waitReporter(sender, request)(reason, ms) };
}

type SendCall = Call & { searchParams?: URLSearchParams | undefined };

/** One request with pacing and retries; rejects with the error class of a non-2xx answer. */
function send(sender: Sender, route: Route, call: SendCall): Promise<RawResponse> {
  const { options, pacer } = sender;
  const attempt = {
    method: route.method,
    path: route.path.slice(1),
    searchParams: call.searchParams,
    json: call.body,
    text: call.rawBody,
    headers: outgoingHeaders(route, call, options.token),
    signal: call.signal,
  };
  refuseTokenInUrl(attempt.path, attempt.searchParams, options.token);
  // A POST is repeated only under an Idempotency-Key, which makes the repeat harmless.
  const retryable = route.method === 'GET' || call.idempotencyKey !== undefined;
  const onWait = waitReporter(sender, route.label);
  const { rateClass } = route;
  // The call's place in the pacer's queue: a retry goes before the calls made after this one.
  const place = pacer?.takePlace();

  return withRetries(
    async (_retry, started) => {
      const release =
        pacer === undefined || rateClass === undefined
          ? undefined
          : await pacer.acquire(rateClass, call.signal, (ms) => onWait('pacing', ms), place);
      started();
      try {
        return await sendOnce(sender, route, attempt);
      } finally {
        release?.();
      }
    },
    { retryable, policy: options.retryPolicy, clock: options.clock, signal: call.signal, onWait, onRetry: call.onRetry },
  );
}

/** The headers of a request, checked; the token only on routes that take it. */
function outgoingHeaders(route: Route, call: SendCall, token: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = checkedIdempotencyKey(call.idempotencyKey);
  // Public endpoints never see the token: the fewer places it goes, the fewer places it can leak from.
  if (route.auth && token !== undefined) headers.authorization = `Bearer ${token}`;
  for (const [name, value] of Object.entries(headers)) checkHeaderValue(name, value);
  return headers;
}

/** Every wait goes to onWait; without one, a long wait is told about once per kind. */
function waitReporter(sender: Sender, request: string): (reason: ClientWait['reason'], ms: number, status?: number) => void {
  return (reason, ms, status) => {
    const wait: ClientWait = status === undefined ? { reason, ms, request } : { reason, ms, request, status };
    if (sender.options.onWait !== undefined) callHook('onWait', sender.options.onWait, wait, sender.secrets);
    else if (ms > LONG_WAIT_MS && !sender.warnedOf.has(reason)) {
      sender.warnedOf.add(reason);
      longWaitWarning(wait);
    }
  };
}

/** One attempt: sent, reported to onResponse, its limits told to the pacer; a non-2xx answer throws its error. */
async function sendOnce(sender: Sender, route: Route, attempt: Parameters<typeof sendAttempt>[0]): Promise<RawResponse> {
  const { options, pacer } = sender;
  const { clock } = options;
  const sentAt = clock.now();
  const { answer, body } = await sendAttempt(attempt, options);
  callHook(
    'onResponse',
    options.onResponse,
    { method: route.method, url: `${options.baseUrl}${attempt.path}`, status: answer.status, durationMs: clock.now() - sentAt },
    sender.secrets,
  );
  const parsed = parseBody(body);
  const retryAfter = parseRetryAfter(answer.headers.get(RATE_LIMIT_HEADERS.retryAfter), clock.now());
  if (route.rateClass !== undefined && route.pacedOnly !== true) pacer?.observe(route.rateClass, rateLimitReport(answer, retryAfter));
  const response: RawResponse = { status: answer.status, ok: answer.ok, headers: answer.headers, text: body, body: parsed };
  if (!answer.ok) {
    const error = errorFromResponse({ status: answer.status, body: parsed, retryAfter }, sender.secrets);
    sender.failedAnswers.set(error, response);
    throw error;
  }
  return response;
}

/** A raw request's route, checked: a method, a path on this server, and no Authorization of the caller's own. */
function rawRoute(rawRequest: RawRequest): { route: Route; searchParams: URLSearchParams | undefined; headers: Record<string, string> } {
  const method = rawRequest.method.toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`'${rawRequest.method}' is not an HTTP method.`);
  const { path, searchParams } = rawTarget(rawRequest.path, rawRequest.query);
  if (rawRequest.headers !== undefined && Object.keys(rawRequest.headers).some((name) => name.toLowerCase() === 'authorization')) {
    throw new UsageError("The Authorization header is the client's own: give the token as the client's `token` option.");
  }
  // Spelt as most servers take it the same (`me/orders/`, `me//orders`, `ME/Orders`), a listed route is paced as one.
  const known = routeOf(method, path) ?? routeOf(method, routingForm(path));
  // A path the interface does not list (a newer endpoint) is the caller's choice: it gets the token. A read of it is
  // paced as a user read (the published limit on reads); what a write to it may cost, the document does not say.
  const rateClass = known?.rateClass ?? (method === 'GET' || method === 'HEAD' ? 'user-read' : undefined);
  const route: Route = {
    method,
    path,
    auth: known?.auth ?? true,
    rateClass,
    ...(known === undefined ? { pacedOnly: true } : {}),
    label: `${method} ${known?.path ?? path}`,
  };
  const headers = Object.fromEntries(Object.entries(rawRequest.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return { route, searchParams, headers };
}

/** A path (no query) as routes are matched: lower case, no empty segments, no trailing slash. */
function routingForm(path: string): string {
  const pathname = path.toLowerCase().replace(/\/{2,}/g, '/');
  return pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
}

/** A raw request's path and query, checked: a path on this server, never another host's or outside it by dot segments. */
function rawTarget(path: string, query: RawRequest['query']): { path: string; searchParams: URLSearchParams | undefined } {
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//'))
    throw new UsageError('The path of a raw request starts with a single /, for example /api/v1/me/balance.');
  if (/[\\#\s]/.test(path)) throw new UsageError('The path of a raw request must not contain backslashes, spaces or a #fragment.');
  const queryAt = path.indexOf('?');
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new UsageError('The path of a raw request has a malformed %-escape.');
  }
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..'))
    throw new UsageError('The path of a raw request must not have . or .. segments.');
  const searchParams = new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1));
  for (const [name, value] of toSearchParams(query) ?? []) searchParams.append(name, value);
  return { path: pathname, searchParams: searchParams.size === 0 ? undefined : searchParams };
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
  const inPath = path.includes(token) || percentDecoded(path).includes(token);
  const inQuery = query !== undefined && [...query.entries()].some(([name, value]) => name.includes(token) || value.includes(token));
  if (inPath || inQuery) throw new UsageError('The token must never be put in a URL; it is sent only in the Authorization header.');
}

/** A path with its percent escapes decoded (`%5F` is `_`), each run of them alone: a malformed one stays as it is. */
function percentDecoded(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}

/**
 * The key as it is sent. HTTP drops white space at either end of a header value, so `' k '` would reach the server as
 * `k` (and `'   '` as nothing: a POST retried as keyed that the server sees unkeyed), while the call and its errors
 * name the key given: refused rather than changed.
 */
function checkedIdempotencyKey(key: string): string {
  if (typeof key === 'string' && key !== '' && key.trim() !== key)
    throw new UsageError(
      'The Idempotency-Key must not start or end with white space: HTTP drops it, and the server would get another key.',
    );
  return key;
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
