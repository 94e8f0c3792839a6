import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import { FaultInjector, faultSpecOf, MAX_FAULT_RULES, parseFaultSpec, type FaultRule } from '../../mocks/core/faults.js';

/**
 * One syntax for a fault rule (issue 22): `mock serve --faults`, `topup mock faults add` and the control API's `spec`
 * all read it with parseFaultSpec, and `topup mock faults` writes rules back in it with faultSpecOf.
 */
describe('faultSpecOf', () => {
  it.each<[FaultRule, string]>([
    [{ kind: 'error', status: 503, times: 1, routes: ['createOrder'] }, '503/times=1@createOrder'],
    [{ kind: 'error', status: 503, rate: 0.1, retry_after: 1 }, '503=10%/retry-after=1'],
    [{ kind: 'rate_limit', rate: 0.07, after: 2 }, '429=7%/after=2'],
    [{ kind: 'drop_after', rate: 0.2, routes: ['createOrder', 'getOrder'] }, 'drop-after=20%@createOrder+getOrder'],
    [{ kind: 'drop_before', rate: 0.01 }, 'drop-before=1%'],
    [{ kind: 'latency', rate: 1, latency_ms: [5, 50] }, 'latency=5-50ms'],
    [{ kind: 'latency', rate: 0.25, latency_ms: 100 }, 'latency=100ms/25%'],
    [{ kind: 'latency', latency_ms: 100, times: 2 }, 'latency=100ms/times=2'],
    [{ kind: 'latency', rate: 1, latency_ms: 100, times: 2 }, 'latency=100ms/100%/times=2'],
  ])('writes %j as %s, which reads back as the same rule', (rule, spec) => {
    expect(faultSpecOf(rule)).toBe(spec);
    expect(parseFaultSpec(spec).rules).toEqual([rule]);
  });
});

describe('FaultInjector.add', () => {
  it('appends rules and keeps the counts of the ones there: a spent times=1 rule stays spent', () => {
    const faults = new FaultInjector();
    faults.configure({ rules: [{ kind: 'error', status: 503, times: 1 }] });
    expect(faults.decide('getBalance').before).not.toBeUndefined();
    faults.add([{ kind: 'latency', latency_ms: 5, rate: 1 }]);
    expect(faults.stats.rules).toEqual([
      { matched: 1, fired: 1 },
      { matched: 0, fired: 0 },
    ]);
    const next = faults.decide('getBalance');
    expect(next.before).toBeUndefined();
    expect(next.latencyMs).toBe(5);
  });

  it(`refuses a bad rule, or more than ${MAX_FAULT_RULES} rules, and changes nothing`, () => {
    const faults = new FaultInjector();
    faults.configure({ rules: [{ kind: 'drop_before', rate: 0.5 }] });
    expect(() => faults.add([{ kind: 'error', rate: 2 }])).toThrow('Invalid faults: rule 2 needs a rate from 0 to 1, or times or after.');
    expect(() => faults.add(Array.from({ length: MAX_FAULT_RULES }, () => ({ kind: 'drop_before', rate: 0 })))).toThrow(
      `Invalid faults: at most ${MAX_FAULT_RULES} rules at once.`,
    );
    expect(faults.config.rules).toEqual([{ kind: 'drop_before', rate: 0.5 }]);
  });
});

describe('the control API takes the same syntax', () => {
  const call = (url: string, method: string, body: unknown) =>
    fetch(`${url}/__sandbox/faults`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      async (r) => ({
        status: r.status,
        json: (await r.json()) as { message: string; data: { rules: FaultRule[] }; error?: { fields: string[] } },
      }),
    );

  it('PUT {spec, seed} sets, POST {spec} or {rules} adds; a bad one is 422 naming its field', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const server = await startHttpSandbox(sandbox, { port: 0 });
    try {
      expect((await call(server.url, 'PUT', { spec: '503/times=1@getHealth', seed: 4 })).status).toBe(200);
      expect(sandbox.faults.config).toEqual({ seed: 4, rules: [{ kind: 'error', status: 503, times: 1, routes: ['getHealth'] }] });
      expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(503);
      const added = await call(server.url, 'POST', { spec: 'latency=1ms' });
      expect(added.json.data.rules).toHaveLength(2);
      expect((await call(server.url, 'POST', { rules: [{ kind: 'drop_before', rate: 0 }] })).json.data.rules).toHaveLength(3);
      expect(sandbox.faults.stats.rules[0]).toEqual({ matched: 1, fired: 1 });
      expect(sandbox.faults.config.seed).toBe(4);
      for (const [method, body, field, message] of [
        ['POST', { spec: 'teleport=5%' }, 'spec', /^Invalid fault 'teleport=5%'\. Examples: /],
        ['POST', { spec: '503=1', rules: [] }, 'rules', /^Invalid faults: give either spec or rules, not both\.$/],
        ['POST', { spec: 503 }, 'spec', /^Invalid faults: `spec` is the compact form, a string\.$/],
        ['POST', { seed: 1, rules: [] }, 'seed', /^Adding rules keeps the seed; PUT the whole configuration to change it\.$/],
        ['PUT', { spec: '503=1', seed: 'x' }, 'seed', /^Invalid faults: `seed` must be an integer\.$/],
      ] as const) {
        const refused = await call(server.url, method, body);
        expect(refused.status).toBe(422);
        expect(refused.json.error?.fields).toEqual([field]);
        expect(refused.json.message).toMatch(message);
      }
      expect(sandbox.faults.config.rules).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
