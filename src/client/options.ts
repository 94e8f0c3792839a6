import { checkToken, parseBaseUrl } from './base-url.js';
import { raceAbort } from '../abort.js';
import { systemClock, type Clock } from './clock.js';
import { UsageError } from '../errors.js';
import { declaresNoRateLimits } from '../contract/sandbox-control.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.js';

/** How long one attempt may take, headers and body, unless the client is told otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A WHATWG fetch: the global one, undici's, msw's, or the sandbox's in-process one. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What the `onRequest` debug hook sees of each attempt: credentials, secret query parameters and the token redacted. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
}

export interface ClientOptions {
  /** Site root, for example `https://shop.example.com`. Plain http:// only for loopback hosts unless `allowInsecureHttp`. */
  baseUrl: string;
  /** User API Token. Needed only for `/me`, orders, invoices and `token.validate`; sent only to those, only in the Authorization header. */
  token?: string | undefined;
  /** Defaults to the global fetch. */
  fetch?: FetchFunction | undefined;
  /** Milliseconds one attempt may take, up to the last byte of the answer, before it fails with TimeoutError. Default 30 000. */
  timeout?: number | undefined;
  /**
   * The most bytes an answer's body may hold, counted after decompression, with or without a Content-Length. A larger
   * answer fails with ResponseTooLargeError as soon as it passes the limit. Default 8 MiB (8 388 608).
   */
  maxResponseBytes?: number | undefined;
  /** Retries after the first attempt. Default 4; 0 turns retries off. */
  maxRetries?: number | undefined;
  /** Milliseconds after the first attempt when no more retries start; also the longest Retry-After honoured. Default 60 000. */
  maxRetryTime?: number | undefined;
  /**
   * Keep to the published rate limits and 2 requests in flight. Default true, except with a fetch that says its server
   * has no limits (the sandbox's `sandbox.fetch` made with `rateLimit: false`).
   */
  pacing?: boolean | undefined;
  /** Allow plain http:// to a host that is not loopback. Default false. */
  allowInsecureHttp?: boolean | undefined;
  /** User-Agent header. Default `topup-client`. */
  userAgent?: string | undefined;
  /** Debug hook called before every attempt. */
  onRequest?: ((request: OutgoingRequest) => void) | undefined;
  /** Debug hook called with every answer's status and how long the attempt took. */
  onResponse?: ((response: ReceivedResponse) => void) | undefined;
  /**
   * Called before every pause the client makes on its own: to stay under the published rate limits (`pacing`), for a
   * server's Retry-After, or for backoff between retries. A long wait is then never silent (the CLI says so after 2 s).
   * Without this hook, the first wait over 2 s of each kind is a process warning (`TOPUP_LONG_WAIT`), so that a test
   * that times out while the client paces says why.
   */
  onWait?: ((wait: ClientWait) => void) | undefined;
  /** Replaces parts of the clock (now, sleep, random), for tests. */
  clock?: Partial<Clock> | undefined;
}

export interface ResolvedOptions {
  baseUrl: string;
  token: string | undefined;
  fetch: FetchFunction;
  timeout: number;
  maxResponseBytes: number;
  retryPolicy: RetryPolicy;
  pacing: boolean;
  /** Plain http:// to a host that is not loopback, for the base URL and every redirect (redirects.ts). */
  allowInsecureHttp: boolean;
  userAgent: string;
  onRequest: ((request: OutgoingRequest) => void) | undefined;
  onResponse: ((response: ReceivedResponse) => void) | undefined;
  onWait: ((wait: ClientWait) => void) | undefined;
  clock: Clock;
}

/** What the `onResponse` hook sees of each answer. */
export interface ReceivedResponse {
  method: string;
  url: string;
  status: number;
  /** Milliseconds from sending to the last byte of the answer, on the client's clock. */
  durationMs: number;
}

