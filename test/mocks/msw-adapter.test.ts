import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, createSandbox, type Sandbox } from '../../mocks/index.js';

/** The example of docs/testing-your-bot.md for bot authors: the sandbox behind msw, the bot's own fetch calls intercepted. */
describe('msw handlers (docs/testing-your-bot.md example)', () => {
  let sandbox: Sandbox;
  let server: ReturnType<typeof setupServer>;
  const base = 'https://shop.example.com';

  beforeAll(async () => {
    sandbox = await createSandbox({ rateLimit: false });
    server = setupServer(...createHandlers(sandbox, { baseUrl: base }));
    server.listen({ onUnhandledRequest: 'error' });
  });
  afterAll(() => server.close());

  it("serves the bot's real fetch calls from the sandbox state, and control moves show up", async () => {
    const rich = sandbox.account('rich');
    const body = sandbox.fixtures().platform.valid_orders[0]!;
    const created = await fetch(`${base}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    expect(sandbox.store.db.orders.get(code)?.status).toBe('pending');

    await sandbox.control.pay(code);
    const status = await fetch(`${base}/api/v1/me/invoices/${code}/status`, { headers: { authorization: `Bearer ${rich.token}` } });
    expect(((await status.json()) as { data: { payment_status: string; is_final: boolean } }).data).toMatchObject({
      payment_status: 'paid',
      is_final: true,
    });
  });

  it('answers unknown paths under the intercepted origin with the 404 envelope, not the network', async () => {
    const response = await fetch(`${base}/api/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      message: 'No endpoint /api/v1/nothing-here exists.',
      error: { code: 'ROUTE_NOT_FOUND' },
    });
  });

  it("names its sandbox in every answer (X-Topup-Sandbox-Instance), as sandbox.fetch's and the served sandbox's do", async () => {
    const instances = await Promise.all(
      ['/api/v1/health', '/api/v1/nothing-here'].map(async (path) =>
        (await fetch(`${base}${path}`)).headers.get('x-topup-sandbox-instance'),
      ),
    );
    expect(instances[0]).toMatch(/^msw-[0-9a-z]{10}$/);
    expect(instances[1]).toBe(instances[0]);
    const direct = (await sandbox.fetch(`${sandbox.baseUrl}/api/v1/health`)).headers.get('x-topup-sandbox-instance');
    expect(direct).toMatch(/^in-process-/);
  });

  it('leaves other origins alone (msw errors on them, as configured)', async () => {
    await expect(fetch('https://elsewhere.example.com/api/v1/health')).rejects.toThrow();
  });

  it('turns an injected dropped connection into a network error', async () => {
    const dropping = { ...sandbox, handle: async () => ({ drop: true as const }) };
    server.use(...createHandlers(dropping, { baseUrl: base }));
    await expect(fetch(`${base}/api/v1/health`)).rejects.toThrow(TypeError);
    server.resetHandlers();
  });
});

describe('sandbox state through @msw/data queries (docs/testing-your-bot.md)', () => {
  it("lets a test query the sandbox's collections with @msw/data's own API", async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const rich = sandbox.account('rich');
    for (const body of sandbox.fixtures().platform.valid_orders.slice(0, 3)) {
      const response = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
    }
    const first = sandbox.store.db.orders.all()[0]!;
    await sandbox.control.pay(first.invoice_code);

    const { orders } = sandbox.store.db;
    const pending = orders.collection.findMany((q) => q.where({ status: 'pending' }));
    const big = orders.collection.findMany((q) => q.where({ credit_amount: (n) => n >= 1_000 }));
    expect(pending.map((o) => o.invoice_code)).toEqual(
      orders
        .all()
        .slice(1)
        .map((o) => o.invoice_code),
    );
    expect(orders.collection.findFirst((q) => q.where({ invoice_code: first.invoice_code }))?.status).toBe('processing');
    expect(big.map((o) => o.platform_pass_id)).toEqual([9002, 9004]);
    // Read-only: a write would bypass the indexes and the state journal.
    // @ts-expect-error: the collection offers no update
    expect(orders.collection.update).toBeUndefined();
  });
});
