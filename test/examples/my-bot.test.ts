import { describe, expect, it } from 'vitest';
import { createClient } from 'topup';
import { createSandbox, expectRequests, magicOrders, type SandboxOptions } from 'topup/mocks';

const ORDER = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

/** One clock for the sandbox and the client: a sleep moves it on, so every wait costs no real time. */
function fakeTime(start = Date.UTC(2026, 0, 5, 9, 0)) {
  let now = start;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

/** A sandbox without rate limits (its fetch tells the client not to pace: the fast path) whose invoices pay themselves after 5 s. */
async function shop(options: SandboxOptions = {}) {
  const time = fakeTime();
  const sandbox = await createSandbox({ rateLimit: false, now: time.now, autoPay: { after: 5_000 }, ...options });
  const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch, clock: time });
  return { sandbox, client, time };
}

describe('my bot', () => {
  it('orders, and sees the invoice paid when the customer pays (auto-pay after 5 s)', async () => {
    const { client } = await shop();
    const order = await client.orders.create(ORDER);
    expect(order.invoice.payment_status).toBe('pending');
    const status = await client.invoices.wait(order.invoice.invoice_code);
    expect(status.payment_status).toBe('paid');
  });

  it('tells the customer when a paid order fails and is refunded (a magic value)', async () => {
    const { client } = await shop();
    const order = await client.orders.create(magicOrders.order_refunded);
    const status = await client.invoices.wait(order.invoice.invoice_code);
    expect(status.payment_status).toBe('refunded');
  });

  it('retries a 503 once, with the same Idempotency-Key, and makes one order (a fault sequence)', async () => {
    const { sandbox, client } = await shop({
      faults: { rules: [{ kind: 'error', status: 503, retry_after: 1, times: 1, routes: ['createOrder'] }] },
    });
    await client.orders.create(ORDER);
    expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).toHaveCount(2).toShareIdempotencyKey();
    expect((await client.orders.list()).orders).toHaveLength(1);
  });

  it('takes 12 orders in a row without waiting on rate limits', async () => {
    const { sandbox, client, time } = await shop();
    const startedAt = time.now();
    for (let i = 0; i < 12; i++) await client.orders.create({ ...ORDER, client_reference: `burst-${i}` });
    expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).toHaveCount(12).toAllHaveStatus(201);
    // Paced, the client would have slept a minute before the 11th.
    expect(time.now()).toBe(startedAt);
  });
});
