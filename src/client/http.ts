import { abortableWaits, whenAborted } from '../abort.js';
import { answerBegunStatus, ON_ANSWER_BEGUN } from './answer-begun.js';
import { callHook } from './hook-call.js';
import { finalFetchError, isFinalFetchError } from './final-fetch-error.js';
import { MAX_ANSWER_DEPTH, nestsDeeperThan, TOO_DEEP, unreadableAnswer } from './answer-data.js';
import { redactHeaders, redactUrl } from '../contract/redact.js';
import { ResponseTooLargeError } from '../errors.js';
import { nextHop, RedirectRefusedError, type Hop, type RedirectPolicy } from './redirects.js';
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
  options: Pick<
    ResolvedOptions,
    'baseUrl' | 'fetch' | 'timeout' | 'maxResponseBytes' | 'token' | 'userAgent' | 'onRequest' | 'allowInsecureHttp'
  >,
): Promise<ReceivedAnswer> {
  const query = attempt.searchParams === undefined ? '' : `?${attempt.searchParams.toString()}`;
  const url = new URL(`${options.baseUrl}${attempt.path}${query}`).href;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': options.userAgent,
    ...(attempt.json === undefined && attempt.text === undefined ? {} : { 'content-type': 'application/json' }),
    ...attempt.headers,
  };
  // Described (its secrets cut) only for a hook: the cut's patterns were a millisecond of every command without --debug.
  const announce = (method: string, to: string, sent: Record<string, string>) => {
    if (options.onRequest !== undefined)
      callHook('onRequest', options.onRequest, describeRequest(method, to, sent, options.token), [options.token]);
  };
  // Outside the try: an error of the caller's own hook is theirs, not a transport failure.
  announce(attempt.method, url, headers);

  const body = attempt.text ?? (attempt.json === undefined ? undefined : JSON.stringify(attempt.json));
  try {
    return await exchange(
      options.fetch,
      url,
      { method: attempt.method, headers, body },
      {
        timeout: options.timeout,
        maxResponseBytes: options.maxResponseBytes,
        signal: attempt.signal,
        redirects: { allowInsecureHttp: options.allowInsecureHttp },
        // --debug shows where each redirect went, as it showed the first request.
        onRedirect: (hop) => announce(hop.method, hop.url, hop.headers),
      },
    );
  } catch (error) {
    // The hop that failed: after a redirect, another host than the base URL's.
    if (error instanceof TransportFailure) throw connectionFailure(error.reason, error.url ?? url, options.token, error.during);
    throw error;
  }
}

export { finalFetchError };

/**
 * The request failed before its answer was whole: `during` says whether any of the answer had arrived, `url` where it
 * was going (a redirect's target, when it was one).
 */
export class TransportFailure extends Error {
  override name = 'TransportFailure';
  constructor(
    readonly reason: unknown,
    readonly during: 'request' | 'body',
    readonly url?: string,
  ) {
    super('The request failed in transport.');
  }
}

/**
 * One request and its whole answer within `timeout` and `maxResponseBytes`, nested at most MAX_ANSWER_DEPTH deep: a
 * server may send its headers and then stall mid-body, or send far more than any answer of this API holds (a gzip
 * bomb), or nest it deeper than whoever reads it can walk.
 * Rejects with the caller's abort reason, a TimeoutError, a TransportFailure, or a TopupError for an answer that came
 * but cannot be used (unreadableAnswer: too deep, or not decodable per its Content-Encoding; never retried). Aborting
 * the signal given to fetch also cancels the body and closes its connection; the waits are raced as well, for a fetch
 * that ignores it.
 */
