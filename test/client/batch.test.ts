import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { BatchKeys, batchRowKey, createClient, type BatchOutcome, type BatchRow, type ClientWait } from '../../src/index.js';
import { fakeClock } from '../support/fake-clock.js';
import type { CreateOrderRequest } from '../../src/contract/index.js';

const START = Date.parse('2026-04-01T00:00:00Z');

/** One fake time for the sandbox (its rate limits) and the client (its pacer and retries): no real waiting. */
function fakeTime() {
  const time = { now: START };
  return {
    time,
    clock: {
      now: () => time.now,
      sleep: async (ms: number, signal?: AbortSignal) => {
        signal?.throwIfAborted();
        time.now += ms;
      },
      random: () => 0.5,
    },
  };
}

const order = (pass: number, reference?: string): CreateOrderRequest => ({
  platform_username: 'BuilderBob',
  place_id: 5001,
  platform_pass_id: pass,
  ...(reference === undefined ? {} : { client_reference: reference }),
});

describe('BatchKeys: a stable key per row', () => {
  it('the same rows give the same keys on every run; identity is the reference, else content and place among twins', async () => {
    const rows = [order(9001, 'a'), order(9001), order(9002), order(9001), order(9001, 'a')];
    const run = async (batch: string) => {
      const keys = new BatchKeys(batch);
      const out: string[] = [];
      for (const row of rows) out.push((await keys.next(row)).key);
      return out;
    };
    const first = await run('week-1');
    expect(await run('week-1')).toEqual(first);
    // The two unreferenced 9001 rows are two orders; the two rows with reference "a" are one.
    expect(new Set(first).size).toBe(4);
    expect(first[4]).toBe(first[0]);
    expect(first[1]).not.toBe(first[3]);
    // Another batch name: other orders.
    expect((await run('week-2')).some((key) => first.includes(key))).toBe(false);
    // The alias and the default type are the same order as their canonical spelling.
    const keys = new BatchKeys('week-1');
    expect((await keys.next({ order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9001 })).key).toBe(
      first[1],
    );
    expect(first[0]).toMatch(/^week-1-[0-9a-f]{32}$/);
    expect(await batchRowKey('a b/c', 'x')).toMatch(/^a_b_c-[0-9a-f]{32}$/);
  });
});

