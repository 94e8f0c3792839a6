import { authenticate } from '../../mocks/rules/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/contract/index.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';

/**
 * Every user endpoint, asked by every account about every other account's data:
 * resources by code are 404, and lists, summaries and profiles hold nothing of the other account.
 */
interface Owned {
  /** The fixture's name and its key's mode: `dual` holds both keys, each opening a world of its own. */
  name: string;
  mode: string;
  token: string;
  /** The id the profile shows (the live account's, for a test world). */
  id: number;
  /** The record that holds this key's data. */
  world: number;
  username: string;
  email: string;
  invoices: string[];
  transactions: string[];
}

const userEndpoints = endpoints.filter((e) => e.auth);
const byCode = userEndpoints.filter((e) => e.path.includes('{invoice}'));
const whole = userEndpoints.filter((e) => !e.path.includes('{invoice}') && e.method === 'GET');

describe('account isolation', () => {
  let sandbox: Sandbox;
  const accounts: Owned[] = [];

  const call = async (method: string, path: string, token: string) => {
    const response = await sandbox.fetch(`${sandbox.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    sandbox = await createSandbox({ rateLimit: false });
    for (const fixture of sandbox.fixtures().accounts) {
      const account = authenticate(sandbox.store.db, fixture.token)!.account;
      const owned: Owned = {
        name: `${fixture.name} (${fixture.mode})`,
        mode: fixture.mode,
        token: fixture.token,
        id: account.live_account_id ?? account.id,
        world: account.id,
        username: account.username,
        email: account.email,
        invoices: [],
        transactions: [],
      };
      for (const body of sandbox.fixtures().platform.valid_orders.slice(0, 2)) {
        const response = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fixture.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(201);
        owned.invoices.push(((await response.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code);
      }
      // Named by the token: the deposit goes to that key's world.
      owned.invoices.push((await sandbox.control.deposit({ token: fixture.token, amount: 20_000, paid: true })).invoice_code);
      owned.transactions = sandbox.store.db.transactions.ownedBy(account.id).map((t) => t.id);
      accounts.push(owned);
    }
    expect(accounts.length).toBeGreaterThanOrEqual(6);
    // The account with both keys is there, and its two keys open two worlds.
    expect(accounts.filter((a) => a.name.startsWith('dual ')).map((a) => a.world)).toHaveLength(2);
    expect(new Set(accounts.map((a) => a.world)).size).toBe(accounts.length);
  });

  it('has the matrix it claims: every token endpoint is covered', () => {
    expect(byCode.length + whole.length + 2).toBe(userEndpoints.length); // + createOrder and validateToken, checked below
  });

  it('answers 404 for every resource of another account, on every endpoint that takes an invoice code', async () => {
    let checked = 0;
    for (const viewer of accounts) {
      for (const owner of accounts.filter((a) => a !== viewer)) {
        for (const endpoint of byCode) {
          for (const code of owner.invoices) {
            const { status, text } = await call(endpoint.method, endpoint.path.replace('{invoice}', code), viewer.token);
            expect(status, `${viewer.name} → ${owner.name}'s ${code} on ${endpoint.id}`).toBe(404);
            expect(JSON.parse(text)).toEqual({ success: false, message: expect.stringContaining(code), error: { code: 'NOT_FOUND' } });
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBe(accounts.length * (accounts.length - 1) * byCode.length * 3);
  });

  it('lists, summaries, balances and profiles hold nothing of any other account', async () => {
    for (const viewer of accounts) {
      for (const endpoint of whole) {
        const { status, text } = await call('GET', `${endpoint.path}${'query' in endpoint ? '?per_page=100' : ''}`, viewer.token);
        expect(status, `${viewer.name} on ${endpoint.id}`).toBe(200);
        for (const owner of accounts.filter((a) => a !== viewer)) {
          // The two worlds of one account are one person: its profile is shown under both keys, its data under one.
          const person = owner.username === viewer.username ? [] : [owner.email];
          for (const foreign of [...owner.invoices, ...owner.transactions, ...person]) {
            expect(text, `${viewer.name} sees ${owner.name}'s ${foreign} on ${endpoint.id}`).not.toContain(foreign);
          }
        }
      }
      // Positive control: the viewer's own data is there, so the check above is not vacuous.
      const own = await call('GET', '/api/v1/me/orders?per_page=100', viewer.token);
      for (const code of viewer.invoices.slice(0, 2)) expect(own.text).toContain(code);
      const profile = JSON.parse((await call('GET', '/api/v1/me', viewer.token)).text) as { data: { user: { id: number; email: string } } };
      expect(profile.data.user).toMatchObject({ id: viewer.id, email: viewer.email });
    }
  });

  it("token validation and order creation act only as the token's own account", async () => {
    for (const viewer of accounts) {
      const validation = JSON.parse((await call('POST', '/api/v1/auth/token/validate', viewer.token)).text) as {
        data: { user: { id: number } };
      };
      expect(validation.data.user.id).toBe(viewer.id);
    }
    const before = new Map(accounts.map((a) => [a.world, sandbox.store.db.orders.ownedBy(a.world).length]));
    const rich = accounts.find((a) => a.name === 'rich (production)')!;
    await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(sandbox.fixtures().platform.valid_orders[0]),
    });
    for (const account of accounts)
      expect(sandbox.store.db.orders.ownedBy(account.world).length).toBe(before.get(account.world)! + (account === rich ? 1 : 0));
  });
});
