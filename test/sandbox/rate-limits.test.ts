import { snapshotWriter } from '../../mocks/state/flush.js';
import { describe, expect, it } from 'vitest';
import { rateClasses } from '../../src/contract/index.js';
import {
  accounts,
  CLOCK_START,
  dataOf,
  expectError,
  SIMPLE_ORDER,
  transports,
  useSandboxes,
  type Answer,
  type RequestOptions,
  type TestSandbox,
} from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const WINDOW_END = String(CLOCK_START / 1000 + 60);

/** One request of each rate class; each is made with a fresh sandbox so windows start empty. */
const classes: Array<{
  rateClass: keyof typeof rateClasses;
  limit: number;
  method: string;
  path: string;
  options: (token: string) => RequestOptions;
}> = [
  { rateClass: 'public-read', limit: 60, method: 'GET', path: '/api/v1/health', options: () => ({}) },
  { rateClass: 'user-read', limit: 60, method: 'GET', path: '/api/v1/me', options: (token) => ({ token }) },
  { rateClass: 'create-order', limit: 10, method: 'POST', path: '/api/v1/me/orders', options: (token) => ({ token, body: SIMPLE_ORDER }) },
  { rateClass: 'token-validate', limit: 30, method: 'POST', path: '/api/v1/auth/token/validate', options: (token) => ({ token }) },
];

function expectLimitHeaders(answer: Answer, limit: number, remaining: number, reset = WINDOW_END): void {
  expect({
    limit: answer.headers['x-ratelimit-limit'],
    remaining: answer.headers['x-ratelimit-remaining'],
    reset: answer.headers['x-ratelimit-reset'],
  }).toEqual({ limit: String(limit), remaining: String(remaining), reset });
}

function expectTooMany(answer: Answer, retryAfter: string): void {
  expectError(answer, 429);
  expect(answer.headers['retry-after']).toBe(retryAfter);
}

async function exhaust(t: TestSandbox, c: (typeof classes)[number], token: string): Promise<void> {
  for (let i = 0; i < c.limit; i++) {
    const answer = await t.request(c.method, c.path, c.options(token));
    expect(answer.status, `request ${i + 1} of ${c.limit}`).toBeLessThan(300);
  }
}

/** Holds each order of the sandbox for a while before answering, so that requests pile up in flight. */
const slowPersist = () => new Promise<void>((resolve) => setTimeout(resolve, 50));

