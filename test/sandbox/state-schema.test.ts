import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/index.js';
import { checkState, StateRefusal } from '../../mocks/state/state-schema.js';

type Tables = Record<string, Record<string, unknown>[]>;
const stateOf = async () => structuredClone((await createSandbox()).snapshot()) as unknown as { tables: Tables } & Record<string, unknown>;

// A state is checked by plain rules (mocks/store/record-rules.ts), without zod: the envelope, then every record by
// its table's rule, then what rules cannot say (keys, references, counters).
describe('the sandbox state check', () => {
  it('accepts a state the sandbox gives, records as they are', async () => {
    const state = await stateOf();
    expect(checkState(structuredClone(state), Date.now()).tables.orders).toEqual(state.tables.orders);
  });

  it('refuses a record that is not its table’s shape, naming the field and why', async () => {
    const state = await stateOf();
    state.tables.accounts![0]!.balance = -1;
    expect(() => checkState(state, Date.now())).toThrow(StateRefusal);
    expect(() => checkState(state, Date.now())).toThrow(/^tables\.accounts\[0\]\.balance must be a whole number from 0 to /);
  });

  it.each([
    ['tokens', 'revoked', 'yes', 'must be a boolean'],
    ['tokens', 'mode', 'test', 'must be one of "sandbox", "production"'],
    ['tokens', 'name', undefined, 'is missing'],
    ['tokens', 'token_sha256', 'abc', 'is not in the expected format'],
    ['tokens', 'account_id', 1.5, 'must be a whole number'],
    ['tokens', 'account_id', '1', 'must be a number'],
    ['tokens', 'account_id', 2 ** 60, 'must be at most 9007199254740991'],
    ['tokens', 'last_used_at', 'now', 'must be a time from 1970 to 9999 in epoch milliseconds'],
    ['articles', 'tags', 'a', 'must be a list'],
  ])('tables.%s[0].%s = %j: %s', async (table, field, value, message) => {
    const state = await stateOf();
    if (value === undefined) delete state.tables[table]![0]![field];
    else state.tables[table]![0]![field] = value;
    expect(() => checkState(state, Date.now())).toThrow(`tables.${table}[0].${field} ${message}.`);
  });

  it("keeps the state's own fields only: keys a state adds are not carried into the sandbox or its next snapshot", async () => {
    const state = await stateOf();
    const counters = state.counters as Record<string, unknown>;
    Object.assign(counters, { note: 'x'.repeat(1000) });
    Object.defineProperty(counters, '__proto__', { value: { polluted: true }, enumerable: true });
    Object.assign(state, { extra: 1 });
    (state.tables as Record<string, unknown>).unknownTable = [];
    const checked = checkState(state, Date.now());
    expect(Object.keys(checked.counters)).toEqual(['invoice', 'transaction']);
    expect(Object.keys(checked).sort()).toEqual(['clock_offset_ms', 'counters', 'tables', 'version']);
    expect(Object.keys(checked.tables)).not.toContain('unknownTable');
    const sandbox = await createSandbox({ snapshot: state });
    expect(Object.keys(sandbox.snapshot().counters)).toEqual(['invoice', 'transaction']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads each field once: a value inherited or computed is checked and kept as it was read', async () => {
    const state = await stateOf();
    const { invoice, transaction } = state.counters as { invoice: number; transaction: number };
    let reads = 0;
    const counters = Object.create({ invoice }) as Record<string, unknown>;
    Object.defineProperty(counters, 'transaction', { enumerable: true, get: () => (reads++ === 0 ? transaction : 'oops') });
    state.counters = counters;
    const sandbox = await createSandbox({ snapshot: state });
    expect(sandbox.snapshot().counters).toEqual({ invoice, transaction });
    const token = sandbox.account('demo').token;
    const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
    });
    expect(answer.status).toBe(201);
    expect(((await answer.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code).toMatch(/^INV\d+$/);
  });

  it('names an item of a list by its place', async () => {
    const state = await stateOf();
    state.tables.articles![0]!.tags = ['a', 7];
    expect(() => checkState(state, Date.now())).toThrow('tables.articles[0].tags[1] must be a string.');
  });

  it('refuses a record that is not an object, and an envelope field out of shape', async () => {
    const state = await stateOf();
    state.tables.orders!.push(7 as never);
    expect(() => checkState(state, Date.now())).toThrow(/^tables\.orders\[\d+\] must be an object\.$/);
    const other = await stateOf();
    other.counters = { invoice: -1, transaction: 0 };
    expect(() => checkState(other, Date.now())).toThrow(/^counters\.invoice must be a non-negative whole number/);
    expect(() => checkState({ ...other, version: 2 }, Date.now())).toThrow('version must be 1, the only version of a sandbox state.');
    expect(() => checkState(null, Date.now())).toThrow('the state must be an object.');
  });

  it('refuses a state without a table', async () => {
    const state = structuredClone((await createSandbox()).snapshot()) as { tables: Record<string, unknown> };
    delete state.tables.orders;
    expect(() => checkState(state, Date.now())).toThrow(/^tables\.orders /);
  });
});
