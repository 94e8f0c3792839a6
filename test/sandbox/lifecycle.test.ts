import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../mocks/index.js';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import {
  accounts,
  CLOCK_START,
  dataOf,
  expectError,
  SIMPLE_ORDER,
  transports,
  useSandboxes,
  type TestSandbox,
} from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const TTL_MS = INVOICE_TTL_SECONDS * 1000;

async function newOrder(
  t: TestSandbox,
  token = rich.token,
  body: object = SIMPLE_ORDER,
  headers: Record<string, string> = {},
): Promise<string> {
  return dataOf(await t.request('POST', '/api/v1/me/orders', { token, body, headers }), 201).invoice.invoice_code;
}

async function paidByBalance(t: TestSandbox): Promise<string> {
  return newOrder(t, rich.token, { ...SIMPLE_ORDER, payment_method: 'balance' }, { 'x-chat-user-id': rich.chat_user_id! });
}

async function statusOf(t: TestSandbox, code: string, token = rich.token) {
  const status = dataOf(await t.request('GET', `/api/v1/me/invoices/${code}/status`, { token }));
  const order = dataOf(await t.request('GET', `/api/v1/me/orders/${code}`, { token })).order;
  const invoice = dataOf(await t.request('GET', `/api/v1/me/invoices/${code}`, { token })).invoice;
  expect(order.payment_status).toBe(status.payment_status);
  expect(invoice.payment_status).toBe(status.payment_status);
  expect(invoice.order.status).toBe(order.status);
  expect(status.order_status).toBe(order.status);
  return {
    payment: status.payment_status as string,
    order: order.status as string,
    final: status.is_final as boolean,
    status,
    orderRecord: order,
    invoice,
  };
}

async function balanceOf(t: TestSandbox, token = rich.token): Promise<number> {
  return dataOf(await t.request('GET', '/api/v1/me/balance', { token })).balance;
}

async function transactionsOf(t: TestSandbox, token = rich.token) {
  return dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token })).transactions as Array<Record<string, unknown>>;
}

