import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { LIVE_BATCH_MS } from '../../mocks/adapters/journal-stream.js';
import { MAX_COMPARED_PATH, nearestRoute } from '../../mocks/inspect/near-miss.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import {
  expectRequests,
  RequestFilterError,
  RequestJournal,
  VerificationError,
  type JournalEntry,
  type RequestFilter,
} from '../../mocks/index.js';
import type { LiveRequest } from '../../mocks/inspect/request-journal.js';
import { eventBytes } from '../../mocks/adapters/journal-event.js';
import { createClient, type FetchFunction } from '../../src/index.js';
import { journalEntry } from '../support/journal-entry.js';
import { fakeClock } from '../support/fake-clock.js';

/** An entry as `record()` takes one, already built (tests, imports); bodies given per test. */
const RECORDED = journalEntry({ time: '', method: 'POST', path: '/x' });

const ORDER = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

/** How much the heap grew across `work`, measured after a full collection on each side. */
function heapGrowthOf(work: () => void): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  work();
  gc();
  return process.memoryUsage().heapUsed - before;
}

async function call(
  sandbox: Sandbox,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await sandbox.fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return response.status;
}

describe('the request journal (in-process)', () => {
  it('records each request with its answer, route, account, key and replay, and never the token', async () => {
    const sandbox = await createSandbox();
    const rich = sandbox.account('rich');
    expect(await call(sandbox, 'GET', '/api/v1/catalog/credit-packages?x=1')).toBe(200);
    const order = { token: rich.token, body: ORDER, headers: { 'idempotency-key': 'bot-order-1' } };
    expect(await call(sandbox, 'POST', '/api/v1/me/orders', order)).toBe(201);
    expect(await call(sandbox, 'POST', '/api/v1/me/orders', order)).toBe(200);

    const [catalog, created, replayed] = sandbox.requests.list();
    expect(catalog).toMatchObject({
      id: 1,
      method: 'GET',
      path: '/api/v1/catalog/credit-packages',
      query: { x: '1' },
      status: 200,
      route: 'listCreditPackages',
      account: null,
      idempotent_replay: false,
      fault: null,
    });
    expect(catalog!.rate_limit).toMatchObject({ class: 'public-read', limit: 60, refused: false });
    expect(created).toMatchObject({
      id: 2,
      method: 'POST',
      status: 201,
      route: 'createOrder',
      account: 'rich',
      idempotency_key: 'bot-order-1',
      idempotent_replay: false,
    });
    expect(JSON.parse(created!.request_body!)).toEqual(ORDER);
    expect(JSON.parse(created!.response_body!).data.invoice.invoice_code).toMatch(/^INV/);
    expect(replayed).toMatchObject({ status: 200, idempotent_replay: true });
    expect(created!.headers.authorization).toBe(`Bearer topup_live_…${rich.token.slice(-4)}`);
    // The control views' one time format: ISO 8601 in UTC with milliseconds, no epoch number beside it.
    expect(created!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created).not.toHaveProperty('at');
    expect(JSON.stringify(sandbox.requests.list())).not.toContain(rich.token);
  });

  it('filters by method, path pattern, status class, account, key, time and id', async () => {
    const sandbox = await createSandbox();
    const rich = sandbox.account('rich');
    await call(sandbox, 'GET', '/api/v1/health');
    await call(sandbox, 'POST', '/api/v1/me/orders', { token: rich.token, body: ORDER, headers: { 'idempotency-key': 'k1' } });
    await call(sandbox, 'GET', '/api/v1/me/orders/INV20990101000001', { token: rich.token });
    await call(sandbox, 'GET', '/api/v1/me/balance', { token: 'topup_live_not_a_real_token_0000' });
    const paths = (entries: JournalEntry[]) => entries.map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(paths(sandbox.requests.list({ method: ['post', 'DELETE'] }))).toEqual(['POST /api/v1/me/orders 201']);
    expect(paths(sandbox.requests.list({ path: '/api/v1/me/orders/*' }))).toEqual(['GET /api/v1/me/orders/INV20990101000001 404']);
    expect(paths(sandbox.requests.list({ path: '/api/v1/me/**' }))).toHaveLength(3);
    expect(paths(sandbox.requests.list({ status: '4xx' }))).toEqual([
      'GET /api/v1/me/orders/INV20990101000001 404',
      'GET /api/v1/me/balance 401',
    ]);
    expect(paths(sandbox.requests.list({ status: [401, '2xx'] }))).toHaveLength(3);
    expect(sandbox.requests.count({ account: 'rich' })).toBe(2);
    expect(sandbox.requests.find({ idempotencyKey: 'k1' })?.route).toBe('createOrder');
    expect(sandbox.requests.count({ afterId: 2 })).toBe(2);
    expect(sandbox.requests.count({ since: sandbox.now() + 1 })).toBe(0);
    expect(sandbox.requests.count({ since: new Date(0).toISOString() })).toBe(4);
  });

  it('journals unknown routes with the nearest real one, in the answer too', async () => {
    const sandbox = await createSandbox();
    const response = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/order`, { method: 'POST' });
    expect(((await response.json()) as { message: string }).message).toBe(
      'No endpoint /api/v1/me/order exists; did you mean POST /api/v1/me/orders?',
    );
    await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, { method: 'DELETE' });
    await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/fixture`);
    await sandbox.fetch(`${sandbox.baseUrl}/completely/elsewhere/entirely`);
    expect(sandbox.requests.list().map((e) => [e.status, e.near_miss])).toEqual([
      [404, 'POST /api/v1/me/orders'],
      [405, 'GET or POST /api/v1/me/orders'],
      [404, 'GET /__sandbox/fixtures'],
      [404, null],
    ]);
  });

  it('a path too long to be a typo of a route gets no suggestion (comparing it would hold the server)', async () => {
    const sandbox = await createSandbox();
    const near = (path: string) => nearestRoute('GET', path, [{ method: 'GET', path: '/api/v1/me/orders/{invoice}' }]);
    const code = 'INV20260101000001'.padEnd(MAX_COMPARED_PATH - '/api/v1/me/ordrs/'.length, '0');
    expect(near(`/api/v1/me/ordrs/${code}`)).toBe('GET /api/v1/me/orders/{invoice}');
    expect(near(`/api/v1/me/ordrs/${code}0`)).toBeUndefined();
    const long = `/api/v1/nope/${'x'.repeat(16_000)}`;
    const answer = await sandbox.fetch(`${sandbox.baseUrl}${long}`);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { message: string }).message).not.toContain('did you mean');
    expect(sandbox.requests.list().at(-1)?.near_miss).toBeNull();
  });

  it('records injected faults, dropped answers included', async () => {
    const sandbox = await createSandbox({
      faults: {
        seed: 1,
        rules: [
          { kind: 'drop_after', rate: 1, routes: ['getHealth'] },
          { kind: 'error', status: 503, rate: 1, routes: ['listArticles'] },
        ],
      },
    });
    await expect(sandbox.fetch(`${sandbox.baseUrl}/api/v1/health`)).rejects.toThrow();
    await sandbox.fetch(`${sandbox.baseUrl}/api/v1/articles`);
    expect(sandbox.requests.list().map((e) => [e.route, e.status, e.fault, e.response_body === null])).toEqual([
      ['getHealth', null, 'drop_after', true],
      ['listArticles', 503, 'error 503', false],
    ]);
  });

  it('keeps only the newest journalSize entries; 0 keeps none; ids go on after clear()', async () => {
    const small = await createSandbox({ journalSize: 3 });
    for (let i = 0; i < 30; i++) await call(small, 'GET', `/api/v1/articles?page=${i + 1}`);
    expect(small.requests.list().map((e) => e.id)).toEqual([28, 29, 30]);
    small.requests.clear();
    await call(small, 'GET', '/api/v1/health');
    expect(small.requests.list().map((e) => e.id)).toEqual([31]);
    const off = await createSandbox({ journalSize: 0 });
    await call(off, 'GET', '/api/v1/health');
    expect([off.requests.enabled, off.requests.active, off.requests.count()]).toEqual([false, false, 0]);
    // A subscriber (mock serve --log) still hears of each request; none is kept.
    const heard: JournalEntry[] = [];
    off.requests.subscribe((e) => heard.push(e));
    await call(off, 'GET', '/api/v1/health');
    expect([off.requests.count(), heard.map((e) => e.path)]).toEqual([0, ['/api/v1/health']]);
  });

  it('keeps the newest `size` requests across wrap-arounds, and ids go on after a clear', () => {
    const journal = new RequestJournal({ size: 3 });
    const answered = (path: string) => ({
      at: 1_000,
      durationMs: 1,
      method: 'GET',
      path,
      search: '',
      headers: {},
      requestBody: null,
      status: 200,
      responseBody: null,
      notes: {},
    });
    for (let i = 1; i <= 7; i++) journal.keep(answered(`/p${i}`));
    expect(journal.list().map((e) => [e.id, e.path])).toEqual([
      [5, '/p5'],
      [6, '/p6'],
      [7, '/p7'],
    ]);
    expect([journal.get(4), journal.get(5)?.path, journal.get(8)]).toEqual([undefined, '/p5', undefined]);
    expect(journal.list({ afterId: 5 }).map((e) => e.id)).toEqual([6, 7]);
    expect(journal.find({ path: '/p*' })?.id).toBe(7);
    journal.clear();
    expect(journal.count()).toBe(0);
    journal.keep(answered('/p8'));
    expect(journal.list().map((e) => [e.id, e.path])).toEqual([[8, '/p8']]);
  });

  it('cuts long bodies with a marker, and tells subscribers of each entry until they stop', () => {
    const journal = new RequestJournal({ size: 10, bodyLimit: 8 });
    const heard: number[] = [];
    const stop = journal.subscribe((e) => heard.push(e.id));
    journal.record({ ...RECORDED, request_body: '0123456789abc', response_body: 'short' });
    expect(journal.get(1)).toMatchObject({ request_body: '01234567…[truncated: 13 characters in all]', response_body: 'short' });
    // Built on first read from what the sandbox hands over, cut and redacted the same way.
    journal.keep({
      at: 0,
      durationMs: 1.23456,
      method: 'GET',
      path: '/y',
      search: '?page=2',
      headers: { authorization: 'Bearer tsk_sandbox_0123456789abcd', 'idempotency-key': 'k1' },
      requestBody: null,
      status: null,
      responseBody: 'x'.repeat(9),
      notes: { route: 'listOrders', account: 'demo' },
    });
    expect(journal.get(2)).toMatchObject({
      response_body: 'xxxxxxxx…[truncated: 9 characters in all]',
      query: { page: '2' },
      headers: { authorization: expect.stringMatching(/^Bearer .*…abcd$/) as unknown },
      idempotency_key: 'k1',
      status: null,
      duration_ms: 1.235,
      route: 'listOrders',
      account: 'demo',
    });
    stop();
    journal.record({ ...RECORDED, request_body: null, response_body: null });
    expect(heard).toEqual([1, 2]);
  });
});

