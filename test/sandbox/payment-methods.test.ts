import { describe, expect, it } from 'vitest';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes } from '../support/sandbox-harness.js';

const { demo, rich, broke, unlinked } = await accounts();
const ORDERS = '/api/v1/me/orders';
const chat = (id: string | null): Record<string, string> => (id === null ? {} : { 'x-chat-user-id': id });

const refusals: Array<{
  name: string;
  token: string;
  payment_method: string;
  headers?: Record<string, string>;
  code: string;
  fields?: string[];
}> = [
  {
    name: 'a sandbox token paying by balance',
    token: demo.token,
    payment_method: 'balance',
    headers: { 'x-chat-user-id': '700000001' },
    code: 'PAYMENT_METHOD_NOT_ALLOWED',
    fields: ['payment_method'],
  },
  {
    name: 'a sandbox token paying by qris',
    token: demo.token,
    payment_method: 'qris',
    code: 'PAYMENT_METHOD_NOT_ALLOWED',
    fields: ['payment_method'],
  },
  {
    name: 'a sandbox token paying by bank_transfer',
    token: demo.token,
    payment_method: 'bank_transfer',
    code: 'PAYMENT_METHOD_NOT_ALLOWED',
    fields: ['payment_method'],
  },
  {
    name: 'an unknown method',
    token: rich.token,
    payment_method: 'bitcoin',
    code: 'PAYMENT_METHOD_UNAVAILABLE',
    fields: ['payment_method'],
  },
  {
    name: 'an inactive method (card)',
    token: rich.token,
    payment_method: 'card',
    code: 'PAYMENT_METHOD_UNAVAILABLE',
    fields: ['payment_method'],
  },
  {
    name: 'an inactive method with a sandbox token',
    token: demo.token,
    payment_method: 'card',
    code: 'PAYMENT_METHOD_UNAVAILABLE',
    fields: ['payment_method'],
  },
  { name: 'balance without X-Chat-User-ID', token: rich.token, payment_method: 'balance', code: 'CHAT_LINK_REQUIRED' },
  {
    name: "balance with another account's chat id",
    token: rich.token,
    payment_method: 'balance',
    headers: chat(broke.chat_user_id),
    code: 'CHAT_LINK_REQUIRED',
  },
  {
    name: 'balance with an unknown chat id',
    token: rich.token,
    payment_method: 'balance',
    headers: { 'x-chat-user-id': '123' },
    code: 'CHAT_LINK_REQUIRED',
  },
  {
    name: 'balance with an empty chat id',
    token: rich.token,
    payment_method: 'balance',
    headers: { 'x-chat-user-id': '' },
    code: 'CHAT_LINK_REQUIRED',
  },
  {
    name: 'balance from an account without a chat link',
    token: unlinked.token,
    payment_method: 'balance',
    headers: { 'x-chat-user-id': '700000001' },
    code: 'CHAT_LINK_REQUIRED',
  },
  {
    name: 'balance from an unlinked account without the header',
    token: unlinked.token,
    payment_method: 'balance',
    code: 'CHAT_LINK_REQUIRED',
  },
  {
    name: 'balance too low',
    token: broke.token,
    payment_method: 'balance',
    headers: chat(broke.chat_user_id),
    code: 'INSUFFICIENT_BALANCE',
  },
];