export async function exchange(
  fetch: FetchFunction | ((url: string, init: RequestInit) => Promise<Answer>),
  url: string,
  request: { method: string; headers: Record<string, string>; body?: string | undefined },
  limits: {
    timeout: number;
    maxResponseBytes: number;
    signal?: AbortSignal | undefined;
    /** What redirects may do beyond the base URL's rule (redirects.ts). */
    redirects?: RedirectPolicy | undefined;
    /** Each redirect followed, before it is sent. */
    onRedirect?: ((hop: Hop) => void) | undefined;
  },
): Promise<ReceivedAnswer> {
  const { signal } = limits;
  signal?.throwIfAborted();
  // One signal for the caller's abort and the timeout; listeners rather than AbortSignal.any, which keeps
  // a reference on a long-lived caller's signal for every attempt.
  const controller = abortableWaits();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, limits.timeout);
  // One listener on the caller's signal however many requests share it (src/abort.ts).
  const stopWatching = signal && whenAborted(signal, () => controller.abort(signal.reason));
  let during: 'request' | 'body' = 'request';
  // Where the last request went and, once its answer came, its status: what an unreadable answer names.
  let at = url;
  let status: number | undefined;
  try {
    // Redirects are followed in redirects.ts, not by fetch, which would resend a 307/308's body to another origin.
    let hop: Hop = { url, ...request };
    for (let hops = 0; ; hops++) {
      const init: RequestInit & { [MAX_RESPONSE_BYTES]: number; [ON_ANSWER_BEGUN]: (status: number) => void } = {
        method: hop.method,
        headers: hop.headers,
        signal: controller.signal,
        redirect: 'manual',
        ...(hop.body === undefined ? {} : { body: hop.body }),
        // For a fetch that buffers whole bodies itself (the CLI's): where to stop. Other fetches ignore it.
        [MAX_RESPONSE_BYTES]: limits.maxResponseBytes,
        // For the same fetch: the head came, so a timeout from here on is a stalled body.
        [ON_ANSWER_BEGUN]: () => (during = 'body'),
      };
      at = hop.url;
      during = 'request';
      const answer: Answer = await controller.race(fetch(hop.url, init));
      const next = nextHop(hop, answer, hops, limits.redirects);
      if (next === undefined) {
        during = 'body';
        status = answer.status;
        const body = await controller.race(readBodyWithin(answer, hop.url, limits.maxResponseBytes));
        if (nestsDeeperThan(body, MAX_ANSWER_DEPTH)) throw finalFetchError(unreadableAnswer(hop.url, TOO_DEEP, answer.status));
        return { answer, body };
      }
      discardBody(answer);
      hop = next;
      try {
        limits.onRedirect?.(hop);
      } catch (hookError) {
        // The caller's own hook failed: theirs to see, not a network failure to retry.
        throw finalFetchError(hookError instanceof Error ? hookError : new Error(String(hookError)));
      }
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) throw timeoutFailure(at, limits.timeout, during);
    if (error instanceof ResponseTooLargeError) {
      // Closes the connection the oversized body was still arriving on.
      controller.abort(error);
      throw error;
    }
    if (isFinalFetchError(error) || error instanceof RedirectRefusedError) throw error;
    // A fetch that reads the body before it resolves failed mid-body: the server answered, and a POST may have landed.
    const begun = answerBegunStatus(error);
    if (begun !== undefined) {
      during = 'body';
      status ??= begun;
    }
    const undecodable = decodingFailure(error);
    if (undecodable !== undefined)
      throw unreadableAnswer(at, `its body could not be decoded as its Content-Encoding says (${undecodable})`, status);
    throw new TransportFailure(error, during, at);
  } finally {
    clearTimeout(timer);
    stopWatching?.();
  }
}

/**
 * zlib's and brotli's codes for a body that is not what its Content-Encoding says. Both undici and the CLI's fetch
 * (src/cli/http-fetch.ts) decode the whole body the server sent, and keep these in a `cause` of their TypeError.
 */
const DECODING_CODES = /^(Z_DATA_ERROR|Z_BUF_ERROR|Z_NEED_DICT|ERR__ERROR_FORMAT_|ERR__ERROR_DICTIONARY_)/;

/** The decoder's own words when a fetch failed because the answer's body could not be decoded; otherwise undefined. */
function decodingFailure(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DECODING_CODES.test(code)) return current.message || code;
  }
  return undefined;
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
