import { beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { ConnectionError, createClient, type FetchFunction } from '../../src/index.js';
import { fakeClock } from '../support/fake-clock.js';
import { recordingFetch } from './helpers.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9004 };

let sandbox: Sandbox;
let token: string;

beforeEach(async () => {
  sandbox = await createSandbox();
  token = sandbox.account('demo').token;
});

/** Lets the sandbox commit the first order request, then loses its answer the way a reset connection does. */
function dropFirstOrderAnswer(inner: FetchFunction): { fetch: FetchFunction; dropped: () => number } {
  let dropped = 0;
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const response = await inner(request);
    if (dropped === 0 && request.method === 'POST' && new URL(request.url).pathname === '/api/v1/me/orders') {
      dropped += 1;
      await response.body?.cancel();
      throw new TypeError('fetch failed');
    }
    return response;
  };
  return { fetch, dropped: () => dropped };
}

async function orderCount(): Promise<number> {
  const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch });
  // Counted from the list itself, with every order on one page: pagination is not something every server sends.
  return (await client.orders.list({ per_page: 100 })).orders!.length;
}

describe('orders.create idempotency', () => {
  it('the same key twice makes one order; the second answer is the first order, marked idempotent', async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch });
    const first = await client.orders.create(order, { idempotencyKey: 'bot-order-1' });
    const second = await client.orders.create(order, { idempotencyKey: 'bot-order-1' });
    expect(first).toMatchObject({ idempotent: false, idempotencyKey: 'bot-order-1' });
    expect(second).toMatchObject({ idempotent: true, idempotencyKey: 'bot-order-1' });
    expect(second.invoice.invoice_code).toBe(first.invoice.invoice_code);
    expect(await orderCount()).toBe(1);
  });

  it('a dropped answer after the server committed is retried with the same key and leaves exactly one order', async () => {
    const dropping = dropFirstOrderAnswer(sandbox.fetch);
    const recorder = recordingFetch(dropping.fetch);
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch, clock: { random: () => 0 } });

    const result = await client.orders.create(order);

    expect(dropping.dropped()).toBe(1);
    const posts = recorder.exchanges.filter((e) => e.method === 'POST');
    expect(posts.map((e) => e.status)).toEqual(['failed', 200]);
    expect(posts[0]!.headers['idempotency-key']).toBe(result.idempotencyKey);
    expect(posts[1]!.headers['idempotency-key']).toBe(result.idempotencyKey);
    expect(result.idempotent).toBe(true);
    const orders = await createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch }).orders.list();
    expect(orders.orders!.map((o) => o.invoice_code)).toEqual([result.invoice.invoice_code]);
  });

  it('says it sent the order again only after an attempt that may have made it (not after a 429)', async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch, clock: { random: () => 0 }, pacing: false });
    expect(await client.orders.create(order)).toMatchObject({ idempotent: false, resent: false });
    // The sandbox commits the order, then drops the connection (its own fault): the retry gets that order back.
    sandbox.faults.configure({ rules: [{ kind: 'drop_after', times: 1, routes: ['createOrder'] }] });
    const dropped = await client.orders.create({ ...order, platform_pass_id: 9001 });
    expect(dropped).toMatchObject({ idempotent: true, resent: true });
    // A 503 may come from a gateway after the server made the order: it counts as a lost answer too.
    sandbox.faults.configure({ rules: [{ kind: 'error', status: 503, times: 1, routes: ['createOrder'] }] });
    expect(await client.orders.create({ ...order, platform_pass_id: 9002 })).toMatchObject({ idempotent: false, resent: true });
    expect(await orderCount()).toBe(3);
  });

  it("a 429 is the server's refusal: the order sent after it was not sent again", async () => {
    const clock = fakeClock();
    const limited = await createSandbox({ now: clock.now });
    const client = createClient({
      baseUrl: limited.baseUrl,
      token: limited.account('demo').token,
      fetch: limited.fetch,
      clock,
      pacing: false,
    });
    const results = [];
    // The published limit is 10 orders a minute: the 11th is answered 429, and sent again after its Retry-After.
    for (let n = 0; n < 11; n++) results.push(await client.orders.create(order));
    const statuses = limited.requests.list({ method: 'POST', path: '/api/v1/me/orders' }).map((entry) => entry.status);
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 201), 429, 201]);
    expect(results.map((result) => [result.idempotent, result.resent])).toEqual(Array.from({ length: 11 }, () => [false, false]));
  });

  it('reuses the caller key on every retry and returns it', async () => {
    const dropping = dropFirstOrderAnswer(sandbox.fetch);
    const recorder = recordingFetch(dropping.fetch);
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch, clock: { random: () => 0 } });
    const result = await client.orders.create(order, { idempotencyKey: 'caller-key-7' });
    expect(result.idempotencyKey).toBe('caller-key-7');
    expect(recorder.exchanges.map((e) => e.headers['idempotency-key'])).toEqual(['caller-key-7', 'caller-key-7']);
    expect(await orderCount()).toBe(1);
  });

  it.each(['   ', ' padded', 'padded ', '\tk'])(
    'refuses a key with white space at an end (%j), which HTTP would drop: nothing sent',
    async (key) => {
      const recorder = recordingFetch(sandbox.fetch);
      const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch });
      await expect(client.orders.create(order, { idempotencyKey: key })).rejects.toMatchObject({
        name: 'UsageError',
        message: expect.stringContaining('must not start or end with white space'),
      });
      expect(recorder.exchanges).toEqual([]);
      expect(await orderCount()).toBe(0);
    },
  );

  it('generates a new key per call, not per attempt', async () => {
    const recorder = recordingFetch(sandbox.fetch);
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch });
    const a = await client.orders.create(order);
    const b = await client.orders.create(order);
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
    expect(a.invoice.invoice_code).not.toBe(b.invoice.invoice_code);
    expect(recorder.exchanges.map((e) => e.headers['idempotency-key'])).toEqual([a.idempotencyKey, b.idempotencyKey]);
  });

  it('when every attempt is lost, the error carries the key and a later call with it finds the one order', async () => {
    const lost: FetchFunction = async (input, init) => {
      const response = await sandbox.fetch(input, init);
      await response.body?.cancel();
      throw new TypeError('fetch failed');
    };
    const recorder = recordingFetch(lost);
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch, maxRetries: 2, clock: { random: () => 0 } });
    const error = await client.orders.create(order).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const key = (error as ConnectionError).idempotencyKey!;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(recorder.exchanges.map((e) => e.headers['idempotency-key'])).toEqual([key, key, key]);

    const recovered = await createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch }).orders.create(order, {
      idempotencyKey: key,
    });
    expect(recovered.idempotent).toBe(true);
    expect(await orderCount()).toBe(1);
  });
});

