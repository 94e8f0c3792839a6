import { raceAbort } from '../abort.js';
import { redactHeaders, redactUrl } from '../contract/redact.js';
import { ResponseTooLargeError } from '../errors.js';
import { nextHop, RedirectRefusedError, type Hop } from './redirects.js';
import { MAX_RESPONSE_BYTES, readBodyWithin } from './response-limit.js';
import { connectionFailure, timeoutFailure } from './transport-failure.js';
import type { FetchFunction, OutgoingRequest, ResolvedOptions } from './options.js';

/** One attempt as the transport sends it. */
export interface Attempt {
  method: string;
  /** Relative to the base URL, without a leading slash. */
  path: string;
  searchParams?: URLSearchParams | undefined;
  json?: unknown;
  /** A body already written, sent instead of `json`. */
  text?: string | undefined;
  /** Lower-case names. */
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * What the client reads of an answer. A WHATWG Response has all of it, so any fetch will do;
 * the CLI's own fetch functions return only this, which spares them loading node's undici.
 */
export interface Answer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null; forEach?(callback: (value: string, name: string) => void): void };
  /** A browser's `opaqueredirect` under `redirect: 'manual'`; otherwise unread. */
  readonly type?: string;
  /** A WHATWG body stream, cancelled when a redirect's body is not read; absent from the CLI's own answers. */
  readonly body?: unknown;
  text(): Promise<string>;
}

/** An answer with its body read whole. */
export interface ReceivedAnswer {
  answer: Answer;
  body: string;
}

/**
 * Sends one attempt through the injected fetch and reads its body: base URL, Accept, User-Agent, the JSON body,
 * the per-attempt timeout and the debug hook. HTTP errors come back as answers; retry.ts decides what happens next.
 * Transport failures become ConnectionError or TimeoutError; an abort rejects with the signal's reason.
 * Plain fetch, not ky: ky builds a Request per call and probes Request when it loads, which costs a CLI run
 * more than everything else it does (BENCHMARKS.md).
 */
export async function sendAttempt(
  attempt: Attempt,
  options: Pick<ResolvedOptions, 'baseUrl' | 'fetch' | 'timeout' | 'maxResponseBytes' | 'token' | 'userAgent' | 'onRequest'>,
): Promise<ReceivedAnswer> {
  const query = attempt.searchParams === undefined ? '' : `?${attempt.searchParams.toString()}`;
  const url = new URL(`${options.baseUrl}${attempt.path}${query}`).href;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': options.userAgent,
    ...(attempt.json === undefined && attempt.text === undefined ? {} : { 'content-type': 'application/json' }),
    ...attempt.headers,
  };
  // Outside the try: an error of the caller's own hook is theirs, not a transport failure.
  options.onRequest?.(describeRequest(attempt.method, url, headers, options.token));

  const body = attempt.text ?? (attempt.json === undefined ? undefined : JSON.stringify(attempt.json));
  try {
    return await exchange(
      options.fetch,
      url,
      { method: attempt.method, headers, body },
      { timeout: options.timeout, maxResponseBytes: options.maxResponseBytes, signal: attempt.signal },
    );
  } catch (error) {
    if (error instanceof TransportFailure) throw connectionFailure(error.reason, url, options.token, error.during);
    throw error;
  }
}

const FINAL = Symbol.for('topup.finalFetchError');

/**
 * Marks an error a custom fetch rejects with as the end of the call: not a network failure to retry, but a problem the
 * caller must see as it is (the CLI's embedded sandbox uses it when its state file cannot be read).
 */
export function finalFetchError<E extends Error>(error: E): E {
  return Object.assign(error, { [FINAL]: true });
}

function isFinalFetchError(error: unknown): boolean {
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[FINAL] === true;
}

/** The request failed before its answer was whole: `during` says whether any of the answer had arrived. */
export class TransportFailure extends Error {
  override name = 'TransportFailure';
  constructor(
    readonly reason: unknown,
    readonly during: 'request' | 'body',
  ) {
    super('The request failed in transport.');
  }
}

/**
 * One request and its whole answer within `timeout` and `maxResponseBytes`: a server may send its headers and then
 * stall mid-body, or send far more than any answer of this API holds (a gzip bomb).
 * Rejects with the caller's abort reason, a TimeoutError, or a TransportFailure. Aborting the signal given to
 * fetch also cancels the body and closes its connection; the waits are raced as well, for a fetch that ignores it.
 */
export async function exchange(
  fetch: FetchFunction | ((url: string, init: RequestInit) => Promise<Answer>),
  url: string,
  request: { method: string; headers: Record<string, string>; body?: string | undefined },
  limits: { timeout: number; maxResponseBytes: number; signal?: AbortSignal | undefined },
): Promise<ReceivedAnswer> {
  const { signal } = limits;
  signal?.throwIfAborted();
  // One signal for the caller's abort and the timeout; listeners rather than AbortSignal.any, which keeps
  // a reference on a long-lived caller's signal for every attempt.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, limits.timeout);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let during: 'request' | 'body' = 'request';
  try {
    // Redirects are followed in redirects.ts, not by fetch, which would resend a 307/308's body to another origin.
    let hop: Hop = { url, ...request };
    for (let hops = 0; ; hops++) {
      const init: RequestInit & { [MAX_RESPONSE_BYTES]: number } = {
        method: hop.method,
        headers: hop.headers,
        signal: controller.signal,
        redirect: 'manual',
        ...(hop.body === undefined ? {} : { body: hop.body }),
        // For a fetch that buffers whole bodies itself (the CLI's): where to stop. Other fetches ignore it.
        [MAX_RESPONSE_BYTES]: limits.maxResponseBytes,
      };
      const answer: Answer = await raceAbort(fetch(hop.url, init), controller.signal);
      const next = nextHop(hop, answer, hops);
      if (next === undefined) {
        during = 'body';
        const body = await raceAbort(readBodyWithin(answer, hop.url, limits.maxResponseBytes), controller.signal);
        return { answer, body };
      }
      discardBody(answer);
      hop = next;
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) throw timeoutFailure(url, limits.timeout);
    if (error instanceof ResponseTooLargeError) {
      // Closes the connection the oversized body was still arriving on.
      controller.abort(error);
      throw error;
    }
    if (isFinalFetchError(error) || error instanceof RedirectRefusedError) throw error;
    throw new TransportFailure(error, during);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A redirect's own body is never read: cancelling the stream frees the connection at once. */
function discardBody(answer: Answer): void {
  const stream = answer.body as { cancel?: () => Promise<void> } | null | undefined;
  if (typeof stream?.cancel === 'function') stream.cancel().catch(() => undefined);
}

/**
 * The request as the debug hook sees it, its secrets cut (src/contract/redact.ts): credentials in headers, secret
 * query parameters, and the token wherever it appears. Headers by name, as fetch lists them.
 */
export function describeRequest(method: string, url: string, headers: Record<string, string>, token?: string): OutgoingRequest {
  const known = [token];
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) sorted[name] = headers[name]!;
  return { method, url: redactUrl(url, known), headers: redactHeaders(sorted, known) };
}
