import { describe, expect, it } from 'vitest';
import { dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const CONTROL = { 'x-topup-sandbox': '1' };

/** The account that holds both keys: its live key and its sandbox key, each opening one world of its data. */
async function dualKeys(t: TestSandbox) {
  return { live: t.sandbox.account('dual').token, test: t.sandbox.account('dual', 'sandbox').token };
}

const order = (t: TestSandbox, token: string, headers: Record<string, string> = {}, body: object = SIMPLE_ORDER) =>
  t.request('POST', '/api/v1/me/orders', { token, body, headers });

describe.each(transports)('test and live data, apart, for an account with both keys (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('both keys are the same account: one profile, one id, one chat link; only the mode differs', async () => {
    const t = await sandbox(transport);
    const { live, test } = await dualKeys(t);
    const liveUser = dataOf(await t.request('GET', '/api/v1/me', { token: live })).user;
    const testUser = dataOf(await t.request('GET', '/api/v1/me', { token: test })).user;
    expect({ ...testUser, token_mode: undefined }).toEqual({ ...liveUser, token_mode: undefined });
    expect([liveUser.token_mode, testUser.token_mode, testUser.chat_user_id]).toEqual(['production', 'sandbox', '700000005']);
    const checks = await Promise.all(
      [live, test].map(async (token) => dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token }))),
    );
    expect(checks.map((c) => [c.mode, c.user.id])).toEqual([
      ['production', liveUser.id],
      ['sandbox', liveUser.id],
    ]);
  });

  it("a sandbox key never reads the live world's orders, invoices or deposits, and the reverse", async () => {
    const t = await sandbox(transport);
    const { live, test } = await dualKeys(t);
    const testOrder = dataOf(await order(t, test), 201).invoice.invoice_code as string;
    const liveOrder = dataOf(await order(t, live), 201).invoice.invoice_code as string;
    const liveDeposit = dataOf(
      await t.request('POST', '/__sandbox/deposits', { body: { amount: 50_000, account: 'dual' }, headers: CONTROL }),
      201,
    ).invoice_code as string;
    for (const [token, own, foreign] of [
      [test, testOrder, [liveOrder, liveDeposit]],
      [live, liveOrder, [testOrder]],
    ] as const) {
      expect((await t.request('GET', `/api/v1/me/orders/${own}`, { token })).status).toBe(200);
      for (const code of foreign)
        for (const path of [
          `/api/v1/me/orders/${code}`,
          `/api/v1/me/invoices/${code}`,
          `/api/v1/me/invoices/${code}/status`,
          `/api/v1/me/deposits/${code}`,
        ])
          expectError(await t.request('GET', path, { token }), 404, 'NOT_FOUND');
      const listed = JSON.stringify([
        dataOf(await t.request('GET', '/api/v1/me/orders', { token })),
        dataOf(await t.request('GET', '/api/v1/me/deposits', { token })),
        dataOf(await t.request('GET', '/api/v1/me/dashboard-summary', { token })),
      ]);
      expect(listed).toContain(own);
      for (const code of foreign) expect(listed).not.toContain(code);
    }
  });

  it('balances and ledgers are apart: a sandbox refund credits the test balance only, a live payment debits the live one only', async () => {
    const t = await sandbox(transport);
    const { live, test } = await dualKeys(t);
    const balance = async (token: string) => dataOf(await t.request('GET', '/api/v1/me/balance', { token })).balance as number;
    const transactions = async (token: string) => dataOf(await t.request('GET', '/api/v1/me/balance/transactions', { token })).transactions;
    const [liveBefore, testBefore] = [await balance(live), await balance(test)];
    expect([liveBefore, testBefore]).toEqual([500_000, 0]);

    const testOrder = dataOf(await order(t, test), 201).invoice;
    await t.request('POST', `/__sandbox/invoices/${testOrder.invoice_code}/pay`, { headers: CONTROL });
    await t.request('POST', `/__sandbox/orders/${testOrder.invoice_code}/fail`, { headers: CONTROL });
    expect(await balance(test)).toBe(testOrder.amount);
    expect(await balance(live)).toBe(liveBefore);

    const paid = dataOf(
      await order(t, live, { 'x-chat-user-id': '700000005' }, { ...SIMPLE_ORDER, payment_method: 'balance' }),
      201,
    ).invoice;
    expect(await balance(live)).toBe(liveBefore - paid.amount);
    expect(await balance(test)).toBe(testOrder.amount);
    expect(JSON.stringify(await transactions(test))).toContain(testOrder.invoice_code);
    expect(JSON.stringify(await transactions(test))).not.toContain(paid.invoice_code);
    expect(JSON.stringify(await transactions(live))).not.toContain(testOrder.invoice_code);
  });

  it('one Idempotency-Key in both worlds makes two orders: each world has its own keys', async () => {
    const t = await sandbox(transport);
    const { live, test } = await dualKeys(t);
    const key = { 'idempotency-key': 'same-key-in-both-worlds' };
    const first = dataOf(await order(t, test, key), 201);
    const second = dataOf(await order(t, live, key), 201);
    expect([first.idempotent, second.idempotent]).toEqual([false, false]);
    expect(first.invoice.invoice_code).not.toBe(second.invoice.invoice_code);
    expect([first.environment, second.environment]).toEqual(['sandbox', 'production']);
    expect(dataOf(await order(t, test, key), 200).invoice.invoice_code).toBe(first.invoice.invoice_code);
  });

  it("a control deposit goes to the world of the key that names it, or to `mode`; the account's live world by default", async () => {
    const t = await sandbox(transport);
    const { live, test } = await dualKeys(t);
    const deposit = async (body: object, token?: string) =>
      t.request('POST', '/__sandbox/deposits', {
        body: { amount: 20_000, paid: true, ...body },
        headers: CONTROL,
        ...(token ? { token } : {}),
      });
    const balance = async (token: string) => dataOf(await t.request('GET', '/api/v1/me/balance', { token })).balance as number;
    expect((await deposit({}, test)).status).toBe(201);
    expect((await deposit({ account: 'dual', mode: 'sandbox' })).status).toBe(201);
    expect([await balance(test), await balance(live)]).toEqual([40_000, 500_000]);
    expect((await deposit({ account: 'dual' })).status).toBe(201);
    expect([await balance(test), await balance(live)]).toEqual([40_000, 520_000]);
    const refused = await deposit({ account: 'demo', mode: 'production' });
    expectError(refused, 422, 'VALIDATION_FAILED', ['mode']);
    expect(refused.json.message).toBe("The account 'demo' has no production key, so no production data.");
    expectError(await deposit({ account: 'dual', mode: 'test' }), 422, 'VALIDATION_FAILED', ['mode']);
  });

  it('the state views show both worlds under the one name, each with its mode and balance', async () => {
    const t = await sandbox(transport);
    await order(t, (await dualKeys(t)).test);
    const accounts = dataOf(await t.request('GET', '/__sandbox/accounts')).accounts as { name: string; mode: string; balance: number }[];
    expect(accounts.filter((a) => a.name === 'dual').map((a) => [a.mode, a.balance])).toEqual([
      ['production', 500_000],
      ['sandbox', 0],
    ]);
    expect(dataOf(await t.request('GET', '/__sandbox/orders?account=dual')).orders).toHaveLength(1);
  });
});