describe.each(transports)('payment methods (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each([
    { name: 'demo', token: demo.token, environment: 'sandbox' },
    { name: 'rich', token: rich.token, environment: 'production' },
  ])('invoice is the default, without payment_url or gateway ($name, environment $environment)', async ({ token, environment }) => {
    const t = await sandbox(transport);
    const created = dataOf(await t.request('POST', ORDERS, { token, body: SIMPLE_ORDER }), 201);
    expect(created).toMatchObject({ idempotent: false, gateway: null, environment });
    expect(created.invoice).toMatchObject({ payment_method: 'invoice', payment_url: '', payment_status: 'pending', type: 'order' });
    expect(created.invoice.order.status).toBe('pending');
    expect(created.invoice.invoice_code).toMatch(/^INV\d+$/);
    expect(created.invoice.invoice_url).toBe(`${t.baseUrl}/user/invoice/${created.invoice.invoice_code}`);
    const order = dataOf(await t.request('GET', `${ORDERS}/${created.invoice.invoice_code}`, { token })).order;
    expect(order).toMatchObject({ environment, payment_method: 'invoice' });
  });

  it('a sandbox token may pay by invoice explicitly', async () => {
    const t = await sandbox(transport);
    const created = dataOf(
      await t.request('POST', ORDERS, { token: demo.token, body: { ...SIMPLE_ORDER, payment_method: 'invoice' } }),
      201,
    );
    expect(created).toMatchObject({ environment: 'sandbox', invoice: { payment_method: 'invoice' } });
  });

  it.each(refusals)('$name gets 422 $code and changes nothing', async ({ token, payment_method, headers, code, fields }) => {
    const t = await sandbox(transport);
    const before = t.state();
    const answer = await t.request('POST', ORDERS, { token, body: { ...SIMPLE_ORDER, payment_method }, headers: headers ?? {} });
    expectError(answer, 422, code, fields);
    expect(t.state()).toEqual(before);
  });

  it('balance with the linked chat id pays at once, debits the balance and records the transaction', async () => {
    const t = await sandbox(transport);
    const created = dataOf(
      await t.request('POST', ORDERS, {
        token: rich.token,
        body: { ...SIMPLE_ORDER, payment_method: 'balance' },
        headers: chat(rich.chat_user_id),
      }),
      201,
    );
    const code = created.invoice.invoice_code;
    expect(created).toMatchObject({ environment: 'production', gateway: null });
    expect(created.invoice).toMatchObject({ payment_method: 'balance', payment_status: 'paid', amount: 12_000, payment_url: '' });
    expect(created.invoice.order.status).toBe('processing');

    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance).toBe(rich.balance - 12_000);
    const { transactions, pagination } = dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token: rich.token }));
    expect(pagination.total).toBe(2);
    expect(transactions[0]).toMatchObject({ type: 'debit', amount: 12_000, balance_after: rich.balance - 12_000, reference: code });
    expect(dataOf(await t.request('GET', `/api/v1/me/invoices/${code}/status`, { token: rich.token }))).toMatchObject({
      payment_status: 'paid',
      order_status: 'processing',
      is_final: true,
    });
  });

  it('balance accepts the chat id with surrounding spaces', async () => {
    const t = await sandbox(transport);
    const answer = await t.request('POST', ORDERS, {
      token: rich.token,
      body: { ...SIMPLE_ORDER, payment_method: 'balance' },
      headers: { 'x-chat-user-id': ` ${rich.chat_user_id} ` },
    });
    expect(dataOf(answer, 201).invoice.payment_status).toBe('paid');
  });

  it('balance may use the whole balance, to the last unit', async () => {
    const t = await sandbox(transport);
    await t.sandbox.control.deposit({ account: 'broke', amount: 12_000, paid: true });
    const created = dataOf(
      await t.request('POST', ORDERS, {
        token: broke.token,
        body: { ...SIMPLE_ORDER, payment_method: 'balance' },
        headers: chat(broke.chat_user_id),
      }),
      201,
    );
    expect(created.invoice.payment_status).toBe('paid');
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: broke.token })).balance).toBe(0);
    const refused = await t.request('POST', ORDERS, {
      token: broke.token,
      body: { ...SIMPLE_ORDER, payment_method: 'balance' },
      headers: chat(broke.chat_user_id),
    });
    expectError(refused, 422, 'INSUFFICIENT_BALANCE');
  });

  it('concurrent balance orders never overdraw: one balance for one order pays exactly one', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    await t.sandbox.control.deposit({ account: 'broke', amount: 20_000, paid: true });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.request('POST', ORDERS, {
          token: broke.token,
          body: { ...SIMPLE_ORDER, payment_method: 'balance' },
          headers: chat(broke.chat_user_id),
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) expectError(refused, 422, 'INSUFFICIENT_BALANCE');
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: broke.token })).balance).toBe(8_000);
  });

  it.each(['qris', 'bank_transfer'])('the gateway method %s returns a payment_url and a gateway object', async (method) => {
    const t = await sandbox(transport);
    const created = dataOf(await t.request('POST', ORDERS, { token: rich.token, body: { ...SIMPLE_ORDER, payment_method: method } }), 201);
    expect(created.environment).toBe('production');
    expect(created.invoice).toMatchObject({ payment_method: method, payment_status: 'pending' });
    expect(created.invoice.payment_url).toMatch(/^https?:\/\/\S+$/);
    expect(created.gateway).toEqual({
      code: method,
      name: expect.any(String),
      payment_url: created.invoice.payment_url,
      expires_at: created.invoice.expires_at,
    });
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance).toBe(rich.balance);
  });

  it('lists the active methods, marking what a sandbox token and balance need', async () => {
    const t = await sandbox(transport);
    const methods = dataOf(await t.request('GET', '/api/v1/catalog/payment-methods')).payment_methods as Array<Record<string, unknown>>;
    expect(methods.map((m) => m.code)).toEqual(['invoice', 'balance', 'qris', 'bank_transfer']);
    expect(methods.filter((m) => m.is_default).map((m) => m.code)).toEqual(['invoice']);
    expect(methods.filter((m) => m.sandbox_allowed).map((m) => m.code)).toEqual(['invoice']);
    expect(methods.filter((m) => m.requires_chat_link).map((m) => m.code)).toEqual(['balance']);
    expect(methods.filter((m) => m.type === 'gateway').length).toBeGreaterThanOrEqual(2);
  });
});
