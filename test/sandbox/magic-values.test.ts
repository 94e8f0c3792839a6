import { describe, expect, it } from 'vitest';
import { DELIVERY_TAKES_MS, INVOICE_EXPIRES_AFTER_MS, magicOrders, magicValues } from '../../mocks/index.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const PRICE = 12_000;

/*
 * Every magic value ends as promised with no control call, for a sandbox token (demo: invoices only) and a production
 * token (rich), on a full and a lean sandbox. Invoices of the demo account that must be paid are paid by auto-pay.
 */
const tokens = [
  { name: 'demo', token: demo.token, mode: 'sandbox' },
  { name: 'rich', token: rich.token, mode: 'production' },
] as const;
const cases = transports.flatMap((transport) =>
  [false, true].flatMap((lean) =>
    tokens.map((account) => ({ transport, lean, account, label: `${transport}, ${lean ? 'lean' : 'full'}` })),
  ),
);

/** Reads what the lean sandbox still answers too: the invoice's payment_status and the order's status. */
async function outcomeOf(t: TestSandbox, code: string, token: string) {
  const invoice = dataOf(await t.request('GET', `/api/v1/me/invoices/${code}`, { token })).invoice;
  const order = dataOf(await t.request('GET', `/api/v1/me/orders/${code}`, { token })).order;
  return { payment: invoice.payment_status as string, order: order.status as string };
}

describe.each(cases)('magic values ($label, $account.name)', ({ transport, lean, account }) => {
  const sandbox = useSandboxes();
  const balanceOf = (t: TestSandbox) => t.sandbox.account(account.name).balance;
  /** By balance where the account may (a production token with a chat link), else by invoice. */
  const payingBody = (body: object) => (account.mode === 'production' ? { ...body, payment_method: 'balance' } : body);
  const payingHeaders = account.mode === 'production' ? { 'x-chat-user-id': rich.chat_user_id! } : {};

  async function create(t: TestSandbox, body: object, headers: Record<string, string> = {}) {
    const answer = dataOf(await t.request('POST', '/api/v1/me/orders', { token: account.token, body, headers }), 201);
    return { code: answer.invoice.invoice_code as string, created: answer.invoice };
  }

  it('invoice_fails: created pending, failed by the next request; the order is cancelled', async () => {
    const t = await sandbox(transport, { lean });
    const { code, created } = await create(t, magicOrders.invoice_fails);
    expect(created.payment_status).toBe('pending');
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'failed', order: 'cancelled' });
  });

  it('invoice_expires: pending for 30 s of sandbox time, then expired; the order is cancelled', async () => {
    const t = await sandbox(transport, { lean });
    const { code } = await create(t, magicOrders.invoice_expires);
    t.clock.advance(INVOICE_EXPIRES_AFTER_MS - 1);
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'pending', order: 'pending' });
    t.clock.advance(1);
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'expired', order: 'cancelled' });
  });

  it('order_refunded: once paid, the order fails and its total goes back to the balance', async () => {
    const t = await sandbox(transport, { lean, autoPay: { after: 1_000 } });
    const before = balanceOf(t);
    const { code } = await create(t, payingBody(magicOrders.order_refunded), payingHeaders);
    t.clock.advance(1_000);
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'refunded', order: 'failed' });
    // A balance payment comes back; an invoice paid from outside is refunded to the balance.
    expect(balanceOf(t)).toBe(account.mode === 'production' ? before : before + PRICE);
  });

  it('delivery_slow: once paid, processing for 10 minutes of sandbox time, then completed', async () => {
    const t = await sandbox(transport, { lean, autoPay: { after: 1_000 } });
    const { code } = await create(t, payingBody(magicOrders.delivery_slow), payingHeaders);
    const paidAt = account.mode === 'production' ? 0 : 1_000;
    t.clock.advance(paidAt + DELIVERY_TAKES_MS - 1);
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'paid', order: 'processing' });
    t.clock.advance(1);
    expect(await outcomeOf(t, code, account.token)).toEqual({ payment: 'paid', order: 'completed' });
  });

  it('platform_rejects: 422 PLATFORM_VALIDATION_FAILED, and nothing is created', async () => {
    const t = await sandbox(transport, { lean });
    const before = t.state();
    const answer = await t.request('POST', '/api/v1/me/orders', { token: account.token, body: magicOrders.platform_rejects });
    expectError(answer, 422, 'PLATFORM_VALIDATION_FAILED');
    expect(answer.json.message).toBe('The platform rejected pass 9905 (the test value for a rejected pass).');
    expect(t.state()).toEqual(before);
  });
});

