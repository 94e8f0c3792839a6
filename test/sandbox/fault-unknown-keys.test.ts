import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { FaultConfigError, validateFaultConfig, type FaultConfig } from '../../mocks/core/faults.js';
import { dataOf, expectError, transports, useSandboxes } from '../support/sandbox-harness.js';

/** A configuration the types would refuse, as a caller in plain JavaScript or a JSON body sends it. */
const untyped = (config: unknown) => config as FaultConfig;

const ERROR_KEYS = 'kind, rate, routes, times, after, status, retry_after';
const RATE_LIMIT_KEYS = 'kind, rate, routes, times, after, retry_after';

/** What validateFaultConfig throws for `config`: its field and message. */
function refusal(config: unknown): { field: string; message: string } {
  try {
    validateFaultConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(FaultConfigError);
    return { field: (error as FaultConfigError).field, message: (error as FaultConfigError).message };
  }
  throw new Error(`accepted ${JSON.stringify(config)}`);
}

describe('validateFaultConfig refuses keys it does not know', () => {
  it.each<[string, unknown, string, string]>([
    [
      'camelCase retryAfter on an error',
      { rules: [{ kind: 'error', status: 503, times: 1, routes: ['getHealth'], retryAfter: 5 }] },
      'rules[0].retryAfter',
      `Invalid faults: rule 1 has unknown key 'retryAfter' (did you mean retry_after?); error rules take ${ERROR_KEYS}.`,
    ],
    [
      'a misspelt routes, which would have faulted every route',
      { rules: [{ kind: 'rate_limit', times: 1, retry_after: 5, rout: ['createOrder'] }] },
      'rules[0].rout',
      `Invalid faults: rule 1 has unknown key 'rout' (did you mean routes?); rate_limit rules take ${RATE_LIMIT_KEYS}.`,
    ],
    [
      'a misspelt seed',
      { rules: [], sede: 7 },
      'sede',
      "Invalid faults: unknown key 'sede' (did you mean seed?); a configuration takes rules and seed.",
    ],
    [
      'a key of another kind of rule',
      {
        rules: [
          { kind: 'error', rate: 1 },
          { kind: 'rate_limit', rate: 1, status: 503 },
        ],
      },
      'rules[1].status',
      `Invalid faults: rule 2 (rate_limit) takes no status; rate_limit rules take ${RATE_LIMIT_KEYS}.`,
    ],
    [
      'latency_ms on an error',
      { rules: [{ kind: 'error', rate: 1, latency_ms: 5 }] },
      'rules[0].latency_ms',
      `Invalid faults: rule 1 (error) takes no latency_ms; error rules take ${ERROR_KEYS}.`,
    ],
    [
      'a key like none, with no suggestion',
      { rules: [{ kind: 'drop_after', rate: 0.5, probability: 1 }] },
      'rules[0].probability',
      "Invalid faults: rule 1 has unknown key 'probability'; drop_after rules take kind, rate, routes, times, after.",
    ],
    [
      'the compact form in-process, which is no seed',
      { spec: '503/times=1' },
      'spec',
      "Invalid faults: unknown key 'spec'; a configuration takes rules and seed.",
    ],
  ])('%s', (_, config, field, message) => {
    expect(refusal(config)).toEqual({ field, message });
  });

  it('suggests the near key, before any other check on the rule', () => {
    expect(refusal({ rules: [{ kind: 'error', rat: 0.5 }] }).message).toContain("'rat' (did you mean rate?)");
    expect(refusal({ rules: [{ kind: 'error', rate: 1, stauts: 503 }] }).message).toContain('(did you mean status?)');
    expect(refusal({ rules: [{ kind: 'latency', latency: 5 }] }).message).toContain('(did you mean latency_ms?)');
    expect(refusal({ rules: [{ kind: 'latency', 'LATENCY-MS': 5 }] }).message).toContain('(did you mean latency_ms?)');
  });

  it('takes every key each kind documents, and no key of another kind', () => {
    const common = { rate: 0.5, routes: ['createOrder'], times: 2, after: 1 };
    const own = {
      latency: { latency_ms: [5, 50] },
      error: { status: 503, retry_after: 1 },
      rate_limit: { retry_after: 2 },
      drop_before: {},
      drop_after: {},
    };
    const rules = Object.entries(own).map(([kind, keys]) => ({ kind, ...common, ...keys }));
    expect(() => validateFaultConfig({ seed: 7, rules })).not.toThrow();
    const foreign: Record<string, [string, unknown]> = {
      latency: ['status', 503],
      error: ['latency_ms', 5],
      rate_limit: ['latency_ms', 5],
      drop_before: ['retry_after', 1],
      drop_after: ['status', 500],
    };
    for (const [i, rule] of rules.entries()) {
      const [key, value] = foreign[rule.kind]!;
      const config = { seed: 7, rules: rules.map((r, j) => (j === i ? { ...r, [key]: value } : r)) };
      expect(refusal(config)).toEqual({ field: `rules[${i}].${key}`, message: expect.stringContaining(`(${rule.kind}) takes no ${key}`) });
    }
  });
});

