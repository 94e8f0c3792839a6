// @ts-check
import { createHash } from 'node:crypto';
import { createSandbox } from '../../dist/cli/lazy/mocks/facade/serve.cjs';

/** The order every bench request places: the cheapest pass, paid by invoice (sandbox tokens may pay no other way). */
export const ORDER_BODY = JSON.stringify({
  order_type: 'gamepass',
  platform_username: 'BuilderBob',
  place_id: 5001,
  platform_pass_id: 9001,
});

/**
 * A sandbox state of `orders` completed orders spread evenly over `accounts` extra accounts, built as a snapshot
 * (creating 100k orders through the API would take minutes and measure the wrong thing). Its records are copies
 * of ones the sandbox made itself: the demo account and token, and one order that was created, paid and completed.
 * Only the token digest is computed here; the bench checks that the sandbox accepts the tokens before measuring.
 * @param {{ accounts: number, orders: number }} size
 */
export async function buildScaleSnapshot({ accounts, orders }) {
  // The CLI bundle's copy of the sandbox, typed by its source.
  const sandbox = /** @type {import('../../mocks/assembly/sandbox.js').Sandbox} */ (
    /** @type {unknown} */ (await createSandbox({ rateLimit: false }))
  );
  const demo = sandbox.account('demo');
  const created = await sandbox.handle({
    method: 'POST',
    url: `${sandbox.baseUrl}/api/v1/me/orders`,
    headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' },
    body: ORDER_BODY,
  });
  if ('drop' in created || created.status !== 201) throw new Error(`the template order was refused: ${JSON.stringify(created)}`);
  const templateCode = /** @type {{ data: { invoice: { invoice_code: string } } }} */ (JSON.parse(created.body)).data.invoice.invoice_code;
  await sandbox.control.pay(templateCode);
  await sandbox.control.complete(templateCode);
  const snapshot = sandbox.snapshot();
  // A snapshot's rows are plain JSON records (the sandbox checks them when it restores them).
  const tables = /** @type {Record<'accounts' | 'tokens' | 'orders' | 'invoices', Record<string, any>[]>} */ (snapshot.tables);

  /** @type {<T>(value: T | undefined, what: string) => T} */
  const found = (value, what) => {
    if (value === undefined) throw new Error(`the template snapshot has no ${what}`);
    return value;
  };
  const demoAccount = found(
    tables.accounts.find((a) => a.name === 'demo'),
    'demo account',
  );
  const demoToken = found(
    tables.tokens.find((t) => t.account_id === demoAccount.id && !t.revoked),
    'demo token',
  );
  const templateOrder = found(
    tables.orders.find((o) => o.invoice_code === templateCode),
    'template order',
  );
  const templateInvoice = found(
    tables.invoices.find((i) => i.invoice_code === templateCode),
    'template invoice',
  );
  const firstId = Math.max(...tables.accounts.map((a) => a.id)) + 1;

  /** @type {string[]} */
  const tokens = [];
  for (let i = 0; i < accounts; i++) {
    const id = firstId + i;
    const token = `topup_test_bench${String(i).padStart(3, '0')}_${createHash('sha256').update(`bench ${i}`).digest('hex').slice(0, 20)}`;
    tokens.push(token);
    tables.accounts.push({
      ...demoAccount,
      id,
      name: `bench${i}`,
      username: `bench${i}`,
      display_name: `Bench ${i}`,
      email: `bench${i}@sandbox.topup.test`,
    });
    tables.tokens.push({
      ...demoToken,
      token_sha256: createHash('sha256').update(token).digest('hex'),
      account_id: id,
      name: `Bench key ${i}`,
    });
  }

  const day = templateCode.slice(3, 11);
  const start = templateOrder.created_at - orders * 1000;
  /** @type {Map<string, string[]>} */
  const invoicesOf = new Map();
  for (let k = 0; k < orders; k++) {
    const accountIndex = k % accounts;
    const code = `INV${day}${String(k + 2).padStart(6, '0')}`;
    const at = start + k * 1000;
    const times = { created_at: at, updated_at: at + 60_000, paid_at: at + 30_000 };
    tables.orders.push({ ...templateOrder, ...times, invoice_code: code, account_id: firstId + accountIndex, completed_at: at + 60_000 });
    tables.invoices.push({
      ...templateInvoice,
      ...times,
      invoice_code: code,
      account_id: firstId + accountIndex,
      expires_at: at + 3_600_000,
    });
    if (accountIndex === 0) {
      const first = /** @type {string} */ (tokens[0]);
      const codes = invoicesOf.get(first) ?? [];
      if (codes.length < 100) codes.push(code);
      invoicesOf.set(first, codes);
    }
  }
  // Restored oldest first, the order in which the sandbox keeps them.
  tables.orders.sort((a, b) => a.created_at - b.created_at);
  tables.invoices.sort((a, b) => a.created_at - b.created_at);
  snapshot.counters = { ...snapshot.counters, invoice: orders + 2 };
  return { snapshot, tokens, invoicesOf };
}
