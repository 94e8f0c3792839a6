import { afterEach, describe, expect, it } from 'vitest';
import { FAULT_ROUTE_IDS, FaultConfigError, FaultInjector, parseFaultSpec, type FaultConfig } from '../../mocks/core/faults.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { createClient } from '../../src/client/index.js';
import { endpoints } from '../../src/contract/index.js';
import { dataOf, expectError, open, SIMPLE_ORDER, transports, type TestSandbox } from '../support/sandbox-harness.js';

const ALL_IDS = endpoints.map((e) => e.id).join(', ');
const UNKNOWN_ROUTE = `Invalid faults: rule 1 names no route 'create_order' (did you mean createOrder?); routes are ${ALL_IDS}.`;

/** One letter per request: what the injector decided. */
function outcomes(config: FaultConfig, routes: string[]): string {
  const injector = new FaultInjector();
  injector.configure(config);
  return routes
    .map((route) => {
      const d = injector.decide(route);
      if (d.dropAfter) return 'A';
      if (d.before === 'drop') return 'B';
      if (d.before?.status === 429) return 'R';
      if (d.before !== undefined) return String(d.before.status)[0];
      return d.latencyMs > 0 ? 'L' : '.';
    })
    .join('');
}

const orders = (n: number) => Array<string>(n).fill('createOrder');

describe('times and after', () => {
  it.each<[string, FaultConfig['rules'], string[], string]>([
    [
      'times: 1 fails the first matching request only',
      [{ kind: 'error', status: 503, times: 1, routes: ['createOrder'] }],
      orders(4),
      '5...',
    ],
    [
      'requests on other routes are not counted',
      [{ kind: 'error', status: 503, times: 1, routes: ['createOrder'] }],
      ['getHealth', 'getOrder', 'createOrder', 'createOrder'],
      '..5.',
    ],
    ['after: 2, times: 3 skips two, fires three, stops', [{ kind: 'rate_limit', after: 2, times: 3 }], orders(7), '..RRR..'],
    ['after alone fires on every request past it', [{ kind: 'drop_before', after: 1 }], orders(4), '.BBB'],
    ['after: 0 is from the first', [{ kind: 'drop_after', after: 0, times: 2 }], orders(3), 'AA.'],
    [
      'two sequences on one route play one after the other: a spent rule leaves the draw',
      [
        { kind: 'error', status: 503, times: 1 },
        { kind: 'rate_limit', times: 2 },
        { kind: 'error', status: 500, times: 1 },
      ],
      orders(6),
      '5RR5..',
    ],
    ['latency with times', [{ kind: 'latency', latency_ms: 10, times: 2 }], orders(3), 'LL.'],
    ['rate 0 with times never fires', [{ kind: 'error', rate: 0, times: 5 }], orders(3), '...'],
  ])('%s', (_name, rules, routes, expected) => {
    expect(outcomes({ seed: 1, rules }, routes)).toBe(expected);
  });

  it('a rate below 1 with times fires at most that many times, at the rate until then', () => {
    const injector = new FaultInjector();
    injector.configure({ seed: 9, rules: [{ kind: 'error', rate: 0.5, times: 3, routes: ['createOrder'] }] });
    const seen = Array.from({ length: 40 }, () => (injector.decide('createOrder').before === undefined ? '.' : 'E')).join('');
    expect(seen.replaceAll('.', '')).toBe('EEE');
    // Not simply the first three: the rate still decides which.
    expect(seen.startsWith('EEE')).toBe(false);
    expect(injector.stats.rules).toEqual([{ matched: 40, fired: 3 }]);
  });

  it('counts, per rule, the requests it matched and the ones it fired on, beside the totals', () => {
    const injector = new FaultInjector();
    injector.configure({
      rules: [
        { kind: 'error', status: 503, times: 1, routes: ['createOrder'] },
        { kind: 'latency', latency_ms: 5, after: 1, routes: ['getHealth'] },
      ],
    });
    for (const route of ['createOrder', 'getHealth', 'createOrder', 'getHealth', 'getHealth', 'getOrder']) injector.decide(route);
    expect(injector.stats).toEqual({
      requests: 6,
      latency: 2,
      error: 1,
      rate_limit: 0,
      drop_before: 0,
      drop_after: 0,
      rules: [
        { matched: 2, fired: 1 },
        { matched: 3, fired: 2 },
      ],
    });
    injector.configure({ rules: [{ kind: 'drop_after', times: 1 }] });
    expect(injector.stats.rules).toEqual([{ matched: 0, fired: 0 }]);
  });

  it.each<[string, unknown, RegExp]>([
    ['times 0', { kind: 'error', times: 0 }, /rule 1 needs times as a whole number of 1 or more/],
    ['fractional times', { kind: 'error', times: 1.5 }, /rule 1 needs times as a whole number of 1 or more/],
    ['negative after', { kind: 'error', after: -1 }, /rule 1 needs after as a whole number of 0 or more/],
    ['no rate, times or after', { kind: 'error' }, /rule 1 needs a rate from 0 to 1, or times or after/],
  ])('refuses %s', (_name, rule, message) => {
    expect(() => new FaultInjector().configure({ rules: [rule as never] })).toThrow(message);
  });
});