describe('bodies too long to keep by reference', () => {
  const answered = (requestBody: string, responseBody = '{"success":true}') => ({
    at: 0,
    durationMs: 1,
    method: 'PUT',
    path: '/__sandbox/state',
    search: '',
    headers: { 'content-type': 'application/json' },
    requestBody,
    status: 200,
    responseBody,
    notes: {},
  });

  // An 8 MB state loaded through the control API, as a suite that loads one before each test does. A flat string, as a
  // request body decoded from the socket is (a repeat() is a tree of shared pieces).
  const state = (i: number) => Buffer.from(`{"n":${i},"pad":"${'x'.repeat(8 * 2 ** 20)}"}`).toString();

  it('are let go as they are kept: only the cut entry stays alive', () => {
    const journal = new RequestJournal({ size: 100 });
    const grown = heapGrowthOf(() => {
      for (let i = 0; i < 20; i++) journal.keep(answered(state(i)));
    });
    expect(grown).toBeLessThan(32 * 2 ** 20);
    const entry = journal.get(6)!;
    const marker = `…[truncated: ${state(5).length} characters in all]`;
    expect(entry.request_body).toBe(state(5).slice(0, 16_384) + marker);
    expect(entry.response_body).toBe('{"success":true}');
  });

  it('answered to a live reader of a journal that keeps none are let go too: only the cut text stays alive', () => {
    // With a size of 0 nothing is built as it is kept: what the reader is handed, and what is kept of each path's last
    // request to compare the next with (entry-text.ts LiveShapes), must not hold the 8 MB answers alive.
    const journal = new RequestJournal({ size: 0 });
    let last: LiveRequest | undefined;
    journal.follow((request) => (last = request));
    const request = answered('{}');
    const grown = heapGrowthOf(() => {
      for (let i = 0; i < 20; i++) journal.keep({ ...request, path: `/p/${i}`, responseBody: state(i) });
      last = undefined;
    });
    expect(grown).toBeLessThan(32 * 2 ** 20);
    // The same request again, with another long answer: cut for it, not the last one's text.
    journal.keep({ ...request, path: '/p/19', responseBody: state(20) });
    expect(last!.entry().response_body).toMatch(/^\{"n":20,"pad":"x+…\[truncated: \d+ characters in all\]$/);
    expect(eventBytes([last!], 'run').toString()).toContain('{\\"n\\":20,');
  });

  it('given as built entries (record()) are let go too', () => {
    const journal = new RequestJournal({ size: 100 });
    const grown = heapGrowthOf(() => {
      for (let i = 0; i < 20; i++)
        journal.record({ ...RECORDED, method: 'PUT', path: '/__sandbox/state', request_body: state(i), response_body: null });
    });
    expect(grown).toBeLessThan(32 * 2 ** 20);
    expect(journal.get(20)!.request_body).toMatch(/^\{"n":19,"pad":"x+…\[truncated: \d+ characters in all\]$/);
  });

  it('have their secrets cut before they are cut short, as when they are read', () => {
    const token = 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d';
    const journal = new RequestJournal({ size: 10 });
    const long = JSON.stringify({ token, pad: 'x'.repeat(70_000) });
    journal.keep(answered(long, JSON.stringify({ echoed: token, pad: 'y'.repeat(70_000) })));
    const entry = journal.get(1)!;
    expect(JSON.stringify(entry)).not.toContain(token);
    expect(entry.request_body).toContain('"token":"');
    expect(entry.response_body).toContain('"echoed":"');
  });
});

describe("the journal's character budget (headers and bodies of the kept requests)", () => {
  /** A GET whose headers hold 28 characters and whose answer `bodyChars`: what the budget counts of it. */
  const answered = (path: string, bodyChars: number, body = 'r'.repeat(bodyChars)) => ({
    at: 0,
    durationMs: 1,
    method: 'GET',
    path,
    search: '',
    headers: { 'content-type': 'application/json' },
    requestBody: null,
    status: 200,
    responseBody: body,
    notes: {},
  });
  const ids = (journal: RequestJournal) => journal.list().map((e) => e.id);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('past it the oldest requests go first, however few are left; the newest always stays; a clear starts it over', () => {
    const journal = new RequestJournal({ size: 100, maxChars: 10_000 });
    for (let i = 1; i <= 30; i++) journal.keep(answered(`/p${i}`, 1_000 - 28));
    expect(ids(journal)).toEqual(range(21, 30));
    expect([journal.get(20), journal.get(21)?.path, journal.count({ path: '/p*' })]).toEqual([undefined, '/p21', 10]);
    journal.keep(answered('/big', 5_000 - 28));
    expect(ids(journal)).toEqual(range(26, 31));
    journal.keep(answered('/huge', 20_000));
    expect(journal.list().map((e) => e.path)).toEqual(['/huge']);
    journal.clear();
    for (let i = 1; i <= 10; i++) journal.keep(answered(`/again${i}`, 1_000 - 28));
    expect(ids(journal)).toEqual(range(33, 42));
  });

  it('the ring and the budget together: a slot taken over gives back what its last request held', () => {
    const journal = new RequestJournal({ size: 5, maxChars: 5_000 });
    for (let i = 1; i <= 23; i++) journal.keep(answered(`/p${i}`, 1_000 - 28));
    expect(ids(journal)).toEqual(range(19, 23));
    journal.keep(answered('/small', 0));
    expect(ids(journal)).toEqual(range(20, 24));
  });

  it('the default budget never drops a request of the default 1,000, at the largest bodies kept by reference', () => {
    const journal = new RequestJournal();
    const body = 'b'.repeat(65_536);
    const headers = { 'x-long': 'h'.repeat(16_384 - 6) };
    for (let i = 0; i < 1_000; i++) journal.keep({ ...answered(`/p${i}`, 0, body), headers, requestBody: body });
    // The oldest goes first, so the first one still there means all are (reading each would build 1,000 entries).
    expect([journal.get(1)?.path, journal.get(1_000)?.path]).toEqual(['/p0', '/p999']);
  });

  it('holds a large journal of distinct bodies to it in memory', () => {
    const journal = new RequestJournal({ size: 1_000_000, maxChars: 8 * 2 ** 20 });
    // Flat strings, each its own, as answers are: without the budget, 2,000 of them would keep some 120 MB alive.
    const grown = heapGrowthOf(() => {
      for (let i = 0; i < 2_000; i++) journal.keep(answered(`/p${i}`, 0, Buffer.alloc(60 * 1024, 48 + (i % 10)).toString('latin1')));
    });
    expect(grown).toBeLessThan(24 * 2 ** 20);
    expect(journal.count()).toBe(Math.floor((8 * 2 ** 20) / (60 * 1024 + 28)));
    expect(journal.find()?.path).toBe('/p1999');
  });
});

describe('a filter that could only match nothing by mistake', () => {
  it.each<[string, RequestFilter, string]>([
    ['a status that is none', { status: 'abc' }, "status: 'abc' is not a status (100 to 599), a class such as 4xx, or dropped."],
    ['a class that is none', { status: ['2xx', '20x'] }, "status: '20x' is not a status"],
    ['a status out of range', { status: 600 }, "status: '600' is not a status"],
    ['no status at all', { status: [] }, 'status must name at least one status or class.'],
    ['a since that is no time', { since: 'yesterday' }, 'since must be a time (a Date, epoch milliseconds or ISO 8601), not yesterday.'],
    ['an afterId that is no number', { afterId: Number.NaN }, 'afterId must be a whole number, not NaN.'],
    [
      'a URL for a path',
      { path: 'http://sandbox.localhost/api/v1/health' },
      'path must start with / (a path, as /api/v1/me/orders), not "http://sandbox.localhost/api/v1/health"; did you mean /api/v1/health?',
    ],
    ['a path without its /', { path: 'api/v1/health' }, 'path must start with / (a path, as /api/v1/me/orders), not "api/v1/health".'],
    ['a method that is none', { method: 'PSOT' }, 'method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, not "PSOT".'],
  ])('%s is refused, in a list and in an assertion alike', async (_, filter, message) => {
    const sandbox = await createSandbox();
    await call(sandbox, 'GET', '/api/v1/health');
    expect(() => sandbox.requests.list(filter)).toThrow(RequestFilterError);
    expect(() => sandbox.requests.list(filter)).toThrow(message);
    // Without the refusal this assertion would pass, whatever the bot did.
    expect(() => expectRequests(sandbox, filter).notToHaveBeenMade()).toThrow(message);
  });

  it('a RegExp with g or y matches every entry it should (test() would carry lastIndex over)', async () => {
    const sandbox = await createSandbox();
    for (let n = 0; n < 3; n++) await call(sandbox, 'GET', '/api/v1/health');
    expect(sandbox.requests.list({ path: /health/g })).toHaveLength(3);
    expect(() => expectRequests(sandbox, { path: /health/gy }).toHaveCount(3)).not.toThrow();
  });

  it('a journal that let requests go, or keeps none, cannot say how many were made', async () => {
    const small = await createSandbox({ journalSize: 2 });
    for (const path of ['/api/v1/health', '/api/v1/health', '/api/v1/health']) await call(small, 'GET', path);
    expect(() => expectRequests(small, { path: '/api/v1/health' }).toHaveCount(2)).toThrow(
      'Cannot verify requests matching /api/v1/health: the journal no longer keeps 1 of the requests since it began (it keeps the last 2)',
    );
    expect(() => expectRequests(small, { method: 'POST' }).notToHaveBeenMade()).toThrow('no longer keeps 1 of the requests');
    // Found is found; and a filter past what was let go, or a clear, counts again.
    expect(() => expectRequests(small, { path: '/api/v1/health' }).toHaveBeenMade()).not.toThrow();
    expect(() => expectRequests(small, { afterId: 1 }).toHaveCount(2)).not.toThrow();
    small.requests.clear();
    expect(() => expectRequests(small, { method: 'POST' }).notToHaveBeenMade()).not.toThrow();
    const none = await createSandbox({ journalSize: 0 });
    await call(none, 'POST', '/api/v1/me/orders');
    expect(() => expectRequests(none, { method: 'POST' }).notToHaveBeenMade()).toThrow(
      'The sandbox keeps no requests (journalSize: 0): there is nothing to verify; give it a journal.',
    );
  });

  it("a subscriber that throws fails on its own, not the request: the bot's answer comes", async () => {
    const sandbox = await createSandbox();
    const thrown: unknown[] = [];
    const listener = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', listener);
    try {
      const stop = sandbox.requests.subscribe(() => {
        throw new Error('a bug in my test listener');
      });
      const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/health`);
      expect(answer.status).toBe(200);
      stop();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(thrown).toEqual([new Error('a bug in my test listener')]);
    } finally {
      process.off('uncaughtException', listener);
    }
  });

  it('statuses in one string, as a query gives them, are a list', async () => {
    const sandbox = await createSandbox();
    await call(sandbox, 'GET', '/api/v1/health');
    await call(sandbox, 'GET', '/api/v1/me/balance');
    expect(sandbox.requests.list({ status: '2xx, 4xx' }).map((e) => e.status)).toEqual([200, 401]);
    expect(sandbox.requests.list({ status: ['401', 'dropped'] }).map((e) => e.status)).toEqual([401]);
  });
});

describe('verification (expectRequests)', () => {
  it('my bot retries a dropped order exactly once, with the same Idempotency-Key', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    let dropped = false;
    // The first answer is lost on the way back, after the sandbox made the order: the bot must retry with its key.
    const lossy: FetchFunction = async (input, init) => {
      const response = await sandbox.fetch(input, init);
      if (!dropped) {
        dropped = true;
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      }
      return response;
    };
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      fetch: lossy,
      clock: { sleep: async () => undefined },
    });
    await client.orders.create(ORDER);
    expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).toHaveCount(2).toShareIdempotencyKey();
    expect(sandbox.store.db.orders.all()).toHaveLength(1);
  });

  it('fails with one clear message that lists what came instead', async () => {
    const sandbox = await createSandbox();
    await call(sandbox, 'POST', '/api/v1/me/order', { body: ORDER });
    const check = () => expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).toHaveBeenMade();
    expect(check).toThrow(VerificationError);
    expect(check).toThrow(
      /^Expected a request matching POST \/api\/v1\/me\/orders, got none\.\nRequests it received instead.*:\n {2}#1 POST \/api\/v1\/me\/order → 404; did you mean POST \/api\/v1\/me\/orders\?$/,
    );
    const rich = sandbox.account('rich');
    await call(sandbox, 'POST', '/api/v1/me/orders', { token: rich.token, body: ORDER, headers: { 'idempotency-key': 'a' } });
    await call(sandbox, 'POST', '/api/v1/me/orders', { token: rich.token, body: ORDER, headers: { 'idempotency-key': 'b' } });
    expect(() => expectRequests(sandbox, { path: '/api/v1/me/orders' }).toShareIdempotencyKey()).toThrow(
      'Expected every request matching /api/v1/me/orders to share one Idempotency-Key, got 2: a, b.',
    );
    expect(() => expectRequests(sandbox, { path: '/api/v1/me/orders' }).toAllHaveStatus('2xx').toHaveCount(2)).not.toThrow();
    expect(() => expectRequests(sandbox, { method: 'DELETE' }).notToHaveBeenMade()).not.toThrow();
  });
});

describe('the request journal over HTTP', () => {
  let served: HttpSandbox | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  const get = async (url: string) => (await (await fetch(url)).json()) as { data: any };

  it('lists with the same filters as query parameters, shows one entry, clears, and does not journal itself', async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    await fetch(`${served.url}/api/v1/health`);
    await fetch(`${served.url}/api/v1/me/balance`);
    const all = await get(`${served.url}/__sandbox/requests`);
    expect(all.data.requests.map((e: JournalEntry) => `${e.path} ${e.status}`)).toEqual(['/api/v1/health 200', '/api/v1/me/balance 401']);
    expect(all.data.journal_size).toBe(1000);
    const failed = await get(`${served.url}/__sandbox/requests?status=4xx&method=GET,POST`);
    expect(failed.data.requests).toHaveLength(1);
    const one = await get(`${served.url}/__sandbox/requests/${failed.data.requests[0].id}`);
    expect(one.data.request.path).toBe('/api/v1/me/balance');
    expect((await fetch(`${served.url}/__sandbox/requests/999`)).status).toBe(404);
    expect((await fetch(`${served.url}/__sandbox/requests?since=yesterday`)).status).toBe(422);
    expect((await fetch(`${served.url}/__sandbox/requests`, { method: 'DELETE', headers: { 'x-topup-sandbox': '1' } })).status).toBe(200);
    expect((await get(`${served.url}/__sandbox/requests`)).data.requests).toEqual([]);
    // The journal's own calls are not what a bot did: the list above saw none of them.
    expect(sandbox.requests.count({ path: '/__sandbox/**' })).toBe(0);
  });

  it('refuses a status filter that is no status, class or dropped with 422 naming it; takes a list of them', async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    await fetch(`${served.url}/api/v1/health`);
    await fetch(`${served.url}/api/v1/me/balance`);
    for (const status of ['abc', '20x', '600', '2xx,abc', '', ',']) {
      const answer = await fetch(`${served.url}/__sandbox/requests?status=${encodeURIComponent(status)}`);
      expect(answer.status, status).toBe(422);
      expect(((await answer.json()) as { error: { fields: string[] } }).error.fields).toEqual(['status']);
    }
    expect((await fetch(`${served.url}/__sandbox/requests/stream?status=abc`)).status).toBe(422);
    const listed = await get(`${served.url}/__sandbox/requests?status=2xx,4XX`);
    expect(listed.data.requests.map((e: JournalEntry) => e.status)).toEqual([200, 401]);
  });

  it('refuses a parameter it does not take, rather than list everything, in the listing and the stream', async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    await fetch(`${served.url}/api/v1/health`);
    for (const query of ['methd=POST', 'route=createOrder', 'method=GET&limit=1&idempotency-key=k']) {
      const answer = await fetch(`${served.url}/__sandbox/requests?${query}`);
      expect(answer.status, query).toBe(422);
      const name = query.split('&').at(-1)!.split('=')[0]!;
      expect(((await answer.json()) as { error: { fields: string[] } }).error.fields).toEqual([name]);
    }
    // limit lists the newest N; a stream has no end to count from.
    expect((await fetch(`${served.url}/__sandbox/requests/stream?limit=5`)).status).toBe(422);
    expect((await get(`${served.url}/__sandbox/requests?method=GET&limit=1`)).data.requests).toHaveLength(1);
  });

  it('says how many of the requests a query asks about it let go, as the in-process verifier checks', async () => {
    const sandbox = await createSandbox({ journalSize: 3 });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const token = sandbox.account('demo').token;
    const order = await fetch(`${served.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(ORDER),
    });
    expect(order.status).toBe(201);
    for (let i = 0; i < 4; i++) await fetch(`${served.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    const orders = await get(`${served.url}/__sandbox/requests?method=POST&path=/api/v1/me/orders`);
    // The order is gone from a journal of 3: an empty list here proves nothing, and the answer says so.
    expect(orders.data).toMatchObject({ requests: [], journal_size: 3, let_go: 2 });
    expect(() => expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).notToHaveBeenMade()).toThrow(/no longer keeps 2/);
    // Asked from the oldest it keeps on, nothing is missing.
    const oldest = (await get(`${served.url}/__sandbox/requests`)).data.requests[0].id as number;
    expect((await get(`${served.url}/__sandbox/requests?after_id=${oldest - 1}`)).data.let_go).toBe(0);
    await fetch(`${served.url}/__sandbox/requests`, { method: 'DELETE', headers: { 'x-topup-sandbox': '1' } });
    expect((await get(`${served.url}/__sandbox/requests`)).data).toMatchObject({ requests: [], let_go: 0 });
  });

  it('reads a since without a zone as UTC, whatever zone the server runs in', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Jakarta';
    try {
      const clock = fakeClock();
      const sandbox = await createSandbox({ now: clock.now });
      served = await startHttpSandbox(sandbox, { port: 0 });
      await fetch(`${served.url}/api/v1/health`);
      clock.advance(60_000);
      await fetch(`${served.url}/api/v1/articles`);
      const at = new Date(clock.now() - 30_000).toISOString(); // between the two, on the sandbox clock
      const zoneless = [at.slice(0, -1), at.slice(0, 19).replace('T', ' ')];
      for (const since of [at, ...zoneless]) {
        const listed = await get(`${served.url}/__sandbox/requests?since=${encodeURIComponent(since)}`);
        expect(
          listed.data.requests.map((e: JournalEntry) => e.path),
          since,
        ).toEqual(['/api/v1/articles']);
        expect(
          sandbox.requests.list({ since }).map((e) => e.path),
          since,
        ).toEqual(['/api/v1/articles']);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('streams each request as a Server-Sent Event, and replays what a reconnecting client missed', async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    await fetch(`${served.url}/api/v1/health`);
    const stream = readStream(served, '/__sandbox/requests/stream?method=GET', { 'last-event-id': '0' });
    await stream.until(1); // the request made before the stream opened, replayed from Last-Event-ID 0
    await fetch(`${served.url}/api/v1/articles`);
    await fetch(`${served.url}/api/v1/me/orders`, { method: 'POST' }); // filtered out: not a GET
    await fetch(`${served.url}/api/v1/catalog/payment-methods`);
    await stream.until(3);
    expect(stream.events.map((e) => [e.id, (JSON.parse(e.data) as JournalEntry).path])).toEqual([
      ['1', '/api/v1/health'],
      ['2', '/api/v1/articles'],
      ['4', '/api/v1/catalog/payment-methods'],
    ]);
    // Each event's id names the run that sent it, as every answer's X-Topup-Sandbox-Instance does.
    expect(new Set(stream.events.map((e) => e.instance))).toEqual(new Set([served.instance]));
    stream.close();
    // Reconnecting with the last id: only what came after it.
    await fetch(`${served.url}/api/v1/articles/none`);
    const again = readStream(served, '/__sandbox/requests/stream?method=GET', { 'last-event-id': `4@${served.instance}` });
    await again.until(1);
    expect(again.events.map((e) => e.id)).toEqual(['5']);
    again.close();
  });

  it('a client reconnecting with an id of another run of the sandbox gets all this run holds (a restart)', async () => {
    // Another run's id 3 says nothing of this run's ids, which began again at 1: none of this run's was seen yet.
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    for (const path of ['health', 'articles', 'catalog/payment-methods', 'catalog/credit-packages'])
      await fetch(`${served.url}/api/v1/${path}`);
    const stream = readStream(served, '/__sandbox/requests/stream', { 'last-event-id': '3@00000000-0000-4000-8000-000000000000' });
    await stream.until(4);
    expect(stream.events.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    stream.close();
    // A bare number is an id of this run, as after_id is.
    const bare = readStream(served, '/__sandbox/requests/stream', { 'last-event-id': '3' });
    await bare.until(1);
    expect(bare.events.map((e) => e.id)).toEqual(['4']);
    bare.close();
  });

  it("a stranger's Last-Event-ID (no id, an endless number, an empty run) is no id: the query decides, the stream goes on", async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    await fetch(`${served.url}/api/v1/health`);
    for (const lastEventId of ['abc', '3@', '@x', '-1', '1.5']) {
      // Read as no id: `after_id=0` of the query replays what the journal holds.
      const stream = readStream(served, '/__sandbox/requests/stream?after_id=0', { 'last-event-id': lastEventId });
      await stream.until(1);
      expect(
        stream.events.map((e) => e.id),
        lastEventId,
      ).toEqual(['1']);
      stream.close();
    }
    // A number past any id this run gave: nothing to replay, and what comes next is still sent.
    const far = readStream(served, '/__sandbox/requests/stream', { 'last-event-id': '9'.repeat(4_000) });
    await far.opened;
    await fetch(`${served.url}/api/v1/articles`);
    await far.until(1);
    expect(far.events.map((e) => e.id)).toEqual(['2']);
    far.close();
  });

  it("sends each live entry exactly as the journal holds it, whatever a stranger's query, headers and body say", async () => {
    // The stream writes each entry in pieces around its answer's body (journal-event.ts): a query and headers that
    // carry that key, a NUL and quotes must come out as JSON.stringify writes them.
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const stream = readStream(served, '/__sandbox/requests/stream');
    const { events, until } = stream;
    await stream.opened; // the stream's opening comment: it is live now
    const hostile = encodeURIComponent('"response_body":"\u0000"}');
    await fetch(`${served.url}/api/v1/health?response_body=%00&x=${hostile}`, {
      headers: { 'x-response-body': '"response_body":"\\u0000"', response_body: '"}' },
    });
    await fetch(`${served.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.account('demo').token}` },
      body: JSON.stringify({ ...ORDER, client_reference: '"response_body":"\u0000"' }),
    });
    await until(2);
    for (const event of events) {
      const held = sandbox.requests.get(Number(event.id));
      expect(held, event.id).toBeDefined();
      // The whole text, not only its parse: the event is JSON.stringify of the journal's entry.
      expect(event.data).toBe(JSON.stringify(held));
    }
    expect(JSON.parse(events[0]!.data).query).toEqual({ response_body: '\u0000', x: '"response_body":"\u0000"}' });
    stream.close();
  });

  it('sends repeated requests of one path exactly as the journal holds each, however little they differ', async () => {
    // Of a path's last request, what repeats is kept as bytes (journal-event.ts): a request that differs from it in one
    // header, its order, the query, the account or the status must not be sent as the one before. (Without rate limits:
    // their count left makes every request's entry differ from the last.)
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const stream = readStream(served, '/__sandbox/requests/stream');
    await stream.opened;
    const balance = `${served.url}/api/v1/me/balance`;
    const demo = `Bearer ${sandbox.account('demo').token}`;
    const rich = `Bearer ${sandbox.account('rich').token}`;
    const sent: [string, RequestInit][] = [
      [balance, { headers: { authorization: demo } }],
      [balance, { headers: { authorization: demo } }],
      [balance, { headers: { authorization: rich } }],
      [balance, { headers: { authorization: demo, 'x-trace': '1' } }],
      [balance, { headers: { authorization: demo, 'x-trace': '2' } }],
      [balance, { headers: { 'x-trace': '2', authorization: demo } }],
      [`${balance}?x=1`, { headers: { authorization: demo } }],
      [balance, { headers: { authorization: 'Bearer topup_test_unknown_000000000000000000000' } }],
      [balance, {}],
      [balance, { method: 'HEAD', headers: { authorization: demo } }],
      [balance, { headers: { authorization: demo } }],
    ];
    for (const [url, init] of sent) await (await fetch(url, init)).arrayBuffer();
    await stream.until(sent.length);
    expect(new Set(stream.events.map((event) => (JSON.parse(event.data) as JournalEntry).status))).toEqual(new Set([200, 401]));
    for (const event of stream.events) expect(event.data).toBe(JSON.stringify(sandbox.requests.get(Number(event.id))));
    stream.close();
  });

  it('gives a reader that falls behind every live entry whole and in order, while its batches wait in node', async () => {
    // A reader's batch buffer is filled again for its next batch only once node has handed all of it to the kernel
    // (journal-stream.ts nextBatchBuffer). Here the reader stops reading until its socket is full and node holds
    // part of a batch, two more batches are made meanwhile, and then it reads again.
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const url = served.url;
    let streamSocket: Socket | undefined;
    served.server.on('request', (req: IncomingMessage) => {
      if (req.url === '/__sandbox/requests/stream') streamSocket = req.socket;
    });
    const stream = readStream(served, '/__sandbox/requests/stream');
    await stream.opened;
    stream.pause();
    const waves = await wavesUntilHeld(url, () => streamSocket);
    await wave(url);
    await wave(url);
    const sent = (waves + 2) * WAVE_REQUESTS;
    stream.resume();
    // All of them, or what came in 5 s: a lost or repeated event shows below as the ids that came.
    await Promise.race([stream.until(sent), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    expectEveryEventInOrder(stream.events, sent);
    stream.close();
  });

  it('gives two readers of every request each event whole while one falls behind and the other reads (one batch for both)', async () => {
    // Readers with no filter are sent the same bytes of each batch (journal-stream.ts nextBatchBuffer): the buffer is
    // filled again only once every reader it went to has let go of it. Here one reader stops reading until node holds
    // part of a batch for it, while the other goes on reading; then two more batches are made, and it reads again.
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const url = served.url;
    const streamSockets: Socket[] = [];
    served.server.on('request', (req: IncomingMessage) => {
      if (req.url === '/__sandbox/requests/stream') streamSockets.push(req.socket);
    });
    const behind = readStream(served, '/__sandbox/requests/stream');
    await behind.opened;
    const reading = readStream(served, '/__sandbox/requests/stream');
    await reading.opened;
    behind.pause();
    const waves = await wavesUntilHeld(url, () => streamSockets[0]);
    await wave(url);
    await wave(url);
    const sent = (waves + 2) * WAVE_REQUESTS;
    await reading.until(sent);
    behind.resume();
    await Promise.race([behind.until(sent), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    for (const stream of [reading, behind]) {
      expectEveryEventInOrder(stream.events, sent);
      stream.close();
    }
  });

  it('sends a reader with a filter only what it asked for, beside a reader of every request', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const { url } = served;
    const every = readStream(served, '/__sandbox/requests/stream');
    const posts = readStream(served, '/__sandbox/requests/stream?method=POST');
    await every.opened;
    await posts.opened;
    const paths = ['/api/v1/health', '/api/v1/articles', '/api/v1/health'];
    await Promise.all([
      ...paths.map(async (path) => (await fetch(`${url}${path}`)).arrayBuffer()),
      (async () =>
        (
          await fetch(`${url}/api/v1/auth/token/validate`, {
            method: 'POST',
            body: '{}',
            headers: { 'content-type': 'application/json' },
          })
        ).arrayBuffer())(),
    ]);
    await every.until(4);
    await posts.until(1);
    await new Promise((resolve) => setTimeout(resolve, 3 * LIVE_BATCH_MS));
    expect(every.events.map((event) => event.data)).toEqual(sandbox.requests.list().map((entry) => JSON.stringify(entry)));
    expect(posts.events.map((event) => event.data)).toEqual(
      sandbox.requests.list({ method: 'POST' }).map((entry) => JSON.stringify(entry)),
    );
    every.close();
    posts.close();
  });
});

const WAVE_REQUESTS = 8;
const WAVE_BODY = JSON.stringify({ note: 'x'.repeat(8_000) });

/** Eight requests of 8 KB that the journal keeps: one batch of some 70 KB, far under what a reader may leave unread. */
async function wave(url: string): Promise<void> {
  await Promise.all(
    Array.from({ length: WAVE_REQUESTS }, async () => {
      const answer = await fetch(`${url}/api/v1/auth/token/validate`, {
        method: 'POST',
        body: WAVE_BODY,
        headers: { 'content-type': 'application/json' },
      });
      await answer.arrayBuffer();
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 2 * LIVE_BATCH_MS));
}

/**
 * `sent` events with ids one after another (a lost or repeated event shows as the ids that came), each one's data its
 * own entry, whole.
 */
function expectEveryEventInOrder(events: readonly { id: string; data: string }[], sent: number): void {
  const ids = events.map((event) => Number(event.id));
  expect(ids).toEqual(Array.from({ length: sent }, (_, i) => ids[0]! + i));
  expect(events.filter((event) => (JSON.parse(event.data) as JournalEntry).id !== Number(event.id))).toEqual([]);
}

/** Waves until node holds part of a batch for a reader that stopped reading (its socket is full): how many it took. */
async function wavesUntilHeld(url: string, socket: () => Socket | undefined): Promise<number> {
  let waves = 0;
  for (; (socket()?.writableLength ?? 0) === 0; waves++) {
    if (waves === 400) throw new Error('the reader socket never filled');
    await wave(url);
  }
  return waves;
}

/** A reader of the request stream over a real socket: its events' ids and data text, in order. */
function readStream(served: HttpSandbox, path: string, headers: Record<string, string> = {}) {
  const url = new URL(served.url);
  /** `id`: the entry's id, of the event's `id: 12@<instance>`; `instance`: the rest. */
  const events: { id: string; instance: string; data: string }[] = [];
  let wake: () => void = () => {};
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  let answer: IncomingMessage | undefined;
  const req = httpRequest({ host: url.hostname, port: url.port, path, headers, agent: false }, (res) => {
    answer = res;
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    let buffer = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (\d+)@(.+)$/m.exec(block);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id !== null && data !== undefined) events.push({ id: id[1]!, instance: id[2]!, data });
        open();
        wake();
      }
    });
  });
  req.end();
  return {
    events,
    opened,
    /** Stops reading (the socket fills), and reads again. */
    pause: () => answer?.pause(),
    resume: () => answer?.resume(),
    until: async (count: number) => {
      while (events.length < count) await new Promise<void>((resolve) => (wake = resolve));
    },
    close: () => req.destroy(),
  };
}
