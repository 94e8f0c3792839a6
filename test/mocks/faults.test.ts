import { describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultSpec, type FaultConfig } from '../../mocks/core/faults.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import { open, transports } from '../support/sandbox-harness.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

describe('parseFaultSpec', () => {
  it.each<[string, FaultConfig['rules']]>([
    ['drop-after=20%', [{ kind: 'drop_after', rate: 0.2 }]],
    ['drop-before=0.01', [{ kind: 'drop_before', rate: 0.01 }]],
    ['503=10%/retry-after=1', [{ kind: 'error', rate: 0.1, status: 503, retry_after: 1 }]],
    ['500=5%', [{ kind: 'error', rate: 0.05, status: 500 }]],
    ['429=100%/retry-after=2', [{ kind: 'rate_limit', rate: 1, retry_after: 2 }]],
    ['latency=5-50ms', [{ kind: 'latency', rate: 1, latency_ms: [5, 50] }]],
    ['latency=100ms/25%@createOrder+getOrder', [{ kind: 'latency', rate: 0.25, latency_ms: 100, routes: ['createOrder', 'getOrder'] }]],
    [
      'drop-after=20%@createOrder, 429=10%',
      [
        { kind: 'drop_after', rate: 0.2, routes: ['createOrder'] },
        { kind: 'rate_limit', rate: 0.1 },
      ],
    ],
  ])('%s', (spec, rules) => {
    expect(parseFaultSpec(spec, 7)).toEqual({ seed: 7, rules });
  });

  it.each(['drop-after', 'drop-after=200%', 'teleport=5%', '418=10%', 'latency=fast', '503=10%/retry-after=-1', 'latency=50-5ms'])(
    'refuses %s with one sentence',
    (spec) => {
      expect(() => parseFaultSpec(spec)).toThrow(/^Invalid fault/);
    },
  );
});

describe('FaultInjector', () => {
  it('is deterministic for a seed, and different seeds differ', () => {
    const run = (seed: number) => {
      const injector = new FaultInjector();
      injector.configure({
        seed,
        rules: [
          { kind: 'drop_after', rate: 0.3 },
          { kind: 'error', rate: 0.2, status: 503 },
        ],
      });
      return Array.from({ length: 200 }, () => {
        const d = injector.decide('createOrder');
        return d.dropAfter ? 'A' : d.before ? 'E' : '.';
      }).join('');
    };
    expect(run(42)).toBe(run(42));
    expect(run(42)).not.toBe(run(43));
  });

  it('fires each rule at close to its rate', () => {
    const injector = new FaultInjector();
    injector.configure({ seed: 1, rules: [{ kind: 'drop_after', rate: 0.2 }] });
    for (let i = 0; i < 10_000; i++) injector.decide('createOrder');
    // 10,000 draws at p = 0.2: the standard deviation is 40, so ±200 is five of them.
    expect(Math.abs(injector.stats.drop_after - 2_000)).toBeLessThan(200);
    expect(injector.stats.requests).toBe(10_000);
  });

  it('applies route-limited rules only to their routes', () => {
    const injector = new FaultInjector();
    injector.configure({ rules: [{ kind: 'drop_before', rate: 1, routes: ['createOrder'] }] });
    expect(injector.decide('getHealth').before).toBeUndefined();
    expect(injector.decide('createOrder').before).toBe('drop');
  });
});