describe('orders.createMany', () => {
  it('reports each row, goes on after a refused row, and never orders a keyed row twice', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: sandbox.fetch });
    const rows: BatchRow[] = [order(9001, 'r1'), order(9101, 'bad'), order(9002, 'r2')].map((body, i) => ({ body, line: i + 1 }));
    const outcomes: BatchOutcome[] = [];
    const result = await client.orders.createMany(rows, { batch: 'lib', onOutcome: (o) => void outcomes.push(o) });
    expect(result.outcomes).toEqual({ created: 2, existed: 0, rejected: 1 });
    expect(result.stopped).toBeUndefined();
    expect(outcomes.map((o) => [o.line, o.status])).toEqual([
      [1, 'created'],
      [2, 'rejected'],
      [3, 'created'],
    ]);
    expect(outcomes[1]).toMatchObject({ error: { code: 'PLATFORM_VALIDATION_FAILED', status: 422, kind: 'validation' } });
    // Again: the server returns the earlier orders for the same keys.
    const again = await client.orders.createMany(rows, { batch: 'lib' });
    expect(again.outcomes).toEqual({ created: 0, existed: 2, rejected: 1 });
    expect(sandbox.store.db.orders.size).toBe(2);
  });

  it('rows that each carry a key need no options at all', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: sandbox.fetch });
    const result = await client.orders.createMany([{ body: order(9001), key: 'own-1' }]);
    expect(result.outcomes).toEqual({ created: 1, existed: 0, rejected: 0 });
  });

  it('rows given whole with one that has no key (and no batch option): a UsageError before any row is sent', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: sandbox.fetch });
    const rows: BatchRow[] = [{ body: order(9001), key: 'k1' }, { body: order(9002), key: 'k2' }, { body: order(9003) }];
    await expect(client.orders.createMany(rows, {})).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringContaining('key on every row'),
    });
    expect(sandbox.store.db.orders.size).toBe(0);
  });

  it('rows that stream in, one without a key: the batch stops there and reports what it sent before', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: sandbox.fetch });
    async function* rows(): AsyncGenerator<BatchRow> {
      yield { body: order(9001), key: 'k1', line: 1 };
      yield { body: order(9002), key: 'k2', line: 2 };
      yield { body: order(9003), line: 3 };
      yield { body: order(9004), key: 'k4', line: 4 };
    }
    const result = await client.orders.createMany(rows());
    expect(result.outcomes).toEqual({ created: 2, existed: 0, rejected: 0 });
    expect(result.stopped).toMatchObject({ reason: 'unkeyed', line: 3, error: { name: 'UsageError' } });
    expect(sandbox.store.db.orders.size).toBe(2);
  });

  it("its pause for the limit is told to the client's onWait, as every other pause is, or to its own", async () => {
    for (const own of [false, true]) {
      const clock = fakeClock();
      const sandbox = await createSandbox({ now: clock.now });
      const waits: ClientWait[] = [];
      const ownWaits: number[] = [];
      const client = createClient({
        baseUrl: 'http://sandbox.localhost',
        token: sandbox.account('rich').token,
        fetch: sandbox.fetch,
        clock,
        onWait: (wait) => waits.push(wait),
      });
      const rows: BatchRow[] = Array.from({ length: 11 }, (_, i) => ({ body: order(9001), key: `paced-${i}` }));
      const result = await client.orders.createMany(rows, own ? { onWait: (ms) => ownWaits.push(ms) } : {});
      expect(result.outcomes.created).toBe(11);
      const told = own ? ownWaits : waits.map((w) => w.ms);
      expect(told).toHaveLength(1);
      expect(told[0]).toBeGreaterThan(50_000);
      if (own) expect(waits).toEqual([]);
      else expect(waits[0]).toMatchObject({ reason: 'pacing', request: 'POST /api/v1/me/orders' });
    }
  });

  it('a row is "existed" only when the answer says idempotent: true', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const saying =
      (idempotent: unknown): typeof fetch =>
      async (input, init) => {
        const answer = await sandbox.fetch(input, init);
        if (init?.method !== 'POST') return answer;
        const body = (await answer.json()) as { data: Record<string, unknown> };
        body.data.idempotent = idempotent;
        return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
      };
    const outcomes: string[] = [];
    for (const idempotent of ['true', 1, null, true]) {
      const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: saying(idempotent) });
      await client.orders.createMany([{ body: order(9001), key: `says-${String(idempotent)}-${typeof idempotent}` }], {
        onOutcome: (o) => void outcomes.push(o.status),
      });
    }
    expect(outcomes).toEqual(['created', 'created', 'created', 'existed']);
  });

  it('a 401 stops the batch: nothing more can succeed, and the row in doubt is named', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: 'tk_live_not_a_real_token_000000', fetch: sandbox.fetch });
    const result = await client.orders.createMany(
      [
        { body: order(9001), line: 7 },
        { body: order(9002), line: 8 },
      ],
      { batch: 'lib' },
    );
    expect(result.stopped).toMatchObject({ reason: 'error', line: 7 });
    expect(result.outcomes).toEqual({ created: 0, existed: 0, rejected: 0 });
  });

  it('stops at maxTotal, counting what earlier runs created', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: 'http://sandbox.localhost', token: sandbox.account('rich').token, fetch: sandbox.fetch });
    const rows = [1, 2, 3, 4].map((i) => ({ body: order(9001, `m${i}`) }));
    // Each order costs 12 000: 5 000 before + 12 000 + 12 000 passes 20 000, so two are sent.
    const result = await client.orders.createMany(rows, { batch: 'lib', maxTotal: 20_000, totalBefore: 5_000 });
    expect(result.outcomes.created).toBe(2);
    expect(result.stopped).toEqual({ reason: 'max-total', total: 29_000 });
  });

  it('30 orders on a sandbox with the published limits: no 429, also across a stop and a resume paced from the send times', async () => {
    const { time, clock } = fakeTime();
    const sandbox = await createSandbox({ now: () => time.now });
    const token = sandbox.account('rich').token;
    const rows = Array.from({ length: 30 }, (_, i) => ({ body: order(9001, `paced-${i}`), line: i + 1 }));
    const sentAt: number[] = [];
    const stop = new AbortController();
    const first = createClient({ baseUrl: 'http://sandbox.localhost', token, fetch: sandbox.fetch, clock });
    const run1 = await first.orders.createMany(rows, {
      batch: 'paced',
      signal: stop.signal,
      onSending: (_row, at) => void sentAt.push(at),
      onOutcome: () => {
        if (sentAt.length === 10) stop.abort();
      },
    });
    expect(run1.stopped).toEqual({ reason: 'interrupted' });
    expect(run1.outcomes.created).toBe(10);

    // A new process (a new client, its pacer empty) resumes at once, from the earlier send times.
    const second = createClient({ baseUrl: 'http://sandbox.localhost', token, fetch: sandbox.fetch, clock });
    const run2 = await second.orders.createMany(rows.slice(10), {
      batch: 'paced',
      sentBefore: sentAt,
      onSending: (_row, at) => void sentAt.push(at),
    });
    expect(run2.outcomes.created).toBe(20);
    const creations = sandbox.requests.list({ method: 'POST', path: '/api/v1/me/orders' });
    expect(creations.map((entry) => entry.status)).toEqual(Array(30).fill(201));
    for (const at of sentAt) expect(sentAt.filter((t) => t > at - 60_000 && t <= at).length).toBeLessThanOrEqual(10);
    // The ceiling: 10 at once, then 10 more each minute (plus the pacer's small margin): 30 in just over 2 minutes.
    expect(sentAt.at(-1)! - sentAt[0]!).toBeGreaterThanOrEqual(120_000);
    expect(sentAt.at(-1)! - sentAt[0]!).toBeLessThan(121_000);
  });

  it('without the earlier send times, the same resume runs into the limit (what sentBefore prevents)', async () => {
    const { time, clock } = fakeTime();
    const sandbox = await createSandbox({ now: () => time.now });
    const token = sandbox.account('rich').token;
    const rows = Array.from({ length: 12 }, (_, i) => ({ body: order(9001, `unpaced-${i}`) }));
    const quiet = { onWait: () => undefined };
    const first = createClient({ baseUrl: 'http://sandbox.localhost', token, fetch: sandbox.fetch, clock, ...quiet });
    await first.orders.createMany(rows.slice(0, 10), { batch: 'unpaced' });
    const second = createClient({ baseUrl: 'http://sandbox.localhost', token, fetch: sandbox.fetch, clock, ...quiet });
    await second.orders.createMany(rows.slice(10), { batch: 'unpaced' });
    const statuses = sandbox.requests.list({ method: 'POST', path: '/api/v1/me/orders' }).map((entry) => entry.status);
    expect(statuses).toContain(429);
  });
});
