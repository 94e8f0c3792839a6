import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { magicOrders } from '../../mocks/store/magic-values.js';
import type { Db } from '../../mocks/store/db.js';
import { checkState } from '../../mocks/state/state-schema.js';
import { accounts, CLOCK_START, dataOf, SIMPLE_ORDER, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

/** The tables the order route and the ledger fill with records they build themselves (Table.insertBuilt). */
const BUILT_TABLES = ['invoices', 'orders', 'idempotency', 'transactions'] as const satisfies readonly (keyof Db)[];

/**
 * Routes build records from checked input and store them through the tables' cheaper paths: Table.insertBuilt
 * stores what the order route and the ledger build without a parse, and Table.insert parses with zod but skips
 * @msw/data's own walk. This drives every route that inserts or changes records, then checks the whole state as
 * opening a state file does (checkState), and each built record against its table's schema: a route that builds a
 * record its table's schema, or the state's cross-record rules, would refuse fails here.
 */
describe.each([{ lean: false }, { lean: true }])('records built by the routes (lean: $lean)', ({ lean }) => {
  const sandbox = useSandboxes();

  async function order(t: TestSandbox, body: object = SIMPLE_ORDER, headers: Record<string, string> = {}, token = rich.token) {
    return dataOf(await t.request('POST', '/api/v1/me/orders', { token, body, headers }), 201).invoice.invoice_code as string;
  }
  const balance = { ...SIMPLE_ORDER, payment_method: 'balance' };
  const chat = { 'x-chat-user-id': rich.chat_user_id! };
  const move = async (t: TestSandbox, path: string, body?: unknown) => dataOf(await t.request('POST', `/__sandbox${path}`, { body }));

  it('pass the full state check after every kind of insert and update', async () => {
    const t = await sandbox('in-process', { lean });
    dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token: demo.token }));

    // Orders: by invoice with an Idempotency-Key (and its replay), by balance (a ledger transaction), for another account.
    const keyed = await order(t, SIMPLE_ORDER, { 'idempotency-key': 'route-records-1' });
    const replay = await t.request('POST', '/api/v1/me/orders', {
      token: rich.token,
      body: SIMPLE_ORDER,
      headers: { 'idempotency-key': 'route-records-1' },
    });
    expect(dataOf(replay).invoice.invoice_code).toBe(keyed);
    const paid = await order(t, balance, chat);
    const refunded = await order(t, balance, chat);
    await order(t, SIMPLE_ORDER, {}, demo.token);
    const failed = await order(t);
    const expired = await order(t);
    const stillPending = await order(t);
    // The other shapes an order record takes: a VIP server by the pass id's alias with a client reference, a gateway
    // payment (a payment_url) under a key of a balance payment's chat user, a magic order that expires early.
    const vip = { order_type: 'vip_server', platform_username: 'builderbob', place_id: 5001, gamepass_id: 7001, client_reference: 'vip-1' };
    await order(t, vip, { 'idempotency-key': 'route-records-vip' }, demo.token);
    await order(t, { ...SIMPLE_ORDER, payment_method: 'qris' }, { 'idempotency-key': 'route-records-gateway' });
    await order(t, { ...balance, client_reference: 'chat-1' }, { ...chat, 'idempotency-key': 'route-records-balance' });
    await order(t, magicOrders.invoice_expires, {}, demo.token);

    // Invoice and order moves through the control API: pay, complete, fail, expire, fail an order (a refund).
    await move(t, `/invoices/${keyed}/pay`);
    await move(t, `/orders/${keyed}/complete`);
    await move(t, `/orders/${paid}/complete`);
    await move(t, `/orders/${refunded}/fail`);
    await move(t, `/invoices/${failed}/fail`);
    await move(t, `/invoices/${expired}/expire`);

    // Deposits, paid now and paid later, then the clock: the pending invoice and deposit expire on their own.
    const deposit = async (body: object) => dataOf(await t.request('POST', '/__sandbox/deposits', { body }), 201);
    await deposit({ amount: 50_000, paid: true, account: 'rich' });
    const later = await deposit({ amount: 20_000, account: 'demo' });
    const unpaidDeposit = await deposit({ amount: 30_000, account: 'demo' });
    await move(t, `/invoices/${later.invoice_code as string}/pay`);

    // Before the clock moves: every built record as its table's schema would have stored it, field for field.
    expectBuiltRecordsParse(t.sandbox.store.db);
    const db = t.sandbox.store.db;
    expect(new Set(db.orders.all().map((o) => o.order_type))).toEqual(new Set(['gamepass', 'vip_server']));
    expect(db.orders.all().some((o) => o.client_reference !== null)).toBe(true);
    expect(db.invoices.all().some((i) => i.payment_url !== '')).toBe(true);
    expect(db.idempotency.all()).toHaveLength(4);
    expect(new Set(db.transactions.all().map((r) => r.type))).toEqual(new Set(['credit', 'debit']));

    await move(t, '/clock', { advance_seconds: 7 * 24 * 3600 });
    // Due moves run as the next request comes in.
    dataOf(await t.request('GET', `/api/v1/me/orders/${stillPending}`, { token: rich.token }));

    const state = t.state();
    const checked = checkState(state, t.clock.now());
    const status = (code: string) => checked.tables.invoices.find((i) => i.invoice_code === code)?.payment_status;
    expect([keyed, paid, refunded, failed, expired, stillPending].map(status)).toEqual([
      'paid',
      'paid',
      'refunded',
      'failed',
      'expired',
      'expired',
    ]);
    expect(status(unpaidDeposit.invoice_code as string)).toBe('expired');
    expect(checked.tables.idempotency.map((r) => r.invoice_code)).toContain(keyed);
    expect(checked.tables.transactions.filter((r) => r.reference === refunded).map((r) => r.type)).toEqual(['debit', 'credit']);
    expect(checked.tables.deposits).toHaveLength(3);
    expect(checked.tables.tokens.find((r) => r.last_used_at !== null)).toBeDefined();
    expectBuiltRecordsParse(t.sandbox.store.db);
  });
});