/** A pause the client is about to make on its own. */
export interface ClientWait {
  reason: 'pacing' | 'retry-after' | 'backoff';
  /** How long, in milliseconds. */
  ms: number;
  /** The endpoint the wait is for, e.g. `POST /api/v1/me/orders`. */
  request: string;
  /**
   * Before a retry: the HTTP status of the answer that failed (429, 503, …); undefined when no answer arrived (a
   * connection lost) and for pacing.
   */
  status?: number | undefined;
}

export const defaults = {
  timeout: DEFAULT_TIMEOUT_MS,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  maxRetries: defaultRetryPolicy.maxRetries,
  maxRetryTime: defaultRetryPolicy.maxRetryTime,
  pacing: true,
  allowInsecureHttp: false,
  userAgent: 'topup-client',
} as const;

/** The largest delay setTimeout accepts. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The options the caller set on the object itself. An inherited value is never an option: a polluted
 * Object.prototype (`allowInsecureHttp` set there by some library's deep merge) must not switch a guard off.
 */
function ownOptions<T extends object>(options: T): Partial<T> {
  const own: Partial<T> = Object.create(null) as Partial<T>;
  for (const name of Object.keys(options) as (keyof T)[]) own[name] = options[name];
  return own;
}

/** Checks every option and fills in the defaults; throws UsageError before anything is sent. */
export function resolveOptions(given: ClientOptions): ResolvedOptions {
  if (typeof given !== 'object' || given === null) throw new UsageError('createClient needs an options object.');
  const options = ownOptions(given);
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function')
    throw new UsageError('No fetch function is available; pass the fetch option.');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new UsageError('The fetch option must be a function.');
  // Without one, the global fetch as it is at each request, not as it was when the client was made: a test's msw
  // (setupServer().listen()) replaces it after a bot's module made its client, and must still see every request.
  const fetchFunction: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const userAgent = options.userAgent ?? defaults.userAgent;
  if (!/^[\x20-\x7e]+$/.test(userAgent)) throw new UsageError('The userAgent must be visible ASCII text.');
  const clock = typeof options.clock === 'object' && options.clock !== null ? ownOptions(options.clock) : {};
  return {
    baseUrl: parseBaseUrl(options.baseUrl, {
      allowInsecureHttp: options.allowInsecureHttp,
      insecureAdvice: 'use https://, or set allowInsecureHttp on a network you trust',
    }),
    token: checkToken(options.token),
    fetch: fetchFunction,
    timeout: checkNumber('timeout', options.timeout ?? defaults.timeout, 1, MAX_TIMER_MS),
    maxResponseBytes: checkNumber(
      'maxResponseBytes',
      options.maxResponseBytes ?? defaults.maxResponseBytes,
      1,
      Number.MAX_SAFE_INTEGER,
      true,
    ),
    retryPolicy: {
      ...defaultRetryPolicy,
      maxRetries: checkNumber('maxRetries', options.maxRetries ?? defaults.maxRetries, 0, 100, true),
      maxRetryTime: checkNumber('maxRetryTime', options.maxRetryTime ?? defaults.maxRetryTime, 0, MAX_TIMER_MS),
    },
    pacing: options.pacing ?? (declaresNoRateLimits(options.fetch ?? globalThis.fetch) ? false : defaults.pacing),
    allowInsecureHttp: options.allowInsecureHttp === true,
    userAgent,
    onRequest: options.onRequest,
    onResponse: options.onResponse,
    onWait: options.onWait,
    clock: {
      now: clock.now ?? systemClock.now,
      sleep: clock.sleep === undefined ? systemClock.sleep : abortableBy(clock.sleep),
      random: clock.random ?? systemClock.random,
    },
  };
}

function checkNumber(name: string, value: number, min: number, max: number, integer = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new UsageError(`The ${name} option must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`);
  }
  return value;
}

/**
 * A caller's sleep that ends when the signal aborts, whether or not it heeds the signal itself: a fake clock's sleep
 * that ignores it would leave an aborted wait hanging, and a test with it.
 */
function abortableBy(sleep: Clock['sleep']): Clock['sleep'] {
  return (ms, signal) => raceAbort(sleep(ms, signal), signal);
}
