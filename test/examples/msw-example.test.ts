import { afterAll, expect, it } from 'vitest';
// The msw example of docs/testing-your-bot.md ("In your own tests (msw)") and the @msw/data queries after it, as the
// guide shows them: test/docs/examples.test.ts checks that it shows both word for word.
import { setupServer } from 'msw/node';
import { createSandbox, createHandlers } from 'topup/mocks';

const sandbox = await createSandbox({ rateLimit: false });
const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://shop.example.com' }));
server.listen({ onUnhandledRequest: 'error' });

// your bot calls https://shop.example.com/api/v1/... as usual; here, one order as a bot places it:
const rich = sandbox.account('rich');
const created = await fetch('https://shop.example.com/api/v1/me/orders', {
  method: 'POST',
  headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
  body: JSON.stringify(sandbox.fixtures().platform.valid_orders[0]),
});
const { data } = (await created.json()) as { data: { invoice: { invoice_code: string } } };
const code = data.invoice.invoice_code;
// ...then assert on the sandbox's state, and move it:
await sandbox.control.pay(code);

const { orders } = sandbox.store.db;
orders.collection.findMany((q) => q.where({ status: 'pending' }));
orders.collection.findFirst((q) => q.where({ invoice_code: code }));
orders.get(code); // indexed lookup

// ---------------------------------------------------------------------------------------------------------------------
afterAll(() => server.close());

it("the guide's msw example runs as shown: the bot's order, intercepted, is the sandbox's, and the control move shows", () => {
  expect(created.status).toBe(201);
  expect(sandbox.store.db.invoices.get(code)?.payment_status).toBe('paid');
  expect(orders.get(code)?.status).toBe('processing');
  expect(rich.name).toBe('rich');
});