describe('routes a rule names', () => {
  it('must be operationIds of /api/v1 routes, taken from the contract', () => {
    expect([...FAULT_ROUTE_IDS].sort()).toEqual(endpoints.map((e) => e.id).sort());
  });

  it('an unknown id is refused in-process, naming the field, with the valid ids', async () => {
    const sandbox = await createSandbox();
    // TypeScript refuses it too (FaultRouteId); a JavaScript caller or JSON gets the run-time refusal.
    // @ts-expect-error: 'create_order' is no operationId
    const configure = () => sandbox.faults.configure({ rules: [{ kind: 'error', rate: 1, routes: ['createOrder', 'create_order'] }] });
    expect(configure).toThrow(FaultConfigError);
    expect(configure).toThrow(UNKNOWN_ROUTE);
    try {
      configure();
    } catch (error) {
      expect((error as FaultConfigError).field).toBe('rules[0].routes');
    }
    expect(sandbox.faults.config.rules).toEqual([]);
    // @ts-expect-error: 'create_order' is no operationId
    await expect(createSandbox({ faults: { rules: [{ kind: 'drop_after', rate: 1, routes: ['create_order'] }] } })).rejects.toThrow(
      UNKNOWN_ROUTE,
    );
  });

  it('an id with no near spelling gets the list without a guess', () => {
    // @ts-expect-error: 'teleport' is no operationId
    expect(() => new FaultInjector().configure({ rules: [{ kind: 'error', rate: 1, routes: ['teleport'] }] })).toThrow(
      `Invalid faults: rule 1 names no route 'teleport'; routes are ${ALL_IDS}.`,
    );
  });
});

describe('parseFaultSpec with times and after', () => {
  it.each<[string, FaultConfig['rules']]>([
    ['503/retry-after=1/times=1@createOrder', [{ kind: 'error', status: 503, retry_after: 1, times: 1, routes: ['createOrder'] }]],
    ['429/after=2/times=3@createOrder', [{ kind: 'rate_limit', after: 2, times: 3, routes: ['createOrder'] }]],
    ['drop-after=50%/times=2', [{ kind: 'drop_after', rate: 0.5, times: 2 }]],
    ['drop-before/after=4', [{ kind: 'drop_before', after: 4 }]],
    ['latency=100ms/times=1', [{ kind: 'latency', latency_ms: 100, times: 1 }]],
    ['latency=100ms/25%/after=1', [{ kind: 'latency', rate: 0.25, latency_ms: 100, after: 1 }]],
  ])('%s', (spec, rules) => {
    expect(parseFaultSpec(spec)).toEqual({ rules });
  });

  it.each([
    ['503', /^Invalid fault '503'\. Examples: .*503\/retry-after=1\/times=1@createOrder, 429\/after=2\/times=3\.$/],
    ['503/tims=1', /^Invalid fault '503\/tims=1'\. Examples: /],
    ['503/times=x', /^Invalid fault '503\/times=x'\. Examples: /],
    ['503/times=0', /^Invalid faults: rule 1 needs times as a whole number of 1 or more\.$/],
    ['429/after=-1', /^Invalid faults: rule 1 needs after as a whole number of 0 or more\.$/],
  ])('refuses %s with one sentence', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });

  it('refuses an unknown route id with the same sentence as the control API', () => {
    expect(() => parseFaultSpec('503=10%@create_order')).toThrow(UNKNOWN_ROUTE);
  });
});

