import { TOKEN_PREFIXES } from '../../src/contract/token-prefix.js';
import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { quote } from '../../mocks/rules/pricing.js';
import { platformSeed } from '../../mocks/store/seed.js';
import { dataOf, expectError, fakeClock, transports, useSandboxes } from '../support/sandbox-harness.js';

const fixtures = (await createSandbox({ now: fakeClock().now })).fixtures();
const { valid_orders: validOrders, invalid_orders: invalidOrders } = fixtures.platform;

/** What one valid order costs, from the platform seed and the pricing model. */
function totalOf(body: (typeof validOrders)[number]): number {
  const id = body.platform_pass_id ?? body.gamepass_id;
  const item =
    body.order_type === 'vip_server' ? platformSeed.vipServers.find((v) => v.id === id) : platformSeed.passes.find((p) => p.id === id);
  if (item === undefined) throw new Error(`fixture order names no known pass or VIP server: ${JSON.stringify(body)}`);
  return quote(item.price).total_amount;
}

describe('fixtures()', () => {
  it('has the documented shape', () => {
    expect(fixtures).toMatchObject({
      accounts: expect.any(Array),
      platform: { valid_orders: expect.any(Array), invalid_orders: expect.any(Array) },
    });
    for (const account of fixtures.accounts) {
      expect(account).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          mode: expect.stringMatching(/^(sandbox|production)$/),
          token: expect.any(String),
          balance: expect.any(Number),
        }),
      );
      expect(account.chat_user_id === null || typeof account.chat_user_id === 'string').toBe(true);
      expect(Number.isSafeInteger(account.balance) && account.balance >= 0).toBe(true);
      expect(account.token.startsWith(TOKEN_PREFIXES[account.mode])).toBe(true);
    }
    // One entry per key: a name appears twice only for an account with both keys, once per mode.
    expect(new Set(fixtures.accounts.map((a) => `${a.name} ${a.mode}`)).size).toBe(fixtures.accounts.length);
  });

  it('has at least one sandbox account', () => {
    expect(fixtures.accounts.filter((a) => a.mode === 'sandbox').length).toBeGreaterThanOrEqual(1);
  });

  it('has a production account with a chat link and a balance for every valid order at once', () => {
    const needed = validOrders.reduce((sum, body) => sum + totalOf(body), 0);
    expect(fixtures.accounts.some((a) => a.mode === 'production' && a.chat_user_id !== null && a.balance >= needed)).toBe(true);
  });

  it('has a production account with a chat link and zero balance', () => {
    expect(fixtures.accounts.some((a) => a.mode === 'production' && a.chat_user_id !== null && a.balance === 0)).toBe(true);
  });

  it('has valid orders of both order types', () => {
    const types = new Set(validOrders.map((o) => o.order_type ?? 'gamepass'));
    expect([...types].sort()).toEqual(['gamepass', 'vip_server']);
  });

  it.each([
    {
      name: 'an unknown username',
      match: (o: (typeof invalidOrders)[number]) =>
        !platformSeed.users.some((u) => u.username.toLowerCase() === o.platform_username.toLowerCase()),
    },
    {
      name: 'a place the user does not own',
      match: (o: (typeof invalidOrders)[number]) => {
        const user = platformSeed.users.find((u) => u.username === o.platform_username);
        const place = platformSeed.places.find((p) => p.id === o.place_id);
        return user !== undefined && place !== undefined && place.owner_id !== user.id;
      },
    },
    {
      name: 'a pass that is not in the place',
      match: (o: (typeof invalidOrders)[number]) => {
        const user = platformSeed.users.find((u) => u.username === o.platform_username);
        const place = platformSeed.places.find((p) => p.id === o.place_id && p.owner_id === user?.id);
        const pass = platformSeed.passes.find((p) => p.id === (o.platform_pass_id ?? o.gamepass_id));
        return (o.order_type ?? 'gamepass') === 'gamepass' && place !== undefined && pass !== undefined && pass.place_id !== place.id;
      },
    },
  ])('has an invalid order for $name', ({ match }) => {
    expect(invalidOrders.some(match)).toBe(true);
  });

  it('is the same on every start', async () => {
    const again = (await createSandbox()).fixtures();
    expect(again).toEqual(fixtures);
  });
});

