import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, createSandbox, type Sandbox } from '../../mocks/index.js';

/*
 * The links the sandbox hands out (invoice_url, payment_url) are answered behind msw as in process and over HTTP:
 * the handlers cover every path the sandbox serves under the intercepted origin, not only the API.
 */

interface CreatedInvoice {
  invoice_code: string;
  invoice_url: string;
  payment_url: string;
}

describe('msw handlers serve the pages the sandbox links to', () => {
  let sandbox: Sandbox;
  let server: ReturnType<typeof setupServer>;
  const base = 'https://shop.example.com';

  beforeAll(async () => {
    sandbox = await createSandbox({ rateLimit: false });
    server = setupServer(...createHandlers(sandbox, { baseUrl: base }));
    server.listen({ onUnhandledRequest: 'error' });
  });
  afterAll(() => server.close());

  async function placeOrder(payment_method: string): Promise<CreatedInvoice> {
    const created = await fetch(`${base}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...sandbox.fixtures().platform.valid_orders[0], payment_method }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { data: { invoice: CreatedInvoice } }).data.invoice;
  }

  it("answers an order's invoice_url with its page", async () => {
    const invoice = await placeOrder('invoice');
    expect(invoice.invoice_url).toBe(`${base}/user/invoice/${invoice.invoice_code}`);
    const page = await fetch(invoice.invoice_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain(`<h1>Order <code>${invoice.invoice_code}</code></h1>`);
  });

  it("answers a gateway order's payment_url: a redirect to its invoice page, which fetch follows", async () => {
    const invoice = await placeOrder('qris');
    expect(invoice.payment_url).toBe(`${base}/pay/qris/${invoice.invoice_code}`);
    const link = await fetch(invoice.payment_url, { redirect: 'manual' });
    expect(link.status).toBe(303);
    expect(new URL(link.headers.get('location')!, invoice.payment_url).href).toBe(invoice.invoice_url);
    const page = await fetch(invoice.payment_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`<h1>Order <code>${invoice.invoice_code}</code></h1>`);
  });

  it("answers unknown pages under the origin with the sandbox's own 404, not the network", async () => {
    for (const path of ['/user/invoice/INV0', '/pay/qris/INV0']) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.text(), path).toContain('<h1>Invoice not found</h1>');
    }
  });
});
