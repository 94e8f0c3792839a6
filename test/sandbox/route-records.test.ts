import { describe, expect, it } from 'vitest';
import { checkState } from '../../mocks/state/state-schema.js';
import { accounts, dataOf, SIMPLE_ORDER, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

/**
 * Routes build records from checked input and store them through the tables' cheaper paths (Table.insert parses with
 * zod but skips @msw/data's own walk). This drives every route that inserts or changes records, then checks the whole
 * state as opening a state file does (checkState): a route that builds a record its table's schema, or the state's
 * cross-record rules, would refuse fails here.
 */
describe('records built by the routes', () => {
  const sandbox = useSandboxes();

  async function order(t: TestSandbox, body: object = SIMPLE_ORDER, headers: Record<string, string> = {}, token = rich.token) {
    return dataOf(await t.request('POST', '/api/v1/me/orders', { token, body, headers }), 201).invoice.invoice_code as string;
  }
  const balance = { ...SIMPLE_ORDER, payment_method: 'balance' };
  const chat = { 'x-chat-user-id': rich.chat_user_id! };
  const move = async (t: TestSandbox, path: string, body?: unknown) => dataOf(await t.request('POST', `/__sandbox${path}`, { body }));

  it('pass the full state check after every kind of insert and update', async () => {
    const t = await sandbox('in-process');
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
  });
});