/** Each record of the built tables holds exactly its schema's fields, in its order, and parses to itself. */
function expectBuiltRecordsParse(db: Db): void {
  for (const name of BUILT_TABLES) {
    const table = db[name];
    const fields = Object.keys(table.schema.shape);
    expect(table.size, name).toBeGreaterThan(0);
    for (const record of table.all()) {
      expect(Object.keys(record), `${name} ${JSON.stringify(record)}`).toEqual(fields);
      expect(table.schema.parse(record), name).toEqual({ ...record });
    }
  }
}

/** The status of the demo account's SIMPLE_ORDER under `key` (or the drop). */
async function orderStatus(sandbox: Sandbox, key: string): Promise<unknown> {
  const answer = await sandbox.handle({
    method: 'POST',
    url: `${sandbox.baseUrl}/api/v1/me/orders`,
    headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(SIMPLE_ORDER),
  });
  return 'drop' in answer ? answer : answer.status;
}

describe('an injected clock that reads fractions of a millisecond (one built on performance.now())', () => {
  it('is read in whole milliseconds: the order is made, and every time it holds is whole', async () => {
    const sandbox = await createSandbox({ now: () => CLOCK_START + 0.75, rateLimit: false });
    expect(await orderStatus(sandbox, 'fractions')).toBe(201);
    expect(sandbox.now()).toBe(CLOCK_START);
    expectBuiltRecordsParse(sandbox.store.db);
  });
});

describe('records built at a clock outside the range records hold', () => {
  it.each([
    // Past the sandbox's own CLOCK_MAX: the invoice and the order could still hold it, the idempotency key's end not.
    ['a day past the last the sandbox clock may read', Date.UTC(9999, 0, 2)],
    ['a clock that reads NaN', Number.NaN],
  ])('%s: the order fails with a 500 and leaves no record', async (_, at) => {
    const errors: unknown[] = [];
    const sandbox = await createSandbox({ now: () => at, rateLimit: false, onError: (error) => errors.push(error) });
    const { invoices, orders, idempotency } = sandbox.store.db;
    const sizes = () => [invoices.size, orders.size, idempotency.size];
    const before = sizes();
    expect(await orderStatus(sandbox, 'out-of-range')).toBe(500);
    expect(errors).toHaveLength(1);
    expect(sizes()).toEqual(before);
  });
});
