import { ResponseTooLargeError } from '../errors.js';

/** The most an answer's body may hold, decoded, unless the client's `maxResponseBytes` says otherwise: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Set on the init of each fetch call the client makes, for a fetch that reads whole bodies before it answers (the
 * CLI's own over node:http): it stops reading past this many decoded bytes. Any other fetch ignores it; the client
 * then counts the body as it streams in.
 */
export const MAX_RESPONSE_BYTES = Symbol.for('topup.maxResponseBytes');

/**
 * The one sentence for a body past the limit, from whichever side noticed; `setBy` says what sets the limit, for whoever
 * reads it: the library's option by default, the CLI's own limit in the CLI (whose user has no such option).
 */
export function responseTooLarge(
  url: string,
  maxBytes: number,
  status?: number,
  setBy = 'maxResponseBytes sets the limit',
): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `The answer from ${new URL(url).origin} is larger than ${sizeText(maxBytes)} and was not read (${setBy}).`,
    maxBytes,
    { status },
  );
}

function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/** What the client needs of an answer to read its body within a limit: a WHATWG Response has both. */
interface Readable {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body?: unknown;
  text(): Promise<string>;
}

/**
 * The body as text, read only up to `maxBytes` decoded bytes. A stream (any WHATWG fetch) is counted chunk by chunk
 * and cancelled past the limit, so a gzip bomb is never inflated further than that; a declared Content-Length past
 * the limit fails before a byte is read. An answer without a stream (the CLI's own fetch, which stops at the limit
 * itself) is read whole and checked.
 */
export async function readBodyWithin(answer: Readable, url: string, maxBytes: number): Promise<string> {
  const tooLarge = () => responseTooLarge(url, maxBytes, answer.status);
  const declared = Number(answer.headers.get('content-length') ?? Number.NaN);
  // Content-Length counts encoded bytes: past the limit, the decoded body is too.
  if (Number.isFinite(declared) && declared > maxBytes) {
    cancel(answer.body);
    throw tooLarge();
  }
  const stream = answer.body;
  if (!isReadableStream(stream)) {
    const text = await answer.text();
    // UTF-16 units never outnumber UTF-8 bytes; only a text near the limit is encoded to count exactly.
    if (text.length > maxBytes || (text.length * 3 > maxBytes && new TextEncoder().encode(text).byteLength > maxBytes)) throw tooLarge();
    return text;
  }
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      // Not awaited: a stream may never settle its cancel (msw's does not), and the answer is refused either way.
      reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

/** Cancels a body that is refused, without waiting: a stream may never settle its cancel (msw's does not). */
function cancel(body: unknown): void {
  if (isReadableStream(body)) body.cancel().catch(() => undefined);
}