describe('in-process', () => {
  const open = useSandboxes();

  it('createSandbox({ faults }) throws, naming the key', async () => {
    const faults = untyped({ rules: [{ kind: 'error', status: 503, times: 1, routes: ['getHealth'], retryAfter: 5 }] });
    const attempt = createSandbox({ rateLimit: false, faults });
    await expect(attempt).rejects.toBeInstanceOf(FaultConfigError);
    await expect(attempt).rejects.toMatchObject({
      field: 'rules[0].retryAfter',
      message: expect.stringContaining('did you mean retry_after?'),
    });
  });

  it('faults.configure throws and leaves the configuration in force', async () => {
    const t = await open('in-process', { rateLimit: false });
    const before: FaultConfig = { seed: 0, rules: [{ kind: 'error', status: 502, rate: 1, routes: ['listArticles'] }] };
    t.sandbox.faults.configure(before);
    const misspelt = untyped({ rules: [{ kind: 'rate_limit', times: 1, retry_after: 5, rout: ['createOrder'] }] });
    expect(() => t.sandbox.faults.configure(misspelt)).toThrow(
      expect.objectContaining({ name: 'FaultConfigError', field: 'rules[0].rout' }),
    );
    expect(t.sandbox.faults.config).toEqual(before);
    // The misspelt rule would have answered 429 on every route; the old one still fails its own.
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
    expectError(await t.request('GET', '/api/v1/articles'), 502, 'BAD_GATEWAY');
  });
});

describe.each(transports)('the control API (%s)', (transport) => {
  const open = useSandboxes();
  const before: FaultConfig = { seed: 3, rules: [{ kind: 'error', status: 503, rate: 1, routes: ['listArticles'] }] };

  it.each<[string, unknown, string]>([
    ['PUT', { rules: [{ kind: 'error', status: 503, times: 1, routes: ['getHealth'], retryAfter: 5 }] }, 'rules[0].retryAfter'],
    ['PUT', { rules: [], sede: 7 }, 'sede'],
    ['PUT', { rules: [{ kind: 'rate_limit', times: 1, retry_after: 5, rout: ['createOrder'] }] }, 'rules[0].rout'],
    ['POST', { rules: [{ kind: 'rate_limit', times: 1, rout: ['createOrder'] }] }, 'rules[0].rout'],
  ])('%s /__sandbox/faults %j is 422 naming %s, and changes nothing', async (method, body, field) => {
    const t = await open(transport, { rateLimit: false });
    t.sandbox.faults.configure(before);
    const answer = await t.request(method, '/__sandbox/faults', { body });
    expectError(answer, 422, 'VALIDATION_FAILED', [field]);
    expect(answer.json.message).toContain(`'${field.replace(/^rules\[\d+\]\./, '')}'`);
    const { seed, rules } = dataOf(await t.request('GET', '/__sandbox/faults'));
    expect({ seed, rules }).toEqual(before);
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
  });

  it('PUT with retryAfter is refused, suggesting retry_after; with it, the rule configures', async () => {
    const t = await open(transport, { rateLimit: false });
    const rule = { kind: 'error', status: 503, times: 1, routes: ['getHealth'] };
    const refused = await t.request('PUT', '/__sandbox/faults', { body: { seed: 7, rules: [{ ...rule, retryAfter: 5 }] } });
    expectError(refused, 422, 'VALIDATION_FAILED', ['rules[0].retryAfter']);
    expect(refused.json.message).toContain('(did you mean retry_after?)');
    expect((await t.request('GET', '/api/v1/health')).status).toBe(200);
    expect((await t.request('PUT', '/__sandbox/faults', { body: { seed: 7, rules: [{ ...rule, retry_after: 5 }] } })).status).toBe(200);
    const health = await t.request('GET', '/api/v1/health');
    expect(health.status).toBe(503);
    expect(health.headers['retry-after']).toBe('5');
  });
});