describe.each(transports)('rate limits (%s)', (transport) => {
  const sandbox = useSandboxes();

  it("the classes are the document's", () => {
    expect(Object.fromEntries(Object.entries(rateClasses).map(([name, c]) => [name, c.limit]))).toEqual({
      'public-read': 60,
      'user-read': 60,
      'create-order': 10,
      'token-validate': 30,
    });
  });

  describe.each(classes)('$rateClass ($limit a minute)', (c) => {
    it('sends X-RateLimit-Limit, -Remaining and -Reset on every answer, counting down', async () => {
      const t = await sandbox(transport);
      expectLimitHeaders(await t.request(c.method, c.path, c.options(rich.token)), c.limit, c.limit - 1);
      expectLimitHeaders(await t.request(c.method, c.path, c.options(rich.token)), c.limit, c.limit - 2);
      t.clock.advance(30_000);
      expectLimitHeaders(await t.request(c.method, c.path, c.options(rich.token)), c.limit, c.limit - 3);
    });

    it('sends them on refusals of the class too', async () => {
      const t = await sandbox(transport);
      const refused =
        c.rateClass === 'public-read'
          ? await t.request('GET', '/api/v1/articles/no-such-article')
          : c.rateClass === 'create-order'
            ? await t.request(c.method, c.path, { token: rich.token, body: { ...SIMPLE_ORDER, price: 1 } })
            : c.rateClass === 'user-read'
              ? await t.request('GET', '/api/v1/me/orders/INV20260302999999', { token: rich.token })
              : await t.request(c.method, c.path, { token: `${rich.token}x` });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expectLimitHeaders(refused, c.limit, c.limit - 1);
    });

    it(`refuses request ${c.limit + 1} of a window with 429, Retry-After and an uncoded envelope, then opens the next window`, async () => {
      const t = await sandbox(transport);
      await exhaust(t, c, rich.token);
      const before = t.state();
      const refused = await t.request(c.method, c.path, c.options(rich.token));
      expectTooMany(refused, '60');
      expectLimitHeaders(refused, c.limit, 0);
      expect(t.state(), 'a refused request changes nothing').toEqual(before);

      t.clock.advance(45_000);
      expectTooMany(await t.request(c.method, c.path, c.options(rich.token)), '15');
      t.clock.advance(14_999);
      expectTooMany(await t.request(c.method, c.path, c.options(rich.token)), '1');
      t.clock.advance(1);
      const reopened = await t.request(c.method, c.path, c.options(rich.token));
      expect(reopened.status).toBeLessThan(300);
      expectLimitHeaders(reopened, c.limit, c.limit - 1, String(CLOCK_START / 1000 + 120));
    });

    if (c.rateClass === 'public-read') {
      it('counts per client address: another address is unaffected', async () => {
        const t = await sandbox(transport);
        await exhaust(t, c, rich.token);
        expectTooMany(await t.request(c.method, c.path), '60');
        const other = await t.request(c.method, c.path, { from: '127.0.0.2' });
        expect(other.status).toBe(200);
        expectLimitHeaders(other, c.limit, c.limit - 1);
        // A token does not buy a public read a fresh window.
        expectTooMany(await t.request(c.method, c.path, { token: rich.token }), '60');
      });
    } else {
      it('counts per token: another token is unaffected', async () => {
        const t = await sandbox(transport);
        await exhaust(t, c, rich.token);
        expectTooMany(await t.request(c.method, c.path, c.options(rich.token)), '60');
        const other = await t.request(c.method, c.path, c.options(demo.token));
        expect(other.status).toBeLessThan(300);
        expectLimitHeaders(other, c.limit, c.limit - 1);
      });
    }
  });

  it('the classes are counted apart: a spent user-read window leaves orders and token checks open', async () => {
    const t = await sandbox(transport);
    await exhaust(t, classes[1]!, rich.token);
    expectTooMany(await t.request('GET', '/api/v1/me/balance', { token: rich.token }), '60');
    expect((await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/auth/token/validate', { token: rich.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
  });

  it("refuses a token's 4th request in flight with 429, and serves other tokens meanwhile", async () => {
    // The accepted orders' commits wait at a gate, so they stay in flight however slowly the burst arrives; the gate
    // opens once the refused ones have been answered.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const t = await sandbox(transport, { stateWriter: snapshotWriter(() => gate) });
    let refused = 0;
    const burst = Array.from({ length: 6 }, (_, i) =>
      t
        .request('POST', '/api/v1/me/orders', { token: rich.token, body: { ...SIMPLE_ORDER, client_reference: `burst-${i}` } })
        .then((answer) => {
          if (answer.status === 429) refused += 1;
          return answer;
        }),
    );
    const meanwhile = await t.request('GET', '/api/v1/me', { token: demo.token });
    await expect.poll(() => refused, { timeout: 10_000 }).toBe(3);
    open();
    const answers = await Promise.all(burst);
    expect(meanwhile.status).toBe(200);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expectError(refused, 429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(dataOf(await t.request('GET', '/api/v1/me/orders', { token: rich.token })).pagination.total).toBe(3);
    // Once they are answered the token may send again.
    expect((await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER })).status).toBe(201);
  });

  it('holds requests in flight while injected latency runs, so the cap can be met over any transport', async () => {
    // The latency waits at a gate: every request of the burst has arrived before any is answered.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const waited: number[] = [];
    const t = await sandbox(transport, {
      faults: { rules: [{ kind: 'latency', latency_ms: 1000, rate: 1, routes: ['getProfile'] }] },
      sleep: (ms) => (waited.push(ms), gate),
    });
    const burst = Array.from({ length: 6 }, () => t.request('GET', '/api/v1/me', { token: rich.token }));
    await expect.poll(() => waited.length, { timeout: 10_000 }).toBe(6);
    open();
    const answers = await Promise.all(burst);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    expect(waited).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
    // Another token was never held back by them.
    expect((await t.request('GET', '/api/v1/me', { token: demo.token })).status).toBe(200);
  });

  it('a request the in-flight cap refuses does not use up the per-minute quota, and its 429 says where the quota stands', async () => {
    // The admitted orders wait on a gate while they are written, so they stay in flight until the cap has refused the
    // rest, however slowly a loaded machine delivers the burst (a fixed delay let some finish first). The fallback
    // opens the gate if the cap refuses fewer than 3, and the counts below then fail instead of hanging.
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const fallback = setTimeout(open, 10_000);
    const t = await sandbox(transport, { stateWriter: snapshotWriter(() => gate) });
    let refusedSoFar = 0;
    const burst = Array.from({ length: 6 }, (_, i) =>
      t
        .request('POST', '/api/v1/me/orders', { token: rich.token, body: { ...SIMPLE_ORDER, client_reference: `cap-${i}` } })
        .then((answer) => {
          if (answer.status === 429 && ++refusedSoFar === 3) open();
          return answer;
        }),
    );
    const answers = await Promise.all(burst);
    clearTimeout(fallback);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.headers['x-ratelimit-limit']).toBe('10');
      expect(Number(refused.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(7);
    }
    // 3 created, 3 refused by the cap: 7 of the 10 a minute are left, not 4.
    for (let i = 0; i < 7; i++)
      expect(
        (await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: { ...SIMPLE_ORDER, client_reference: `after-${i}` } }))
          .status,
        `order ${i + 1} after the burst`,
      ).toBe(201);
    expect((await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER })).status).toBe(429);
  });

  describe('with rateLimit: false', () => {
    it('serves beyond every class limit, without X-RateLimit headers', async () => {
      const t = await sandbox(transport, { rateLimit: false });
      for (let i = 0; i < 61; i++) expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
      for (let i = 0; i < 11; i++) {
        const answer = await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER });
        expect(answer.status).toBe(201);
        expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });

    it('has no in-flight cap', async () => {
      const t = await sandbox(transport, { rateLimit: false, stateWriter: snapshotWriter(slowPersist) });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER })),
      );
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    });
  });
});
