import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPersistentSandbox } from '../../mocks/assembly/persistent-sandbox.js';
import { SnapshotError, type SandboxSnapshot } from '../../mocks/state/snapshot.js';
import { CLOCK_MAX } from '../../mocks/store/time-range.js';
import { OFFLINE_STATE_FILE } from '../../src/cli/config-dir.js';
import { tempConfigDir } from '../support/fake-io.js';
import { accounts, CLOCK_START, dataOf, SIMPLE_ORDER, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';
import { runCli } from '../cli/run-cli.js';

const { demo, rich } = await accounts();

type State = SandboxSnapshot & { tables: Record<string, Record<string, unknown>[]> };

/**
 * Absurd states, each a valid one changed in one place, with the field the refusal must name. Every one of them
 * was loaded with 200 before (issue 20), leaving a sandbox with no accounts, invoice codes like `INV…0000x1`, or
 * one that answered every later request with a 500 or "Invalid time value".
 */
const absurd: [string, (s: State) => unknown, string][] = [
  ['clock_offset_ms 1e308', (s) => ({ ...s, clock_offset_ms: 1e308 }), 'clock_offset_ms'],
  ['a clock past year 9999', (s) => ({ ...s, clock_offset_ms: CLOCK_MAX - CLOCK_START + 1 }), 'clock_offset_ms'],
  ['a clock before 1970', (s) => ({ ...s, clock_offset_ms: -CLOCK_START - 1 }), 'clock_offset_ms'],
  ['a clock offset in fractions of a millisecond', (s) => ({ ...s, clock_offset_ms: 0.5 }), 'clock_offset_ms'],
  ['a clock offset as a string', (s) => ({ ...s, clock_offset_ms: '0' }), 'clock_offset_ms'],
  ['counters.invoice "x"', (s) => ({ ...s, counters: { ...s.counters, invoice: 'x' } }), 'counters.invoice'],
  ['a negative counter', (s) => ({ ...s, counters: { ...s.counters, transaction: -1 } }), 'counters.transaction'],
  ['a fractional counter', (s) => ({ ...s, counters: { ...s.counters, invoice: 1.5 } }), 'counters.invoice'],
  ['a counter past 2^53', (s) => ({ ...s, counters: { ...s.counters, invoice: 2 ** 60 } }), 'counters.invoice'],
  ['a counter that is null (NaN once in JSON)', (s) => ({ ...s, counters: { ...s.counters, invoice: null } }), 'counters.invoice'],
  ['empty counters', (s) => ({ ...s, counters: {} }), 'counters.invoice'],
  ['a counter behind the codes used', (s) => ({ ...s, counters: { ...s.counters, invoice: 0 } }), 'counters.invoice'],
  ['empty tables', (s) => ({ ...s, tables: {} }), 'tables.accounts'],
  ['a missing table', (s) => ({ ...s, tables: { ...s.tables, vipServers: undefined } }), 'tables.vipServers'],
  ['a table that is no list', (s) => ({ ...s, tables: { ...s.tables, orders: 'x' } }), 'tables.orders'],
  ['every table empty', (s) => ({ ...s, tables: Object.fromEntries(Object.keys(s.tables).map((n) => [n, []])) }), 'tables.accounts'],
  ['no usable token', (s) => ({ ...s, tables: { ...s.tables, tokens: [] } }), 'tables.tokens'],
  ['expires_at 9e15', (s) => withRecord(s, 'invoices', 0, { expires_at: 9e15 }), 'tables.invoices[0].expires_at'],
  ['a paid_at in year 10000', (s) => withRecord(s, 'orders', 0, { paid_at: Date.UTC(10000, 0, 1) }), 'tables.orders[0].paid_at'],
  ['a created_at before 1970', (s) => withRecord(s, 'orders', 0, { created_at: -1 }), 'tables.orders[0].created_at'],
  ['a time as a string', (s) => withRecord(s, 'accounts', 1, { created_at: '2026-01-01' }), 'tables.accounts[1].created_at'],
  ['a balance of 1e300', (s) => withRecord(s, 'accounts', 1, { balance: 1e300 }), 'tables.accounts[1].balance'],
  ['a negative balance', (s) => withRecord(s, 'accounts', 1, { balance: -5 }), 'tables.accounts[1].balance'],
  ['an unknown payment status', (s) => withRecord(s, 'invoices', 0, { payment_status: 'bogus' }), 'tables.invoices[0].payment_status'],
  ['a token of no account', (s) => withRecord(s, 'tokens', 0, { account_id: 999 }), 'tables.tokens[0].account_id'],
  ['an order without its invoice', (s) => ({ ...s, tables: { ...s.tables, invoices: [] } }), 'tables.orders[0].invoice_code'],
  [
    'two accounts with one id',
    (s) => ({ ...s, tables: { ...s.tables, accounts: [...s.tables.accounts, s.tables.accounts[0]] } }),
    'tables.accounts[6]',
  ],
  ['another version', (s) => ({ ...s, version: 2 }), 'version'],
];

function withRecord(s: State, table: string, index: number, patch: Record<string, unknown>): State {
  const records = [...s.tables[table]!];
  records[index] = { ...records[index], ...patch };
  return { ...s, tables: { ...s.tables, [table]: records } };
}

/** A state with an order in it, so that orders and invoices have records to break. */
async function validState(t: TestSandbox): Promise<State> {
  dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER }), 201);
  return t.state() as State;
}