describe.each(transports)('magic values, the details (%s)', (transport) => {
  const sandbox = useSandboxes();

  async function create(t: TestSandbox, body: object, headers: Record<string, string> = {}) {
    return dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body, headers }), 201).invoice;
  }
  const byBalance = { 'x-chat-user-id': rich.chat_user_id! };

  it('a refunded balance order: the answer says paid, the next read failed, with a debit and its refund at the same moment', async () => {
    const t = await sandbox(transport);
    const created = await create(t, { ...magicOrders.order_refunded, payment_method: 'balance' }, byBalance);
    expect(created).toMatchObject({ payment_status: 'paid', order: { status: 'processing' } });
    const order = dataOf(await t.request('GET', `/api/v1/me/orders/${created.invoice_code}`, { token: rich.token })).order;
    expect(order).toMatchObject({ status: 'failed', payment_status: 'refunded', completed_at: '2026-03-02 10:00:00' });
    const { transactions } = dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token: rich.token }));
    expect(transactions.map((x: { type: string; amount: number }) => `${x.type} ${x.amount}`)).toEqual([
      `credit ${PRICE}`,
      `debit ${PRICE}`,
      'credit 10000000',
    ]);
  });

  it('a refunded invoice order waits for its payment, by whoever makes it', async () => {
    const t = await sandbox(transport);
    const { invoice_code: code } = await create(t, magicOrders.order_refunded);
    t.clock.advance(60_000);
    expect(dataOf(await t.request('GET', `/api/v1/me/orders/${code}`, { token: rich.token })).order.status).toBe('pending');
    dataOf(await t.request('POST', `/__sandbox/invoices/${code}/pay`));
    expect(dataOf(await t.request('GET', `/api/v1/me/orders/${code}`, { token: rich.token })).order).toMatchObject({
      status: 'failed',
      payment_status: 'refunded',
    });
  });

  it('a slow delivery completes stamped at the end of its delay, whenever it is noticed', async () => {
    const t = await sandbox(transport);
    const created = await create(t, { ...magicOrders.delivery_slow, payment_method: 'balance' }, byBalance);
    dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 3_600 } }));
    const order = dataOf(await t.request('GET', `/api/v1/me/orders/${created.invoice_code}`, { token: rich.token })).order;
    expect(order).toMatchObject({ status: 'completed', completed_at: '2026-03-02 10:10:00' });
  });

  it('a control call made first wins: a failing invoice paid at once stays paid', async () => {
    const t = await sandbox(transport);
    const created = await create(t, magicOrders.invoice_fails);
    // In-process, before any request: the failure is due at creation, so it already happened.
    await expect(t.sandbox.control.pay(created.invoice_code)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    const slow = await create(t, magicOrders.delivery_slow);
    await t.sandbox.control.pay(slow.invoice_code);
    await t.sandbox.control.failOrder(slow.invoice_code);
    t.clock.advance(DELIVERY_TAKES_MS);
    expect(dataOf(await t.request('GET', `/api/v1/me/orders/${slow.invoice_code}`, { token: rich.token })).order.status).toBe('failed');
  });

  it('auto-pay leaves the failing and expiring invoices to their ending', async () => {
    const t = await sandbox(transport, { autoPay: { after: 0 } });
    const fails = await create(t, magicOrders.invoice_fails);
    const expires = await create(t, magicOrders.invoice_expires);
    const plain = await create(t, SIMPLE_ORDER);
    t.clock.advance(INVOICE_EXPIRES_AFTER_MS);
    const status = async (code: string) =>
      dataOf(await t.request('GET', `/api/v1/me/invoices/${code}`, { token: rich.token })).invoice.payment_status;
    expect([await status(fails.invoice_code), await status(expires.invoice_code), await status(plain.invoice_code)]).toEqual([
      'failed',
      'expired',
      'paid',
    ]);
  });

  it('the magic values are in GET /__sandbox/fixtures, with the body to send', async () => {
    const t = await sandbox(transport);
    const fixtures = dataOf(await t.request('GET', '/__sandbox/fixtures'));
    expect(fixtures.magic_orders.map((m: { outcome: string }) => m.outcome)).toEqual(magicValues.map((v) => v.outcome));
    expect(fixtures.magic_orders[0]).toEqual({
      outcome: 'invoice_fails',
      ends: magicValues[0]!.ends,
      body: { order_type: 'gamepass', platform_username: 'TestOutcomes', place_id: 5900, platform_pass_id: 9901 },
    });
  });
});
