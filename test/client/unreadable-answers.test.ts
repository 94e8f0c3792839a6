import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/cli/http-fetch.js';
import { createClient, isTopupError, type FetchFunction, type TopupError } from '../../src/index.js';
import { deepPackages, deepServerError, nestedList, useAnswerServer } from '../support/answer-server.js';

/**
 * The library, through fetch (undici) and through the CLI's own fetch over node:http, given an answer that came whole
 * but cannot be used: nested past MAX_ANSWER_DEPTH, or not decodable per its Content-Encoding. Either is one TopupError
 * (kind `api`, code UNREADABLE_ANSWER) after exactly one request; once they were a ConnectionError, retried. An answer
 * at the limit, or really compressed, reads as ever.
 */

const server = useAnswerServer();

const fetches: [string, FetchFunction][] = [
  ['fetch', globalThis.fetch],
  ['the CLI fetch', httpFetch],
];

/** One retry allowed, quickly: a refusal that was retried shows as a second request. */
const clientFor = (fetch: FetchFunction) => createClient({ baseUrl: server.url, fetch, pacing: false, maxRetries: 1 });

async function refusal(promise: Promise<unknown>): Promise<TopupError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isTopupError(error)) throw new Error(`expected a TopupError, got ${String(error)}`);
  return error;
}

describe.each(fetches)('through %s', (_name, fetch) => {
  it.each([
    [200, deepPackages(100_000)],
    [200, deepPackages(511)],
    [500, deepServerError(100_000)],
    [500, deepServerError(511)],
  ])('a %i answer nested past 512 levels: one TopupError, not retried', async (status, body) => {
    server.answer = { status, body };
    const error = await refusal(clientFor(fetch).catalog.creditPackages());
    expect({ name: error.name, kind: error.kind, code: error.code, status: error.status, message: error.message }).toEqual({
      name: 'TopupError',
      kind: 'api',
      code: 'UNREADABLE_ANSWER',
      status,
      message: `${server.url} answered, but its answer could not be read: it nests arrays and objects more than 512 levels deep.`,
    });
    expect(server.requests).toBe(1);
  });

  it('an answer nested 512 levels deep reads as ever', async () => {
    server.answer = { status: 200, body: deepPackages(510) };
    const data = (await clientFor(fetch).catalog.creditPackages()) as { x?: unknown };
    expect(JSON.stringify(data.x)).toBe(nestedList(510));
  });

  it('an answer with more brackets than the limit, but shallow, reads as ever: in its strings and side by side', async () => {
    const note = '[{'.repeat(600);
    const packages = Array.from({ length: 600 }, (_, i) => ({ code: `P${i}`, tags: [[], {}] }));
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data: { packages, note } }) };
    const data = (await clientFor(fetch).catalog.creditPackages()) as { packages: unknown[]; note?: unknown };
    expect({ packages: data.packages.length, last: data.packages.at(-1), note: data.note }).toEqual({
      packages: 600,
      last: { code: 'P599', tags: [[], {}] },
      note,
    });
  });

  const body = JSON.stringify({ success: true, message: 'ok', data: { packages: [] } });

  it.each([
    ['gzip', 'incorrect header check'],
    ['br', 'Decompression failed'],
  ])('a body that is not %s, though its Content-Encoding says so: one TopupError, not retried', async (encoding, words) => {
    server.answer = { status: 200, body, headers: { 'content-encoding': encoding } };
    const error = await refusal(clientFor(fetch).catalog.creditPackages());
    expect({ name: error.name, kind: error.kind, code: error.code, message: error.message }).toEqual({
      name: 'TopupError',
      kind: 'api',
      code: 'UNREADABLE_ANSWER',
      message: `${server.url} answered, but its answer could not be read: its body could not be decoded as its Content-Encoding says (${words}).`,
    });
    expect(server.requests).toBe(1);
  });

  it.each([
    ['gzip', gzipSync(body)],
    ['br', brotliCompressSync(body)],
  ])('a body really %s-encoded reads as ever', async (encoding, encoded) => {
    server.answer = { status: 200, body: encoded, headers: { 'content-encoding': encoding } };
    expect(await clientFor(fetch).catalog.creditPackages()).toEqual({ packages: [] });
  });
});