/** The sandbox answers its API as before: no 5xx, and an order can still be made. */
async function expectAnswersNormally(t: TestSandbox): Promise<void> {
  for (const path of [
    '/api/v1/me',
    '/api/v1/me/balance',
    '/api/v1/me/orders',
    '/api/v1/catalog/credit-packages',
    '/api/v1/catalog/payment-methods',
    '/api/v1/me/deposits',
    '/__sandbox/clock',
    '/__sandbox/state',
  ])
    expect((await t.request('GET', path, { token: rich.token })).status, path).toBe(200);
  expect((await t.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER })).status).toBe(201);
}

describe('PUT /__sandbox/state refuses an absurd state, naming the field, and changes nothing', () => {
  const sandbox = useSandboxes();

  it.each(absurd)('%s', async (_name, mutate, field) => {
    const t = await sandbox('http', { rateLimit: false });
    const state = await validState(t);
    const answer = await t.request('PUT', '/__sandbox/state', { body: mutate(structuredClone(state)) });
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
    // A file that is no state of this version at all is told so as a whole.
    if (field === 'version') expect(answer.json.message).toBe('The state cannot be loaded: Not a sandbox state file of version 1.');
    else expect(answer.json.message).toMatch(new RegExp(`^The state cannot be loaded: ${escape(field)}( |\\.)`));
    expect(answer.json.error.fields).toEqual([field]);
    expect(t.state()).toEqual(state);
    await expectAnswersNormally(t);
  });

  it('says what is wrong in one sentence', async () => {
    const t = await sandbox('http', { rateLimit: false });
    const state = await validState(t);
    const answer = await t.request('PUT', '/__sandbox/state', { body: { ...state, counters: { ...state.counters, invoice: 'x' } } });
    expect(answer.json.message).toBe(
      'The state cannot be loaded: counters.invoice must be a non-negative whole number (at most 1000000000000000).',
    );
    const time = await t.request('PUT', '/__sandbox/state', { body: withRecord(state, 'invoices', 0, { expires_at: 9e15 }) });
    expect(time.json.message).toBe(
      'The state cannot be loaded: tables.invoices[0].expires_at must be a time from 1970 to 9999 in epoch milliseconds.',
    );
  });

  it('loads a state whose clock is at the edge, and the sandbox still dates what it makes', async () => {
    const t = await sandbox('http', { rateLimit: false });
    const state = await validState(t);
    expect((await t.request('PUT', '/__sandbox/state', { body: { ...state, clock_offset_ms: CLOCK_MAX - CLOCK_START } })).status).toBe(200);
    await expectAnswersNormally(t);
  });
});

describe('POST /__sandbox/clock keeps the clock within 1970 and 9999', () => {
  const sandbox = useSandboxes();

  it.each([1e300, 1e20, Number.MAX_VALUE, (CLOCK_MAX - CLOCK_START) / 1000 + 1])(
    'advance_seconds %d is 422 and moves nothing',
    async (seconds) => {
      const t = await sandbox('http', { rateLimit: false });
      const before = (await t.request('GET', '/__sandbox/clock')).json.data.now as string;
      const answer = await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: seconds } });
      expect(answer.status).toBe(422);
      expect(answer.json).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED', fields: ['advance_seconds'] } });
      expect(answer.json.message).toMatch(
        /^advance_seconds would move the clock past the start of year 9999; it may move at most \d+ seconds from now\.$/,
      );
      expect((await t.request('GET', '/__sandbox/clock')).json.data.now).toBe(before);
      await expectAnswersNormally(t);
    },
  );

  it('moves to the very edge, or by a fraction of a millisecond, and orders are still made', async () => {
    const t = await sandbox('http', { rateLimit: false });
    expect((await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 0.0004 } })).status).toBe(200);
    await expectAnswersNormally(t);
    expect((await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: (CLOCK_MAX - CLOCK_START) / 1000 - 1 } })).status).toBe(
      200,
    );
    await expectAnswersNormally(t);
    expect((await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 2 } })).status).toBe(422);
  });

  it('in-process too: sandbox.control.advanceClock refuses it', async () => {
    const t = await sandbox('in-process', { rateLimit: false });
    await expect(t.sandbox.control.advanceClock(1e300)).rejects.toThrow(/^seconds would move the clock past/);
    await expectAnswersNormally(t);
  });
});

