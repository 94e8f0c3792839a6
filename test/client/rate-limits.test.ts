import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { createClient, type TopupClient } from '../../src/index.js';
import { rateClasses } from '../../src/contract/rate-limits.js';
import { recordingFetch, settle, type Exchange } from './helpers.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
/** Every published limit counts per minute: one window, in ms. */
const WINDOW_MS = rateClasses['create-order'].windowSeconds * 1000;
const START = Date.parse('2026-02-02T08:00:00Z');

let sandbox: Sandbox;
let exchanges: Exchange[];
let maxInFlight: number;

/** A client and a sandbox on one fake clock, with the sandbox's limits on. */
async function setup(options: { pacing: boolean; maxRetries?: number }): Promise<TopupClient> {
  sandbox = await createSandbox({ now: () => Date.now() });
  const recorder = recordingFetch(sandbox.fetch);
  exchanges = recorder.exchanges;
  let open = 0;
  maxInFlight = 0;
  return createClient({
    baseUrl: sandbox.baseUrl,
    token: sandbox.account('demo').token,
    // A long attempt timeout, so jumping the fake clock never fires one by accident.
    timeout: 600_000,
    pacing: options.pacing,
    maxRetries: options.maxRetries ?? 4,
    maxRetryTime: 120_000,
    fetch: async (input, init) => {
      open += 1;
      maxInFlight = Math.max(maxInFlight, open);
      try {
        return await recorder.fetch(input, init);
      } finally {
        open -= 1;
      }
    },
  });
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Retry-After', () => {
  it('is waited out exactly, then the same request is retried and succeeds', async () => {
    const client = await setup({ pacing: false });
    for (let i = 0; i < 10; i++) await settle(client.orders.create(order));
    const created = await settle(client.orders.create(order, { idempotencyKey: 'eleventh' }));

    const posts = exchanges.slice(10);
    expect(posts.map((e) => e.status)).toEqual([429, 201]);
    expect(posts[1]!.at - posts[0]!.at).toBe(WINDOW_MS);
    expect(posts.map((e) => e.headers['idempotency-key'])).toEqual(['eleventh', 'eleventh']);
    expect(created.idempotent).toBe(false);
  });

  it('longer than maxRetryTime is not waited: the RateLimitError comes at once', async () => {
    const client = await setup({ pacing: false });
    const impatient = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
      pacing: false,
      maxRetryTime: 30_000,
    });
    for (let i = 0; i < 10; i++) await settle(client.orders.create(order));
    const error = await settle(impatient.orders.create(order).catch((e: unknown) => e));
    expect(error).toMatchObject({ name: 'RateLimitError', retryAfter: 60 });
    expect(Date.now()).toBe(START);
  });
});

