import type { IncomingMessage, RequestOptions } from 'node:http';
import { answerBegun, ON_ANSWER_BEGUN } from '../client/answer-begun.js';
import { finalFetchError } from '../client/http.js';
import { nextHop, REDIRECT_STATUSES, type Hop } from '../client/redirects.js';
import { DEFAULT_MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES, responseTooLarge } from '../client/response-limit.js';
import { FetchAnswer, plainInit, type PlainInit } from './fetch-answer.js';

/**
 * A fetch over node:http(s), for the CLI's requests to a server. Node 20's own fetch loads undici and compiles its
 * HTTP parser (WebAssembly) on the first request, and at exit the process waits for V8 to finish optimising it:
 * together some 70 ms, more than the rest of a command (BENCHMARKS.md). The library keeps the global fetch; this
 * serves one-shot CLI processes. Bodies are small JSON, so both directions are buffered whole.
 * Follows redirects by the client's one rule (client/redirects.ts), and refuses the others as fetch fails: a TypeError
 * whose cause is the RedirectRefusedError. The client asks for `redirect: 'manual'` and applies the same rule itself.
 * Answers with a FetchAnswer (see there). A body is read only up to the limit the client sets on the init
 * (response-limit.ts), counted as it arrives and again as it is decompressed.
 */
export async function httpFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = typeof input === 'string' || input instanceof URL ? plainInit(init) : await requestInit(input, init);
  const given = (init as { [MAX_RESPONSE_BYTES]?: unknown } | undefined)?.[MAX_RESPONSE_BYTES];
  const maxBytes = typeof given === 'number' ? given : DEFAULT_MAX_RESPONSE_BYTES;
  const hook = (init as { [ON_ANSWER_BEGUN]?: unknown } | undefined)?.[ON_ANSWER_BEGUN];
  const begun = typeof hook === 'function' ? (hook as (status: number) => void) : undefined;
  let outgoing: Outgoing = {
    url: new URL(typeof input === 'string' || input instanceof URL ? input : input.url).href,
    method: request.method,
    headers: request.headers,
    body: request.body,
  };
  for (let redirects = 0; ; redirects++) {
    const answer = await send(outgoing, request.signal);
    const next = request.redirect === 'manual' ? undefined : followed(outgoing, answer, redirects, request.redirect);
    if (next === undefined) {
      begun?.(answer.statusCode ?? 500);
      return (await toAnswer(answer, request.signal, maxBytes, outgoing.url)).asResponse();
    }
    answer.resume();
    outgoing = next;
  }
}

/** The next request of a redirect, or undefined for an answer to keep; a refused redirect fails as fetch fails. */
function followed(previous: Outgoing, answer: IncomingMessage, redirects: number, mode: RequestRedirect): Outgoing | undefined {
  const status = answer.statusCode ?? 0;
  const headers = { get: (name: string) => headerOf(answer, name) };
  try {
    if (mode === 'error' && REDIRECT_STATUSES.has(status) && headers.get('location') !== null) throw new Error('unexpected redirect');
    return nextHop(previous, { status, headers }, redirects);
  } catch (error) {
    answer.resume();
    throw new TypeError('fetch failed', { cause: error });
  }
}

function headerOf(answer: IncomingMessage, name: string): string | null {
  const value = answer.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A Request handed over (undici is loaded already then), read into the same plain form. */
async function requestInit(request: Request, init: RequestInit | undefined): Promise<PlainInit> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
  return plainInit({ method: request.method, headers, body, signal: request.signal, redirect: request.redirect, ...init });
}

/** Lower-case header names; the body as the caller gave it. */
type Outgoing = Hop<Buffer>;

/** Statuses whose answer has no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

async function send(outgoing: Outgoing, signal: PlainInit['signal']): Promise<IncomingMessage> {
  const { body } = outgoing;
  const url = new URL(outgoing.url);
  const { request: open } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers = body === undefined ? outgoing.headers : { ...outgoing.headers, 'content-length': String(body.length) };
  signal?.throwIfAborted();
  const options: RequestOptions = { method: outgoing.method, headers };
  return new Promise((resolve, reject) => {
    const sent = open(url, options, (answer) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(answer);
    });
    const onAbort = () => {
      sent.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // Shaped like undici's failures: a TypeError whose cause holds the code (ECONNREFUSED, ENOTFOUND).
    sent.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    sent.end(body);
  });
}

async function toAnswer(answer: IncomingMessage, signal: PlainInit['signal'], maxBytes: number, url: string): Promise<FetchAnswer> {
  const status = answer.statusCode ?? 500;
  const tooLarge = () => {
    answer.destroy();
    return finalFetchError(responseTooLarge(url, maxBytes, status, 'topup reads no more of one answer'));
  };
  // Content-Length counts the bytes sent: past the limit, the body is too, decoded or not.
  if (Number(answer.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let received = 0;
  const onAbort = () => answer.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of answer) {
      received += (chunk as Buffer).length;
      if (received > maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (isTooLarge(error)) throw error;
    throw signal?.aborted ? signal.reason : answerBegun(new TypeError('fetch failed', { cause: error }), status);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // A destroyed stream may end the loop quietly.
  signal?.throwIfAborted();
  const raw = answer.rawHeaders;
  const headers: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) headers.push([raw[i]!, raw[i + 1]!]);
  let body: Buffer = Buffer.alloc(0);
  if (!NULL_BODY.has(status)) {
    const encoding = answer.headers['content-encoding'];
    try {
      body = await decoded(Buffer.concat(chunks), encoding, maxBytes);
    } catch (error) {
      // zlib stops inflating at maxOutputLength: a small gzip bomb never grows past the limit.
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw answerBegun(new TypeError('fetch failed', { cause: error }), status);
    }
  }
  // As fetch does, a decoded body no longer carries its encoding.
  const shown =
    answer.headers['content-encoding'] === undefined ? headers : headers.filter(([name]) => !/^content-(encoding|length)$/i.test(name));
  return new FetchAnswer(status, answer.statusMessage ?? '', shown, body);
}

/** We never ask for compression, but a server may send it anyway; fetch would decode it. */
async function decoded(body: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  if (encoding === undefined || encoding === 'identity' || body.length === 0) return body;
  const zlib = await import('node:zlib');
  const { promisify } = await import('node:util');
  const within = { maxOutputLength: maxBytes };
  if (encoding === 'gzip' || encoding === 'x-gzip') return promisify(zlib.gunzip)(body, within);
  if (encoding === 'deflate') return promisify(zlib.inflate)(body, within);
  if (encoding === 'br') return promisify(zlib.brotliDecompress)(body, within);
  return body;
}

/** The limit's own error, thrown from inside the read loop: not a transport failure to wrap. */
function isTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === 'ResponseTooLargeError';
}
