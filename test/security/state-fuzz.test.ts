import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import type { AnyRecordRule } from '../../mocks/store/record-rules.js';
import * as Records from '../../mocks/store/records.js';
import { CONTROL_HEADER } from '../../src/contract/sandbox-control.js';
import { SIMPLE_ORDER } from '../support/sandbox-harness.js';

/**
 * Whatever state is PUT to /__sandbox/state (a valid one changed anywhere, or any JSON at all), the sandbox
 * either loads it or refuses it with a 4xx that changes nothing, and every endpoint called after answers without
 * a 5xx. FUZZ_RUNS raises the count (`FUZZ_RUNS=2000 npx vitest run test/security/state-fuzz.test.ts`).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let sandbox: Sandbox;
let server: HttpSandbox;
let valid: { [key: string]: Json };
/** Every place in the valid state a value can be changed or removed: top level, counters, tables, records, fields. */
let paths: (string | number)[][];
let tokens: { demo: string; rich: string };
let orderCode: string;
let depositCode: string;

beforeAll(async () => {
  sandbox = await createSandbox({ rateLimit: false, now: () => Date.parse('2026-05-01T12:00:00Z') });
  server = await startHttpSandbox(sandbox, { port: 0, host: '127.0.0.1' });
  tokens = { demo: sandbox.account('demo').token, rich: sandbox.account('rich').token };
  const order = await call('POST', '/api/v1/me/orders', { token: tokens.rich, body: SIMPLE_ORDER, key: 'fuzz-start' });
  orderCode = (order.json as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
  await sandbox.control.pay(orderCode);
  depositCode = (await sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: true })).invoice_code;
  await sandbox.control.deposit({ amount: 20_000, account: 'demo' });
  valid = JSON.parse(JSON.stringify(sandbox.snapshot())) as { [key: string]: Json };
  paths = [];
  const walk = (value: Json, path: (string | number)[]) => {
    paths.push(path);
    if (path.length >= 4 || value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) walk(child, [...path, Array.isArray(value) ? Number(key) : key]);
  };
  walk(valid, []);
  // Shallow places first: the top, the counters, the tables.
  paths.sort((a, b) => Math.min(a.length, 3) - Math.min(b.length, 3));
});

afterAll(async () => {
  await server.close();
});

interface Answer {
  status: number;
  json: unknown;
}

async function call(method: string, path: string, init: { token?: string; body?: unknown; key?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', [CONTROL_HEADER]: '1' };
  if (init.key !== undefined) headers['idempotency-key'] = init.key;
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

/** The values that broke a sandbox before (issue 20), beside any JSON at all. */
const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(1e308, -1e308, 9e15, -1, 0.5, 2 ** 53, 2 ** 60, 'x', '', null, true, [], {}, '2026-01-01', 253402300800000),
  fc.jsonValue() as fc.Arbitrary<Json>,
);

/**
 * One change to a valid state: a value replaced, a key or record removed, or a record repeated; half of them at
 * the top, in the counters or a whole table (few places, each breaking the most), the rest anywhere.
 */
const mutation = () =>
  fc.record({
    path: fc.oneof(fc.integer({ min: 0, max: paths.findIndex((path) => path.length > 2) - 1 }), fc.nat()),
    kind: fc.constantFrom('replace', 'remove', 'repeat'),
    value: hostile,
  });

function mutate(state: { [key: string]: Json }, changes: { path: number; kind: string; value: Json }[]): Json {
  const copy = structuredClone(state);
  for (const change of changes) {
    const path = paths[change.path % paths.length]!;
    if (path.length === 0) return change.value;
    let parent: Json = copy;
    for (const key of path.slice(0, -1)) {
      if (parent === null || typeof parent !== 'object') break;
      parent = (parent as Record<string, Json>)[key as string] ?? null;
    }
    if (parent === null || typeof parent !== 'object') continue;
    const last = path[path.length - 1]!;
    if (Array.isArray(parent) && typeof last === 'number') {
      if (change.kind === 'remove') parent.splice(last, 1);
      else if (change.kind === 'repeat' && parent[last] !== undefined) parent.push(structuredClone(parent[last]));
      else parent[last] = change.value;
    } else {
      const record = parent as Record<string, Json>;
      if (change.kind === 'remove') delete record[last];
      else record[last] = change.value;
    }
  }
  return copy;
}

/** Everything a bot and the CLI call, after a load: none may answer 5xx. */
async function expectNo5xx(): Promise<void> {
  const calls: [string, string, { token?: string; body?: unknown }][] = [
    ['GET', '/api/v1/catalog/credit-packages', {}],
    ['GET', '/api/v1/catalog/payment-methods', {}],
    ['GET', '/api/v1/me', { token: tokens.rich }],
    ['GET', '/api/v1/me/dashboard-summary', { token: tokens.rich }],
    ['GET', '/api/v1/me/balance', { token: tokens.rich }],
    ['GET', '/api/v1/me/balance/transactions', { token: tokens.rich }],
    ['POST', '/api/v1/me/orders', { token: tokens.rich, body: SIMPLE_ORDER }],
    ['POST', '/api/v1/me/orders', { token: tokens.demo, body: SIMPLE_ORDER }],
    ['GET', '/api/v1/me/orders', { token: tokens.rich }],
    ['GET', `/api/v1/me/orders/${orderCode}`, { token: tokens.rich }],
    ['GET', `/api/v1/me/invoices/${orderCode}`, { token: tokens.rich }],
    ['GET', `/api/v1/me/invoices/${orderCode}/status`, { token: tokens.rich }],
    ['GET', '/api/v1/me/deposits', { token: tokens.rich }],
    ['GET', `/api/v1/me/deposits/${depositCode}`, { token: tokens.rich }],
    ['POST', '/__sandbox/deposits', { body: { amount: 10_000, account: 'rich', paid: true } }],
    ['POST', `/__sandbox/orders/${orderCode}/complete`, { body: {} }],
    ['GET', '/__sandbox/clock', {}],
    ['POST', '/__sandbox/clock', { body: { advance_seconds: 3600 } }],
    ['GET', '/__sandbox/fixtures', {}],
    ['GET', '/__sandbox/orders', {}],
    ['GET', '/__sandbox/accounts', {}],
    ['GET', `/user/invoice/${orderCode}`, {}],
    ['GET', '/__sandbox/state', {}],
  ];
  for (const [method, path, init] of calls) expect((await call(method, path, init)).status, `${method} ${path}`).toBeLessThan(500);
}

/** PUT the state; a refusal is a 4xx envelope that changes nothing; then every endpoint answers without a 5xx. */
async function load(state: unknown): Promise<void> {
  const before = (await call('GET', '/__sandbox/state')).json;
  const answer = await call('PUT', '/__sandbox/state', { body: state });
  expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBeLessThan(500);
  if (answer.status !== 200) {
    expect(answer.json).toMatchObject({ success: false, error: { code: expect.any(String) as unknown } });
    expect((await call('GET', '/__sandbox/state')).json).toEqual(before);
  }
  await expectNo5xx();
}

describe('PUT /__sandbox/state, fuzzed', () => {
  it(`a valid state changed in 1 to 3 places: ${RUNS} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation(), { minLength: 1, maxLength: 3 }), async (changes) => {
        await load(mutate(valid, changes));
      }),
      options,
    );
  }, 600_000);

  it(`any JSON at all: ${RUNS} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostile, fc.record({ version: fc.constant(1), clock_offset_ms: hostile, counters: hostile, tables: hostile })),
        async (state) => {
          await load(state);
        },
      ),
      options,
    );
  }, 600_000);

  it('still loads the valid state after all that, and answers as before', async () => {
    expect((await call('PUT', '/__sandbox/state', { body: valid })).status).toBe(200);
    await expectNo5xx();
  });
});