describe('pacing', () => {
  /** 100 calls: 60 user reads, 25 public reads and 15 order creations (10 a minute), issued all at once. */
  function hundredCalls(client: TopupClient): Array<Promise<unknown>> {
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) calls.push(i % 2 === 0 ? client.balance.get() : client.orders.list({ per_page: 1 }).then((p) => p));
    for (let i = 0; i < 25; i++) calls.push(client.catalog.creditPackages());
    for (let i = 0; i < 15; i++) calls.push(client.orders.create(order));
    return calls;
  }

  it('100 paced calls see no 429, keep to 2 in flight, and take close to the minimum the limits allow', async () => {
    const client = await setup({ pacing: true, maxRetries: 0 });
    await settle(Promise.all(hundredCalls(client)));

    expect(exchanges).toHaveLength(100);
    expect(exchanges.filter((e) => e.status === 429)).toEqual([]);
    expect(exchanges.every((e) => e.status === 200 || e.status === 201)).toBe(true);
    expect(maxInFlight).toBe(2);
    // The limits allow 10 orders now and 5 more a minute later: 60 s is the minimum.
    const elapsed = Date.now() - START;
    expect(elapsed).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(elapsed).toBeLessThan(WINDOW_MS + 1_000);
  });

  it('100 sequential user reads see no 429 and finish a minute after they start', async () => {
    const client = await setup({ pacing: true, maxRetries: 0 });
    for (let i = 0; i < 100; i++) await settle(client.account.profile());
    expect(exchanges.filter((e) => e.status !== 200)).toEqual([]);
    expect(exchanges[59]!.at - START).toBe(0);
    expect(exchanges[60]!.at - START).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(exchanges[99]!.at - START).toBeLessThan(WINDOW_MS + 1_000);
  });

  it('without pacing the same 100 calls do hit 429 (so the test above can fail)', async () => {
    const client = await setup({ pacing: false, maxRetries: 0 });
    await settle(Promise.allSettled(hundredCalls(client)));
    expect(exchanges.filter((e) => e.status === 429).length).toBeGreaterThan(0);
  });

  it('1,000 reads issued at once under one signal go 60 a minute, in the order they were issued, without a warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const client = await setup({ pacing: true, maxRetries: 0 });
      const controller = new AbortController();
      const calls = Array.from({ length: 1_000 }, (_, i) =>
        client.orders.list({ per_page: 1, page: i + 1 }, { signal: controller.signal }).then((page) => page),
      );
      await settle(Promise.all(calls));
      await new Promise((resolve) => setImmediate(resolve));

      expect(exchanges.filter((e) => e.status !== 200)).toEqual([]);
      expect(exchanges.map((e) => Number(new URL(e.url).searchParams.get('page')))).toEqual(calls.map((_, i) => i + 1));
      // Each window opens 50 ms (the pacer's margin) after the one before it has passed.
      expect(exchanges.every((e, i) => e.at - START === Math.floor(i / 60) * (WINDOW_MS + 50))).toBe(true);
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a refused call keeps its place: its retry goes before the calls made after it', async () => {
    const refusing = await createSandbox({
      now: () => Date.now(),
      faults: { rules: [{ kind: 'rate_limit', times: 1, retry_after: 1, routes: ['getArticle'] }] },
    });
    const recorder = recordingFetch(refusing.fetch);
    const client = createClient({ baseUrl: refusing.baseUrl, timeout: 600_000, fetch: recorder.fetch, onWait: () => undefined });
    const calls = Array.from({ length: 8 }, (_, i) =>
      client.request({ method: 'GET', path: `/api/v1/articles/a${i}`, throwOnError: false }).then((answer) => answer.status),
    );
    await settle(Promise.all(calls));
    const sent = recorder.exchanges.map((e) => `${new URL(e.url).pathname.split('/').pop()} ${e.status}`);
    // a0 was refused with Retry-After: 1; its retry comes next, before a2 to a7 (held by the same second).
    expect(sent.slice(0, 2).sort()).toEqual(['a0 429', 'a1 404']);
    expect(sent[2]).toBe('a0 404');
    expect(sent.slice(3)).toEqual(['a2 404', 'a3 404', 'a4 404', 'a5 404', 'a6 404', 'a7 404']);
  });

  it('calls that share one signal and back off together put one listener on it', async () => {
    const failing = await createSandbox({
      now: () => Date.now(),
      faults: { rules: [{ kind: 'error', status: 503, rate: 1, routes: ['getBalance'] }] },
    });
    const controller = new AbortController();
    const listeners: number[] = [];
    const client = createClient({
      baseUrl: failing.baseUrl,
      token: failing.account('demo').token,
      timeout: 600_000,
      maxRetries: 2,
      fetch: failing.fetch,
      onWait: () => listeners.push(getEventListeners(controller.signal, 'abort').length),
    });
    const calls = Array.from({ length: 30 }, () =>
      client.balance.get({ signal: controller.signal }).then(
        () => 'ok',
        (e: Error) => e.name,
      ),
    );
    const outcomes = await settle(Promise.all(calls));
    expect(outcomes.every((name) => name === 'ServerError' || name === 'TopupError')).toBe(true);
    expect(listeners.length).toBeGreaterThan(30);
    expect(Math.max(...listeners)).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a call that waited its turn keeps its retries: maxRetryTime counts from its first attempt, not from its queueing', async () => {
    // The 61st read fails once (503), a minute after it was issued: it waited for the window, longer than maxRetryTime.
    const faulty = await createSandbox({
      now: () => Date.now(),
      faults: { rules: [{ kind: 'error', status: 503, after: 60, times: 1, routes: ['getBalance'] }] },
    });
    const recorder = recordingFetch(faulty.fetch);
    const client = createClient({
      baseUrl: faulty.baseUrl,
      token: faulty.account('demo').token,
      timeout: 600_000,
      maxRetryTime: 30_000,
      fetch: recorder.fetch,
    });
    const results = await settle(Promise.allSettled(Array.from({ length: 61 }, () => client.balance.get())));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(recorder.exchanges.map((e) => e.status).filter((status) => status !== 200)).toEqual([503]);
    expect(recorder.exchanges).toHaveLength(62);
    expect(recorder.exchanges.at(-1)!.at - START).toBeGreaterThanOrEqual(WINDOW_MS);
  });

  it('resynchronises from X-RateLimit-Remaining when another client spent the budget', async () => {
    const client = await setup({ pacing: true, maxRetries: 0 });
    const other = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch, pacing: false });
    for (let i = 0; i < 9; i++) await settle(other.orders.create(order));
    // Our client's own log is empty; the answer tells it 0 remain until the window resets.
    await settle(client.orders.create(order));
    await settle(client.orders.create(order));
    expect(exchanges.map((e) => e.status)).toEqual([201, 201]);
    expect(exchanges[1]!.at - START).toBeGreaterThanOrEqual(WINDOW_MS);
  });
});
