import { describe, expect, it } from 'vitest';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

/** rich owns an order (paid by balance, so also a transaction) and a deposit; demo owns one order. */
async function twoAccounts(t: TestSandbox) {
  const richOrder = dataOf(
    await t.request('POST', '/api/v1/me/orders', {
      token: rich.token,
      body: { ...SIMPLE_ORDER, payment_method: 'balance' },
      headers: { 'x-chat-user-id': rich.chat_user_id! },
    }),
    201,
  ).invoice.invoice_code as string;
  const richDeposit = (await t.sandbox.control.deposit({ account: 'rich', amount: 50_000 })).invoice_code;
  const demoOrder = dataOf(await t.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER }), 201).invoice
    .invoice_code as string;
  return { richOrder, richDeposit, demoOrder };
}

describe.each(transports)('ownership (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each([
    { what: 'order', path: (c: string) => `/api/v1/me/orders/${c}` },
    { what: 'invoice', path: (c: string) => `/api/v1/me/invoices/${c}` },
    { what: 'invoice status', path: (c: string) => `/api/v1/me/invoices/${c}/status` },
  ])("another account's $what is 404 NOT_FOUND, as is an unknown one", async ({ path }) => {
    const t = await sandbox(transport);
    const { richOrder } = await twoAccounts(t);
    expect(dataOf(await t.request('GET', path(richOrder), { token: rich.token }))).toBeDefined();
    const foreign = await t.request('GET', path(richOrder), { token: demo.token });
    expectError(foreign, 404, 'NOT_FOUND');
    expectError(await t.request('GET', path('INV20260302999999'), { token: demo.token }), 404, 'NOT_FOUND');
  });

  it("another account's deposit is 404 NOT_FOUND, and so is an order's invoice on the deposit path", async () => {
    const t = await sandbox(transport);
    const { richDeposit, richOrder } = await twoAccounts(t);
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${richDeposit}`, { token: rich.token })).deposit.invoice_code).toBe(
      richDeposit,
    );
    expectError(await t.request('GET', `/api/v1/me/deposits/${richDeposit}`, { token: demo.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/api/v1/me/deposits/${richOrder}`, { token: rich.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/api/v1/me/invoices/${richDeposit}`, { token: demo.token }), 404, 'NOT_FOUND');
  });

  it("lists hold only the token owner's records", async () => {
    const t = await sandbox(transport);
    const { richOrder, richDeposit, demoOrder } = await twoAccounts(t);
    const demoOrders = dataOf(await t.request('GET', '/api/v1/me/orders', { token: demo.token }));
    expect(demoOrders.orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual([demoOrder]);
    expect(demoOrders.pagination.total).toBe(1);
    const richOrders = dataOf(await t.request('GET', '/api/v1/me/orders', { token: rich.token }));
    expect(richOrders.orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual([richOrder]);

    const demoDeposits = dataOf(await t.request('GET', '/api/v1/me/deposits', { token: demo.token }));
    expect(demoDeposits).toMatchObject({ deposits: [], pagination: { total: 0 } });
    const richDeposits = dataOf(await t.request('GET', '/api/v1/me/deposits', { token: rich.token }));
    expect(richDeposits.deposits.map((d: { invoice_code: string }) => d.invoice_code)).toEqual([richDeposit]);

    expect(dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token: demo.token }))).toMatchObject({
      transactions: [],
      pagination: { total: 0 },
    });
    // Its deposit's, and its opening balance's.
    expect(dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token: rich.token })).pagination.total).toBe(2);

    const summary = dataOf(await t.request('GET', '/api/v1/me/dashboard-summary', { token: demo.token }));
    expect(summary.orders.total).toBe(1);
    expect(summary.recent_orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual([demoOrder]);
  });

  it("the profile, balance and token check describe the token's own account", async () => {
    const t = await sandbox(transport);
    for (const [name, account] of [
      ['demo', demo],
      ['rich', rich],
    ] as const) {
      const user = dataOf(await t.request('GET', '/api/v1/me', { token: account.token })).user;
      expect(user).toMatchObject({ username: name, chat_user_id: account.chat_user_id, chat_linked: account.chat_user_id !== null });
      expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: account.token })).balance).toBe(account.balance);
      expect(dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token: account.token })).user.username).toBe(name);
    }
  });
});