describe('a state file with an absurd state is refused at start-up, naming the field', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'topup-state-validation-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const sandbox = useSandboxes();

  it.each(absurd.filter(([name]) => !name.includes('version')))('%s', async (_name, mutate, field) => {
    const state = await validState(await sandbox('in-process', { rateLimit: false }));
    const file = join(dir, 'state.json');
    await writeFile(file, JSON.stringify(mutate(structuredClone(state))));
    // On the harness's clock, from which the cases' offsets are measured.
    const error = await openPersistentSandbox(file, { now: () => CLOCK_START }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).field).toBe(field);
    expect((error as Error).message).toMatch(new RegExp(`^The state cannot be loaded: ${escape(field)}( |\\.)`));
  });

  it('topup mock serve --state says which file and which field, with exit 1, and listens on nothing', async () => {
    const state = await validState(await sandbox('in-process', { rateLimit: false }));
    const config = tempConfigDir();
    const file = join(config.dir, 'served.json');
    await writeFile(file, JSON.stringify(withRecord(state, 'invoices', 0, { expires_at: 9e15 })));
    const served = await runCli(config.dir, ['mock', 'serve', '--port', '0', '--state', file]);
    expect(served.code).toBe(1);
    expect(served.out).toBe('');
    expect(served.err).toBe(
      `Error: ${file} cannot be loaded: tables.invoices[0].expires_at must be a time from 1970 to 9999 in epoch milliseconds.\n`,
    );
    config.cleanup();
  });
});

describe('topup mock state load refuses an absurd state (exit 5, one sentence), and every later command works', () => {
  let config: ReturnType<typeof tempConfigDir>;
  beforeEach(() => {
    config = tempConfigDir();
  });
  afterEach(() => {
    config.cleanup();
  });
  const topup = (args: string[]) => runCli(config.dir, args);

  it.each(absurd.filter(([name]) => !name.includes('version') && !name.includes('clock')))('%s', async (_name, mutate, field) => {
    expect((await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'])).code).toBe(0);
    const saved = (await topup(['--json', 'mock', 'state', 'save'])).out;
    const file = join(config.dir, 'bad.json');
    await writeFile(file, JSON.stringify(mutate(JSON.parse(saved) as State)));
    const loaded = await topup(['mock', 'state', 'load', file]);
    expect(loaded.code).toBe(5);
    expect(loaded.err).toMatch(new RegExp(`^Error: The state cannot be loaded: ${escape(field)}[^\\n]*\\.\\n$`, 'm'));
    expect(loaded.err.split('\n').filter((line) => line.startsWith('Error'))).toHaveLength(1);
    // Nothing changed, and the sandbox still answers: no "Invalid time value" from here on.
    expect((await topup(['--json', 'mock', 'state', 'save'])).out).toBe(saved);
    for (const args of [['balance'], ['orders', 'list'], ['mock', 'fixtures'], ['mock', 'deposit', '50000', '--paid']])
      expect((await topup(args)).code, args.join(' ')).toBe(0);
  });

  it('a clock past 9999 in a loaded state is refused the same way', async () => {
    const saved = JSON.parse((await topup(['--json', 'mock', 'state', 'save'])).out) as State;
    const file = join(config.dir, 'bad.json');
    await writeFile(file, JSON.stringify({ ...saved, clock_offset_ms: 1e308 }));
    const loaded = await topup(['mock', 'state', 'load', file]);
    expect(loaded.code).toBe(5);
    expect(loaded.err).toMatch(
      /^Error: The state cannot be loaded: clock_offset_ms must be a whole number of milliseconds that keeps the sandbox clock between 1970 and 9999\.\n$/m,
    );
    expect((await topup(['balance'])).code).toBe(0);
  });

  it('mock serve --seed with an absurd state is exit 2, naming the file and the field', async () => {
    const saved = JSON.parse((await topup(['--json', 'mock', 'state', 'save'])).out) as State;
    const file = join(config.dir, 'seed.json');
    await writeFile(file, JSON.stringify({ ...saved, counters: { invoice: 'x', transaction: 0 } }));
    const served = await topup(['mock', 'serve', '--port', '0', '--seed', file]);
    expect(served.code).toBe(2);
    expect(served.err).toMatch(/^Error: .*seed\.json cannot be loaded: counters\.invoice must be a non-negative whole number/m);
  });

  it("the embedded sandbox's own state file, damaged on disk, is refused with the field named and a way out", async () => {
    const saved = JSON.parse((await topup(['--json', 'mock', 'state', 'save'])).out) as State;
    await writeFile(join(config.dir, OFFLINE_STATE_FILE), JSON.stringify({ ...saved, clock_offset_ms: 1e308 }));
    const refused = await topup(['balance']);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(
      /clock_offset_ms must be a whole number of milliseconds that keeps the sandbox clock between 1970 and 9999/,
    );
    expect(refused.err).toMatch(/topup mock reset/);
    expect((await topup(['mock', 'reset'])).code).toBe(0);
    expect((await topup(['balance'])).code).toBe(0);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
