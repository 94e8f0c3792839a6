import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import type { FaultRule } from '../../mocks/core/fault-config.js';
import { fakeClock } from '../support/fake-clock.js';
import { createClient, type ClientWait, type ReceivedResponse } from '../../src/client/index.js';

/** No jitter: backoff waits are their shortest. */
const noJitterClock = () => fakeClock({ random: 0 });

describe('onWait: no pause the client makes on its own is silent', () => {
  it('a 429 with Retry-After is announced before the wait, with its length and status', async () => {
    // One clock for both sides: the 429's X-RateLimit-Reset is read against the client's.
    const clock = noJitterClock();
    const sandbox = await createSandbox({
      now: clock.now,
      faults: { seed: 1, rules: [{ kind: 'rate_limit', rate: 1, retry_after: 3, routes: ['getBalance'] }] },
    });
    const waits: ClientWait[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
      clock,
      maxRetries: 2,
      onWait: (w) => waits.push(w),
    });
    await expect(client.balance.get()).rejects.toThrow();
    expect(waits.filter((w) => w.reason === 'retry-after')).toEqual([
      { reason: 'retry-after', ms: 3000, request: 'GET /api/v1/me/balance', status: 429 },
      { reason: 'retry-after', ms: 3000, request: 'GET /api/v1/me/balance', status: 429 },
    ]);
    // The 429 says nothing is left until its X-RateLimit-Reset: the pacer waits out the rest of that, and says so too.
    expect(waits.filter((w) => w.reason === 'pacing').every((w) => w.ms <= 1050)).toBe(true);
  });

  it.each<[string, FaultRule, number | undefined]>([
    ['a 502 without Retry-After', { kind: 'error', rate: 1, status: 502, routes: ['getBalance'] }, 502],
    ['a connection dropped before any answer', { kind: 'drop_before', rate: 1, routes: ['getBalance'] }, undefined],
  ])('%s is backoff, with the status of the answer when one came', async (_name, rule, status) => {
    const sandbox = await createSandbox({ faults: { seed: 1, rules: [rule] } });
    const waits: ClientWait[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
      clock: noJitterClock(),
      maxRetries: 1,
      onWait: (w) => waits.push(w),
    });
    await expect(client.balance.get()).rejects.toThrow();
    expect(waits.map((w) => [w.reason, w.status])).toEqual([['backoff', status]]);
  });

  it('pacing under the published 10 orders a minute: the 11th order waits, and says so', async () => {
    const clock = noJitterClock();
    const sandbox = await createSandbox({ now: clock.now });
    const waits: ClientWait[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      fetch: sandbox.fetch,
      clock,
      onWait: (w) => waits.push(w),
    });
    for (let i = 0; i < 11; i++)
      await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, client_reference: `p-${i}` });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ reason: 'pacing', request: 'POST /api/v1/me/orders' });
    expect(waits[0]!.ms).toBeGreaterThan(50_000);
  });
});

describe('hooks are called, not awaited', () => {
  it('an async hook whose promise rejects is a process warning, not an unhandled rejection, and the call goes on', async () => {
    const warnings: (Error & { code?: string })[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const clock = noJitterClock();
      const sandbox = await createSandbox({ now: clock.now });
      const client = createClient({
        baseUrl: sandbox.baseUrl,
        token: sandbox.account('rich').token,
        fetch: sandbox.fetch,
        clock,
        // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the case under test: a caller's async hook
        onResponse: async () => {
          throw new Error(`metrics push failed for ${sandbox.account('rich').token}`);
        },
        // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the case under test: a caller's async hook
        onWait: async () => {
          throw new Error('wait push failed');
        },
      });
      for (let i = 0; i < 11; i++)
        await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, client_reference: `h-${i}` });
      await new Promise((resolve) => setImmediate(resolve));
      const ours = warnings.filter((w) => w.code === 'TOPUP_HOOK_REJECTED').map((w) => w.message);
      expect(ours.filter((m) => m.includes('onResponse') && m.includes('metrics push failed'))).toHaveLength(11);
      expect(ours.filter((m) => m.includes('onWait') && m.includes('wait push failed'))).toHaveLength(1);
      // The warning quotes the hook's error with the token cut, as every error of the client is.
      expect(ours.filter((m) => m.includes(sandbox.account('rich').token))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('tests that never stall: a sandbox without limits is not paced', () => {
  const order = (i: number) => ({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, client_reference: `o-${i}` });

  it('12 orders through sandbox.fetch of a rateLimit: false sandbox: no wait at all, on the real clock', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const waits: ClientWait[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      fetch: sandbox.fetch,
      onWait: (w) => waits.push(w),
    });
    // Paced, the 11th would wait a minute and this test would time out.
    for (let i = 0; i < 12; i++) await client.orders.create(order(i));
    expect(waits).toEqual([]);
    const rich = sandbox.store.db.accounts.all().find((a) => a.name === 'rich')!;
    expect(sandbox.store.db.orders.ownedBy(rich.id).filter((o) => o.client_reference?.startsWith('o-'))).toHaveLength(12);
  });

  it('pacing: true still paces on such a sandbox, and a sandbox with limits is paced by default', async () => {
    for (const [sandboxOptions, clientOptions] of [
      [{ rateLimit: false }, { pacing: true }],
      [{}, {}],
    ] as const) {
      const clock = noJitterClock();
      const sandbox = await createSandbox({ ...sandboxOptions, now: clock.now });
      const waits: ClientWait[] = [];
      const client = createClient({
        baseUrl: sandbox.baseUrl,
        token: sandbox.account('rich').token,
        fetch: sandbox.fetch,
        clock,
        onWait: (w) => waits.push(w),
        ...clientOptions,
      });
      for (let i = 0; i < 11; i++) await client.orders.create(order(i));
      expect(waits.map((w) => w.reason)).toEqual(['pacing']);
    }
  });

  it('without onWait, the first long wait of each kind is a process warning that says why', async () => {
    const clock = noJitterClock();
    const sandbox = await createSandbox({ now: clock.now });
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'TOPUP_LONG_WAIT') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch, clock });
      for (let i = 0; i < 22; i++) await client.orders.create(order(i));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^topup client: waiting \d+\.\d s before POST \/api\/v1\/me\/orders to keep under the published rate limit \(pass pacing: false for a server without limits, .*\); pass onWait to see every wait\.$/,
    );
  });
});

describe('onResponse', () => {
  it("reports every answer's status, URL and time, retried ones included", async () => {
    const sandbox = await createSandbox({ faults: { seed: 1, rules: [{ kind: 'error', rate: 1, status: 503, routes: ['getBalance'] }] } });
    const seen: ReceivedResponse[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
      clock: noJitterClock(),
      maxRetries: 1,
      onResponse: (r) => seen.push(r),
    });
    await client.catalog.creditPackages();
    await expect(client.balance.get()).rejects.toThrow();
    expect(seen.map((r) => `${r.status} ${r.method} ${r.url}`)).toEqual([
      '200 GET http://sandbox.localhost/api/v1/catalog/credit-packages',
      '503 GET http://sandbox.localhost/api/v1/me/balance',
      '503 GET http://sandbox.localhost/api/v1/me/balance',
    ]);
    expect(seen.every((r) => r.durationMs >= 0)).toBe(true);
  });
});