describe.each(transports)('fixture values really work (%s)', (transport) => {
  const sandbox = useSandboxes();

  it("every account's token authenticates with its mode, balance and chat id", async () => {
    const t = await sandbox(transport);
    for (const account of fixtures.accounts) {
      expect(dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token: account.token })).mode, account.name).toBe(
        account.mode,
      );
      expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: account.token })).balance, account.name).toBe(account.balance);
      expect(dataOf(await t.request('GET', '/api/v1/me', { token: account.token })).user.chat_user_id, account.name).toBe(
        account.chat_user_id,
      );
    }
  });

  it('every valid order succeeds for the rich account paying by balance, and every invalid one fails', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const rich = fixtureAccount(fixtures, 'rich');
    const headers = { 'x-chat-user-id': rich.chat_user_id! };
    let balance = rich.balance;
    for (const body of validOrders) {
      const created = dataOf(
        await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: { ...body, payment_method: 'balance' }, headers }),
        201,
      );
      expect(created.invoice, JSON.stringify(body)).toMatchObject({ payment_status: 'paid', amount: totalOf(body) });
      balance -= totalOf(body);
      expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance).toBe(balance);
    }
    const before = t.state();
    for (const body of invalidOrders) {
      expectError(
        await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: { ...body, payment_method: 'balance' }, headers }),
        422,
        'PLATFORM_VALIDATION_FAILED',
      );
    }
    expect(t.state()).toEqual(before);
  });

  it('every valid order succeeds for the sandbox account by invoice, and every invalid one fails', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const demo = fixtures.accounts.find((a) => a.mode === 'sandbox')!;
    for (const body of validOrders) {
      const created = dataOf(await t.request('POST', '/api/v1/me/orders', { token: demo.token, body }), 201);
      expect(created).toMatchObject({ environment: 'sandbox', invoice: { payment_status: 'pending', amount: totalOf(body) } });
    }
    for (const body of invalidOrders) {
      expectError(await t.request('POST', '/api/v1/me/orders', { token: demo.token, body }), 422, 'PLATFORM_VALIDATION_FAILED');
    }
  });

  it('the zero-balance account is refused for insufficient balance on every valid order', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const broke = fixtures.accounts.find((a) => a.mode === 'production' && a.chat_user_id !== null && a.balance === 0)!;
    for (const body of validOrders) {
      const answer = await t.request('POST', '/api/v1/me/orders', {
        token: broke.token,
        body: { ...body, payment_method: 'balance' },
        headers: { 'x-chat-user-id': broke.chat_user_id! },
      });
      expectError(answer, 422, 'INSUFFICIENT_BALANCE');
    }
  });
});

describe('seeded balances', () => {
  it('every seeded account with a balance has the transactions that explain it, and no other has any', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    for (const account of sandbox.store.db.accounts.all()) {
      const transactions = sandbox.store.db.transactions.all().filter((x) => x.account_id === account.id);
      const sum = transactions.reduce((total, x) => total + (x.type === 'credit' ? x.amount : -x.amount), 0);
      expect({ account: account.name, id: account.id, sum }).toEqual({ account: account.name, id: account.id, sum: account.balance });
      if (account.balance > 0)
        expect(transactions).toEqual([
          expect.objectContaining({ type: 'credit', description: 'Opening balance', balance_after: account.balance }),
        ]);
      else expect(transactions).toEqual([]);
    }
  });

  it("rich's 10,000,000 shows its opening transaction over the API", async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/balance/transactions`, {
      headers: { authorization: `Bearer ${sandbox.account('rich').token}` },
    });
    const { transactions } = ((await answer.json()) as { data: { transactions: Record<string, unknown>[] } }).data;
    expect(transactions).toEqual([
      expect.objectContaining({
        type: 'credit',
        amount: 10_000_000,
        balance_after: 10_000_000,
        reference: null,
        description: 'Opening balance',
      }),
    ]);
  });
});