describe.each(transports)('a fault sequence in the sandbox (%s)', (transport) => {
  let t: TestSandbox;
  afterEach(async () => {
    await t.close();
    expect(t.problems, 'answers that break the OpenAPI document').toEqual([]);
  });

  it("the first createOrder answers 503 + Retry-After 1; the client's retry makes exactly one order", async () => {
    t = await open(transport);
    t.sandbox.faults.configure({ rules: [{ kind: 'error', status: 503, retry_after: 1, routes: ['createOrder'], times: 1 }] });
    const rich = t.sandbox.account('rich');
    // Default options, but the sandbox's fake clock: the retry's wait costs no real time.
    const client = createClient({
      baseUrl: t.baseUrl,
      token: rich.token,
      fetch: transport === 'http' ? globalThis.fetch : t.sandbox.fetch,
      clock: t.clock,
    });
    const created = await client.orders.create(SIMPLE_ORDER);
    expect(t.sandbox.store.db.orders.all().map((o) => o.invoice_code)).toEqual([created.invoice.invoice_code]);
    const posts = t.sandbox.requests.list({ method: ['POST'], path: '/api/v1/me/orders' });
    expect(posts.map((p) => [p.status, p.fault])).toEqual([
      [503, 'error 503'],
      [201, null],
    ]);
    expect(JSON.parse(posts[0]!.response_body!)).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(posts[1]!.idempotency_key).toBe(posts[0]!.idempotency_key);
    expect(t.clock.slept).toContain(1_000);
    expect(t.sandbox.faults.stats.rules).toEqual([{ matched: 2, fired: 1 }]);
    // Spent: later orders go through.
    await client.orders.create(SIMPLE_ORDER);
    expect(t.sandbox.store.db.orders.size).toBe(2);
  });

  it('after: 1 lets the first order through and fails the second; GET /__sandbox/faults shows the counts', async () => {
    t = await open(transport, { rateLimit: false });
    const put = await t.request('PUT', '/__sandbox/faults', {
      body: { seed: 4, rules: [{ kind: 'error', status: 502, after: 1, times: 1, routes: ['createOrder'] }] },
    });
    expect(dataOf(put).stats.rules).toEqual([{ matched: 0, fired: 0 }]);
    const rich = t.sandbox.account('rich');
    const post = () => t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER });
    expect((await post()).status).toBe(201);
    expectError(await post(), 502, 'BAD_GATEWAY');
    expect((await post()).status).toBe(201);
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
    const faults = dataOf(await t.request('GET', '/__sandbox/faults'));
    expect(faults).toEqual({
      seed: 4,
      rules: [{ kind: 'error', status: 502, after: 1, times: 1, routes: ['createOrder'] }],
      stats: { requests: 4, latency: 0, error: 1, rate_limit: 0, drop_before: 0, drop_after: 0, rules: [{ matched: 3, fired: 1 }] },
    });
    expect(t.sandbox.store.db.orders.size).toBe(2);
  });

  it('PUT /__sandbox/faults with an unknown route id is 422, lists the valid ids, names the field, changes nothing', async () => {
    t = await open(transport);
    t.sandbox.faults.configure({ rules: [{ kind: 'latency', latency_ms: 1, rate: 1 }] });
    const answer = await t.request('PUT', '/__sandbox/faults', {
      body: { rules: [{ kind: 'error', times: 1, routes: ['create_order'] }] },
    });
    expectError(answer, 422, 'VALIDATION_FAILED', ['rules[0].routes']);
    expect(answer.json.message).toBe(UNKNOWN_ROUTE);
    expect(t.sandbox.faults.config.rules).toEqual([{ kind: 'latency', latency_ms: 1, rate: 1 }]);
  });

  it.each([
    [{ rules: [{ kind: 'error', rate: 2 }] }, 'rules[0].rate'],
    [
      {
        rules: [
          { kind: 'error', rate: 1 },
          { kind: 'warp', rate: 1 },
        ],
      },
      'rules[1].kind',
    ],
    [{ rules: [{ kind: 'error', times: 0 }] }, 'rules[0].times'],
    [{ seed: 'x', rules: [] }, 'seed'],
    [{}, 'rules'],
  ])('PUT %j names %s in error.fields', async (body, field) => {
    t = await open(transport);
    expectError(await t.request('PUT', '/__sandbox/faults', { body }), 422, 'VALIDATION_FAILED', [field]);
  });
});