describe("a record rule's check and its account of a problem agree", () => {
  // The state check trusts `check` where it says yes, and names the field `problem` finds where it says no: were they
  // to disagree, a bad record would be let in, or refused without a field to name.
  const rules = Object.entries(Records as Record<string, unknown>).filter(
    (entry): entry is [string, AnyRecordRule] => typeof (entry[1] as { check?: unknown }).check === 'function',
  );

  it('covers every table', () => {
    expect(rules.map(([name]) => name).sort()).toHaveLength(15);
  });

  it.each(rules)('%s', (_name, rule) => {
    const sample = (valid.tables as Record<string, Json[]>)[tableOf(rule)]!;
    expect(sample.length).toBeGreaterThan(0);
    for (const record of sample) expect(rule.problem(record)).toBeUndefined();
    let refused = 0;
    fc.assert(
      fc.property(fc.constantFrom(...sample), fc.array(fc.tuple(fc.nat(), hostile), { maxLength: 3 }), (record, changes) => {
        const changed = structuredClone(record) as Record<string, Json>;
        const keys = Object.keys(changed);
        const touched = new Set<string>();
        for (const [at, value] of changes) {
          const key = keys[at % keys.length]!;
          changed[key] = value;
          touched.add(key);
        }
        const problem = rule.problem(changed);
        expect(rule.check(changed)).toBe(problem === undefined);
        if (problem !== undefined) {
          refused += 1;
          expect(touched.has(String(problem.path[0]))).toBe(true);
          expect(problem.message).toMatch(/^(is |must )/);
        }
      }),
      { ...options, numRuns: RUNS * 10 },
    );
    expect(refused).toBeGreaterThan(0);
  });
});

function tableOf(schema: unknown): string {
  const tables: [string, unknown][] = [
    ['accounts', Records.AccountRecord],
    ['tokens', Records.TokenRecord],
    ['chatLinks', Records.ChatLinkRecord],
    ['transactions', Records.TransactionRecord],
    ['invoices', Records.InvoiceRecord],
    ['orders', Records.OrderRecord],
    ['deposits', Records.DepositRecord],
    ['idempotency', Records.IdempotencyRecord],
    ['creditPackages', Records.CreditPackageRecord],
    ['paymentMethods', Records.PaymentMethodRecord],
    ['articles', Records.ArticleRecord],
    ['platformUsers', Records.PlatformUserRecord],
    ['platformPlaces', Records.PlatformPlaceRecord],
    ['platformPasses', Records.PlatformPassRecord],
    ['vipServers', Records.VipServerRecord],
  ];
  return tables.find(([, s]) => s === schema)![0];
}