describe('faults in the sandbox', () => {
  async function sandboxWith(rules: FaultConfig['rules'], sleep?: (ms: number) => Promise<void>) {
    const sandbox = await createSandbox({ rateLimit: false, faults: { seed: 1, rules }, ...(sleep ? { sleep } : {}) });
    const rich = sandbox.account('rich');
    const post = () =>
      sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(order),
      });
    return { sandbox, post };
  }

  it('drop_after commits the order and then loses the answer', async () => {
    const { sandbox, post } = await sandboxWith([{ kind: 'drop_after', rate: 1 }]);
    await expect(post()).rejects.toThrow(TypeError);
    expect(sandbox.store.db.orders.size).toBe(1);
  });

  it('drop_before loses the request before anything changes', async () => {
    const { sandbox, post } = await sandboxWith([{ kind: 'drop_before', rate: 1 }]);
    await expect(post()).rejects.toThrow(TypeError);
    expect(sandbox.store.db.orders.size).toBe(0);
  });

  it.each([
    [{ kind: 'error', rate: 1, status: 503, retry_after: 2 } as const, 503, '2', 'SERVICE_UNAVAILABLE'],
    [{ kind: 'error', rate: 1, status: 502 } as const, 502, null, 'BAD_GATEWAY'],
    [{ kind: 'error', rate: 1, status: 504 } as const, 504, null, 'GATEWAY_TIMEOUT'],
    [{ kind: 'error', rate: 1, status: 503 } as const, 503, '1', 'SERVICE_UNAVAILABLE'],
    [{ kind: 'rate_limit', rate: 1, retry_after: 3 } as const, 429, '3', undefined],
  ])('%o answers %i with Retry-After %s and the error envelope, and changes nothing', async (rule, status, retryAfter, code) => {
    const { sandbox, post } = await sandboxWith([rule]);
    const response = await post();
    expect(response.status).toBe(status);
    expect(response.headers.get('retry-after')).toBe(retryAfter);
    const body = (await response.json()) as { success: boolean; error?: { code: string } };
    expect(body.success).toBe(false);
    expect(body.error?.code).toBe(code);
    expect(sandbox.store.db.orders.size).toBe(0);
  });

  it('latency waits the injected time before answering', async () => {
    const waits: number[] = [];
    const { post } = await sandboxWith([{ kind: 'latency', rate: 1, latency_ms: 250 }], async (ms) => {
      waits.push(ms);
    });
    expect((await post()).status).toBe(201);
    expect(waits).toEqual([250]);
  });

  it('can be configured, read and cleared over the HTTP control API, with stats', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const server = await startHttpSandbox(sandbox, { port: 0 });
    try {
      const put = await fetch(`${server.url}/__sandbox/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seed: 3, rules: [{ kind: 'error', rate: 1, status: 503 }] }),
      });
      expect(put.status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(503);
      const stats = (await (await fetch(`${server.url}/__sandbox/faults`)).json()) as {
        data: { stats: { error: number; requests: number } };
      };
      expect(stats.data.stats).toMatchObject({ error: 1, requests: 1 });
      const bad = await fetch(`${server.url}/__sandbox/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules: [{ kind: 'error', rate: 2 }] }),
      });
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as { message: string }).message).toMatch(/rule 1 needs a rate from 0 to 1/);
      // A body-less DELETE needs the header a cross-site request cannot send (rules/control-guard.ts).
      expect((await fetch(`${server.url}/__sandbox/faults`, { method: 'DELETE' })).status).toBe(403);
      expect((await fetch(`${server.url}/__sandbox/faults`, { method: 'DELETE', headers: { 'x-topup-sandbox': '1' } })).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('drops the connection over real HTTP', async () => {
    const sandbox = await createSandbox({ rateLimit: false, faults: { rules: [{ kind: 'drop_before', rate: 1, routes: ['getHealth'] }] } });
    const server = await startHttpSandbox(sandbox, { port: 0 });
    try {
      await expect(fetch(`${server.url}/api/v1/health`)).rejects.toThrow();
      expect((await fetch(`${server.url}/api/v1/catalog/credit-packages`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('exclusive faults share one draw', () => {
  it('gives each rule its own rate as its real share, not what earlier rules left', () => {
    const injector = new FaultInjector();
    injector.configure({
      seed: 5,
      rules: [
        { kind: 'drop_after', rate: 0.5 },
        { kind: 'error', rate: 0.3, status: 503 },
        { kind: 'rate_limit', rate: 0.2 },
      ],
    });
    for (let i = 0; i < 10_000; i++) injector.decide('createOrder');
    const { drop_after, error, rate_limit } = injector.stats;
    expect(Math.abs(drop_after - 5_000)).toBeLessThan(250);
    expect(Math.abs(error - 3_000)).toBeLessThan(250);
    expect(Math.abs(rate_limit - 2_000)).toBeLessThan(250);
    expect(drop_after + error + rate_limit).toBe(10_000);
  });
});

describe('injected answers are answers the document declares', () => {
  it.each(transports)(
    '429, 500, 502, 503 and 504, over %s, pass the OpenAPI check; 429 and 503 carry Retry-After, 429 the X-RateLimit-* headers',
    async (transport) => {
      const seen: { status: number; headers: Record<string, string> }[] = [];
      for (const [kind, status] of [
        ['rate_limit', 429],
        ['error', 500],
        ['error', 502],
        ['error', 503],
        ['error', 504],
      ] as const) {
        const t = await open(transport);
        t.sandbox.faults.configure({ rules: [kind === 'rate_limit' ? { kind, rate: 1, retry_after: 3 } : { kind, rate: 1, status }] });
        const answer = await t.request('GET', '/api/v1/catalog/credit-packages');
        expect(answer.status).toBe(status);
        seen.push({ status, headers: answer.headers });
        expect(t.problems, `answers that break the OpenAPI document (${status})`).toEqual([]);
        await t.close();
      }
      const by = Object.fromEntries(seen.map((s) => [s.status, s.headers]));
      expect(by[429]).toMatchObject({ 'retry-after': '3', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0' });
      expect(Number(by[429]!['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(by[503]!['retry-after']).toBe('1');
    },
  );
});