describe.each(transports)('lifecycle (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('a new order is pending and its invoice not final', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    const pending = await statusOf(t, code);
    expect(pending).toMatchObject({ payment: 'pending', order: 'pending', final: false });
    expect(pending.status.poll_after_seconds).toBe(15);
  });

  it('pay → paid and processing (final); complete → completed', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    await t.sandbox.control.pay(code);
    const paid = await statusOf(t, code);
    expect(paid).toMatchObject({ payment: 'paid', order: 'processing', final: true });
    // A final status carries no hint to poll again.
    expect(paid.status).not.toHaveProperty('poll_after_seconds');
    expect(paid.status.paid_at).toBe('2026-03-02 10:00:00');
    await t.sandbox.control.complete(code);
    const done = await statusOf(t, code);
    expect(done).toMatchObject({ payment: 'paid', order: 'completed', final: true });
    expect(done.orderRecord.completed_at).toBe('2026-03-02 10:00:00');
    // Paying an invoice does not touch the balance: the money came from outside.
    expect(await balanceOf(t)).toBe(rich.balance);
  });

  it('failOrder → failed and refunded, with a credit transaction back to the balance', async () => {
    const t = await sandbox(transport);
    const code = await paidByBalance(t);
    expect(await balanceOf(t)).toBe(rich.balance - 12_000);
    await t.sandbox.control.failOrder(code);
    expect(await statusOf(t, code)).toMatchObject({ payment: 'refunded', order: 'failed', final: true });
    expect(await balanceOf(t)).toBe(rich.balance);
    const [refund, debit] = await transactionsOf(t);
    expect(debit).toMatchObject({ type: 'debit', amount: 12_000, balance_after: rich.balance - 12_000, reference: code });
    expect(refund).toMatchObject({ type: 'credit', amount: 12_000, balance_after: rich.balance, reference: code });
  });

  it.each([
    { move: 'expire', payment: 'expired' },
    { move: 'fail', payment: 'failed' },
  ] as const)('$move → $payment, and the order is cancelled', async ({ move, payment }) => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    await t.sandbox.control[move](code);
    expect(await statusOf(t, code)).toMatchObject({ payment, order: 'cancelled', final: true });
  });

  it.each([
    { name: 'pay twice', setup: ['pay'], move: 'pay' },
    { name: 'complete a pending order', setup: [], move: 'complete' },
    { name: 'fail a pending order', setup: [], move: 'failOrder' },
    { name: 'expire a paid invoice', setup: ['pay'], move: 'expire' },
    { name: 'fail a paid invoice', setup: ['pay'], move: 'fail' },
    { name: 'pay an expired invoice', setup: ['expire'], move: 'pay' },
    { name: 'complete a completed order', setup: ['pay', 'complete'], move: 'complete' },
    { name: 'fail a completed order', setup: ['pay', 'complete'], move: 'failOrder' },
    { name: 'complete a cancelled order', setup: ['fail'], move: 'complete' },
  ] as const)('an invalid move ($name) is refused with INVALID_STATE and changes nothing', async ({ setup, move }) => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    for (const step of setup) await t.sandbox.control[step](code);
    const before = t.state();
    const refused = t.sandbox.control[move](code);
    // A bot author's test catches it by the client's class, as it would from the HTTP control API.
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ kind: 'conflict', status: 409, code: 'INVALID_STATE' });
    expect(t.state()).toEqual(before);
  });

  it('control operations on an unknown invoice are refused with NOT_FOUND', async () => {
    const t = await sandbox(transport);
    await expect(t.sandbox.control.pay('INV20260302999999')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.sandbox.control.pay('INV20260302999999')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(t.sandbox.control.complete('INV20260302999999')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('a deposit, once paid, credits the balance and records a credit transaction', async () => {
    const t = await sandbox(transport);
    const { invoice_code: code } = await t.sandbox.control.deposit({ account: 'demo', amount: 50_000 });
    const pending = dataOf(await t.request('GET', `/api/v1/me/deposits/${code}`, { token: demo.token })).deposit;
    expect(pending).toMatchObject({ invoice_code: code, amount: 50_000, payment_status: 'pending', paid_at: null });
    expect(await balanceOf(t, demo.token)).toBe(0);
    const status = dataOf(await t.request('GET', `/api/v1/me/invoices/${code}/status`, { token: demo.token }));
    expect(status).toMatchObject({ type: 'deposit', payment_status: 'pending', order_status: null, is_final: false });

    await t.sandbox.control.pay(code);
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${code}`, { token: demo.token })).deposit).toMatchObject({
      payment_status: 'paid',
      paid_at: '2026-03-02 10:00:00',
    });
    expect(await balanceOf(t, demo.token)).toBe(50_000);
    expect(await transactionsOf(t, demo.token)).toEqual([
      expect.objectContaining({ type: 'credit', amount: 50_000, balance_after: 50_000, reference: code }),
    ]);
    await expect(t.sandbox.control.pay(code)).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect(await balanceOf(t, demo.token)).toBe(50_000);
  });

  it('an expired deposit credits nothing', async () => {
    const t = await sandbox(transport);
    const { invoice_code: code } = await t.sandbox.control.deposit({ account: 'demo', amount: 50_000 });
    await t.sandbox.control.expire(code);
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${code}`, { token: demo.token })).deposit.payment_status).toBe('expired');
    expect(await balanceOf(t, demo.token)).toBe(0);
    expect(await transactionsOf(t, demo.token)).toEqual([]);
  });

  it('unpaid invoices expire by themselves after INVOICE_TTL_SECONDS', async () => {
    const t = await sandbox(transport);
    const order = await newOrder(t);
    const { invoice_code: deposit } = await t.sandbox.control.deposit({ account: 'rich', amount: 50_000 });
    const paid = await newOrder(t);
    await t.sandbox.control.pay(paid);
    expect((await statusOf(t, order)).status.expires_at).toBe('2026-03-02 11:00:00');

    t.clock.advance(TTL_MS - 1);
    expect((await statusOf(t, order)).payment).toBe('pending');
    t.clock.advance(1);
    expect(await statusOf(t, order)).toMatchObject({ payment: 'expired', order: 'cancelled', final: true });
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${deposit}`, { token: rich.token })).deposit.payment_status).toBe('expired');
    expect(await statusOf(t, paid)).toMatchObject({ payment: 'paid', order: 'processing' });
    // Stamped with the moment it expired.
    expect((await statusOf(t, order)).orderRecord.updated_at).toBe('2026-03-02 11:00:00');
    await expect(t.sandbox.control.pay(order)).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
  });

  it('the dashboard counts orders by status', async () => {
    const t = await sandbox(transport);
    const a = await newOrder(t);
    const b = await newOrder(t);
    const c = await newOrder(t);
    await newOrder(t);
    await t.sandbox.control.pay(a);
    await t.sandbox.control.pay(b);
    await t.sandbox.control.complete(b);
    await t.sandbox.control.expire(c);
    const summary = dataOf(await t.request('GET', '/api/v1/me/dashboard-summary', { token: rich.token }));
    expect(summary.orders).toEqual({ total: 4, pending: 1, processing: 1, completed: 1, failed: 0, cancelled: 1 });
    expect(summary).toMatchObject({ pending_invoices: 1, total_spent: 24_000, balance: rich.balance });
  });
});

describe.each(transports)('the control API under /__sandbox (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each([
    { path: 'invoices/{code}/pay', payment: 'paid', order: 'processing' },
    { path: 'invoices/{code}/expire', payment: 'expired', order: 'cancelled' },
    { path: 'invoices/{code}/fail', payment: 'failed', order: 'cancelled' },
  ])('POST /__sandbox/$path → $payment, $order', async ({ path, payment, order }) => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    const answer = await t.request('POST', `/__sandbox/${path.replace('{code}', code)}`);
    // The invoice as the move left it; invoice_code as before, for older callers.
    expect(dataOf(answer)).toMatchObject({
      invoice_code: code,
      invoice: { invoice_code: code, payment_status: payment, order: { status: order } },
    });
    expect(await statusOf(t, code)).toMatchObject({ payment, order });
  });

  it('POST /__sandbox/orders/{code}/complete and /fail move paid orders on', async () => {
    const t = await sandbox(transport);
    const a = await paidByBalance(t);
    const b = await paidByBalance(t);
    dataOf(await t.request('POST', `/__sandbox/orders/${a}/complete`));
    dataOf(await t.request('POST', `/__sandbox/orders/${b}/fail`));
    expect(await statusOf(t, a)).toMatchObject({ payment: 'paid', order: 'completed' });
    expect(await statusOf(t, b)).toMatchObject({ payment: 'refunded', order: 'failed' });
    expect(await balanceOf(t)).toBe(rich.balance - 12_000);
  });

  it('answers an invalid move with 409 INVALID_STATE and an unknown invoice with 404 NOT_FOUND', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    dataOf(await t.request('POST', `/__sandbox/invoices/${code}/pay`));
    expectError(await t.request('POST', `/__sandbox/invoices/${code}/pay`), 409, 'INVALID_STATE');
    expectError(await t.request('POST', `/__sandbox/orders/${await newOrder(t)}/complete`), 409, 'INVALID_STATE');
    expectError(await t.request('POST', '/__sandbox/invoices/INV20260302999999/pay'), 404, 'NOT_FOUND');
  });

  it("POST /__sandbox/deposits creates a deposit for a named account or a token's, paid or not", async () => {
    const t = await sandbox(transport);
    const created = await t.request('POST', '/__sandbox/deposits', { body: { account: 'demo', amount: 50_000 } });
    const code = dataOf(created, 201).invoice_code;
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${code}`, { token: demo.token })).deposit.payment_status).toBe('pending');
    dataOf(await t.request('POST', `/__sandbox/invoices/${code}/pay`));
    expect(await balanceOf(t, demo.token)).toBe(50_000);

    const byToken = dataOf(
      await t.request('POST', '/__sandbox/deposits', { token: rich.token, body: { amount: 20_000, paid: true } }),
      201,
    ).invoice_code;
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${byToken}`, { token: rich.token })).deposit.payment_status).toBe('paid');
    expect(await balanceOf(t)).toBe(rich.balance + 20_000);
  });

  it.each([
    { name: 'no amount', body: { account: 'demo' }, status: 422, code: 'VALIDATION_FAILED', fields: ['amount'] },
    {
      name: 'an amount below the minimum',
      body: { account: 'demo', amount: 9_999 },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['amount'],
    },
    {
      name: 'a fractional amount',
      body: { account: 'demo', amount: 10_000.5 },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['amount'],
    },
    { name: 'an amount as text', body: { amount: '50000' }, status: 422, code: 'VALIDATION_FAILED', fields: ['amount'] },
    { name: 'an unknown account', body: { account: 'nobody', amount: 50_000 }, status: 404, code: 'NOT_FOUND', fields: ['account'] },
    // Once silently the demo account's deposit.
    {
      name: 'an account that is no name',
      body: { account: 2, amount: 50_000 },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['account'],
    },
    {
      name: 'a non-gateway method',
      body: { account: 'demo', amount: 50_000, payment_method: 'balance' },
      status: 422,
      code: 'PAYMENT_METHOD_UNAVAILABLE',
      fields: ['payment_method'],
    },
    {
      name: 'a method that is no code',
      body: { amount: 50_000, payment_method: ['bank_transfer'] },
      status: 422,
      code: 'VALIDATION_FAILED',
      fields: ['payment_method'],
    },
    { name: 'paid as text', body: { amount: 50_000, paid: 'yes' }, status: 422, code: 'VALIDATION_FAILED', fields: ['paid'] },
    { name: 'a misspelt key', body: { amount: 50_000, acount: 'rich' }, status: 422, code: 'VALIDATION_FAILED', fields: ['acount'] },
  ])('POST /__sandbox/deposits with $name is $status $code naming $fields, and creates nothing', async ({ body, status, code, fields }) => {
    const t = await sandbox(transport);
    const before = t.state();
    expectError(await t.request('POST', '/__sandbox/deposits', { body }), status, code, fields);
    expect(t.state()).toEqual(before);
  });

  it('POST /__sandbox/deposits says which accounts there are and which keys it takes', async () => {
    const t = await sandbox(transport);
    const unknown = await t.request('POST', '/__sandbox/deposits', { body: { account: 'nobody', amount: 50_000 } });
    expect(unknown.json.message).toBe("No sandbox account is named 'nobody'; the accounts are demo, rich, broke, unlinked, dual.");
    const misspelt = await t.request('POST', '/__sandbox/deposits', { body: { amount: 50_000, acount: 'rich' } });
    expect(misspelt.json.message).toBe('A deposit takes amount, account, mode, payment_method, paid; not acount.');
  });

  it('POST /__sandbox/deposits answers with the new deposit as the state shows it', async () => {
    const t = await sandbox(transport);
    const created = dataOf(await t.request('POST', '/__sandbox/deposits', { body: { account: 'rich', amount: 20_000, paid: true } }), 201);
    const shown = dataOf(await t.request('GET', `/__sandbox/invoices/${created.invoice_code}`)).invoice;
    expect(created).toEqual({ invoice_code: shown.invoice_code, deposit: shown });
    expect(shown).toMatchObject({ type: 'deposit', amount: 20_000, payment_status: 'paid', order: null });
    // In-process, the same view.
    const direct = await t.sandbox.control.deposit({ account: 'demo', amount: 10_000 });
    expect(direct).toEqual(dataOf(await t.request('GET', `/__sandbox/invoices/${direct.invoice_code}`)).invoice);
  });

  it('POST /__sandbox/deposits refuses a body that is not a JSON object', async () => {
    const t = await sandbox(transport);
    expectError(
      await t.request('POST', '/__sandbox/deposits', { rawBody: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_JSON',
    );
    expectError(
      await t.request('POST', '/__sandbox/deposits', { rawBody: '[]', headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_BODY',
    );
  });

  it('POST /__sandbox/clock moves time forward, expiring unpaid invoices; never backward', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    const moved = dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: INVOICE_TTL_SECONDS } }));
    // As GET /__sandbox/clock answers; the order's expiry, due by the new time, is made before the answer, so nothing
    // else is waiting for the clock (`next_move_at`, what the dashboard looks again at).
    expect(moved).toEqual({ now: '2026-03-02T11:00:00.000Z', offset_ms: INVOICE_TTL_SECONDS * 1000, next_move_at: null });
    expect((t.sandbox.snapshot().tables.invoices as { invoice_code: string }[]).find((i) => i.invoice_code === code)).toMatchObject({
      payment_status: 'expired',
    });
    expect(dataOf(await t.request('GET', '/__sandbox/clock'))).toEqual(moved);
    expect(await statusOf(t, code)).toMatchObject({ payment: 'expired', order: 'cancelled' });
    // The error names the body's key.
    for (const body of [{ advance_seconds: -1 }, {}, { advance_seconds: '60' }]) {
      const refused = await t.request('POST', '/__sandbox/clock', { body });
      expectError(refused, 422, 'VALIDATION_FAILED', ['advance_seconds']);
      expect(refused.json.message).toBe(
        'advance_seconds is how far to move the clock: a number of seconds, 0 or more (it never moves back).',
      );
    }
    // A key it does not know is named, even beside a good advance_seconds: nothing moves.
    for (const [body, unknown] of [
      [{ seconds: 60 }, ['seconds']],
      [{ advance_seconds: 10, x: 1, advanceSeconds: 5 }, ['x', 'advanceSeconds']],
    ] as const) {
      const refused = await t.request('POST', '/__sandbox/clock', { body });
      expectError(refused, 422, 'VALIDATION_FAILED', [...unknown]);
      expect(refused.json.message).toBe(`A clock move takes advance_seconds; not ${unknown.join(', ')}.`);
    }
    expect(t.sandbox.now()).toBe(CLOCK_START + TTL_MS);
    // In-process, the argument is `seconds`, and so is the field.
    await expect(t.sandbox.control.advanceClock(-1)).rejects.toMatchObject({ status: 422, fields: ['seconds'] });
  });

  it('POST /__sandbox/reset returns the sandbox to its seed', async () => {
    const t = await sandbox(transport);
    const seeded = t.state();
    await paidByBalance(t);
    await t.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true });
    await t.sandbox.control.advanceClock(60);
    dataOf(await t.request('POST', '/__sandbox/reset'));
    expect(t.state()).toEqual(seeded);
    expect(dataOf(await t.request('GET', '/api/v1/me/orders', { token: rich.token })).pagination.total).toBe(0);
    expect(await balanceOf(t)).toBe(rich.balance);
    expect(await newOrder(t)).toBe('INV20260302000001');
  });

  it('GET /__sandbox/fixtures answers the fixtures', async () => {
    const t = await sandbox(transport);
    expect(dataOf(await t.request('GET', '/__sandbox/fixtures'))).toEqual(JSON.parse(JSON.stringify(t.sandbox.fixtures())));
  });
});