describe('what is retried', () => {
  /** A gateway in front of the sandbox that fails the first `times` requests with `status` (a proxy fault, not the API). */
  function flakyGateway(inner: FetchFunction, status: number, times: number, retryAfter?: string): FetchFunction {
    let failures = 0;
    return async (input, init) => {
      if (failures < times) {
        failures += 1;
        const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
        return new Response('<html>Bad gateway</html>', { status, headers });
      }
      return inner(input, init);
    };
  }

  function slept(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
    const waits: number[] = [];
    return { waits, sleep: async (ms) => void waits.push(ms) };
  }

  it.each([
    { name: 'GET on 502', status: 502, call: 'get', attempts: 2 },
    { name: 'GET on 503', status: 503, call: 'get', attempts: 2 },
    { name: 'GET on 504', status: 504, call: 'get', attempts: 2 },
    { name: 'keyed POST on 503', status: 503, call: 'create', attempts: 2 },
    { name: 'GET not on 500', status: 500, call: 'get', attempts: 1 },
    { name: 'unkeyed POST (validate) not on 503', status: 503, call: 'validate', attempts: 1 },
  ])('$name', async ({ status, call, attempts }) => {
    const recorder = recordingFetch(flakyGateway(sandbox.fetch, status, 1));
    const { sleep } = slept();
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch, clock: { sleep, random: () => 0 } });
    const run = call === 'get' ? client.balance.get() : call === 'create' ? client.orders.create(order) : client.token.validate();
    if (attempts === 1) await expect(run).rejects.toMatchObject({ status });
    else await expect(run).resolves.toBeDefined();
    expect(recorder.exchanges).toHaveLength(attempts);
  });

  it('retries an order whose first attempt timed out, with the same key, leaving one order', async () => {
    let calls = 0;
    const slowFirst: FetchFunction = async (input, init) => {
      calls += 1;
      const response = await sandbox.fetch(input, init);
      if (calls > 1) return response;
      // The server committed, but the answer arrives only after the client gave up on this attempt.
      const signal = new Request(input, init).signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const recorder = recordingFetch(slowFirst);
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: recorder.fetch, timeout: 25, clock: { random: () => 0 } });
    const result = await client.orders.create(order);
    expect(recorder.exchanges.map((e) => [e.status, e.headers['idempotency-key']])).toEqual([
      ['failed', result.idempotencyKey],
      [200, result.idempotencyKey],
    ]);
    expect(result.idempotent).toBe(true);
    expect(await orderCount()).toBe(1);
  });

  it('waits for a 503 Retry-After given as an HTTP date', async () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    const { sleep, waits } = slept();
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token,
      fetch: flakyGateway(sandbox.fetch, 503, 1, 'Sun, 01 Mar 2026 10:00:07 GMT'),
      clock: { sleep, now: () => now },
    });
    await client.balance.get();
    expect(waits).toEqual([7_000]);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    const recorder = recordingFetch(flakyGateway(sandbox.fetch, 502, 10));
    const { sleep, waits } = slept();
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token,
      fetch: recorder.fetch,
      maxRetries: 3,
      clock: { sleep, random: () => 0.5 },
    });
    await expect(client.balance.get()).rejects.toMatchObject({
      name: 'ServerError',
      status: 502,
      message: 'The server answered with status 502.',
    });
    expect(recorder.exchanges).toHaveLength(4);
    expect(waits).toEqual([250, 500, 1_000]);
  });
});
