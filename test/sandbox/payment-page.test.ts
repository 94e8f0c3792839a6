import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';

/*
 * A gateway order's payment_url (`/pay/{method}/{code}`) is a link the bot sends its user: on the sandbox it leads to
 * that invoice's hosted page, in process and over HTTP, with no token, and with the invoice page's Host rule.
 */

interface CreatedInvoice {
  invoice_code: string;
  invoice_url: string;
  payment_url: string;
  payment_method: string;
}

let served: HttpSandbox | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** How a test reaches a sandbox: its fetch and the origin it answers under. */
interface Transport {
  sandbox: Sandbox;
  fetch: typeof globalThis.fetch;
  base: string;
}

const transports: Array<{ name: string; open: () => Promise<Transport> }> = [
  {
    name: 'in process (sandbox.fetch)',
    open: async () => {
      const sandbox = await createSandbox({ rateLimit: false });
      return { sandbox, fetch: sandbox.fetch, base: sandbox.baseUrl };
    },
  },
  {
    name: 'over HTTP (startHttpSandbox)',
    open: async () => {
      const sandbox = await createSandbox({ rateLimit: false });
      served = await startHttpSandbox(sandbox, { port: 0 });
      return { sandbox, fetch: globalThis.fetch, base: served.url };
    },
  },
];

/** The seed's gateway methods, as the catalog lists them. */
async function gatewayMethods(t: Transport): Promise<string[]> {
  const answer = await t.fetch(`${t.base}/api/v1/catalog/payment-methods`);
  const { payment_methods } = ((await answer.json()) as { data: { payment_methods: Array<{ code: string; type: string }> } }).data;
  return payment_methods.filter((m) => m.type === 'gateway').map((m) => m.code);
}

async function placeOrder(t: Transport, payment_method: string): Promise<CreatedInvoice> {
  const answer = await t.fetch(`${t.base}/api/v1/me/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.sandbox.account('rich').token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...t.sandbox.fixtures().platform.valid_orders[0], payment_method }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { data: { invoice: CreatedInvoice } }).data.invoice;
}

describe.each(transports)('the payment_url of a gateway order, $name', ({ open }) => {
  it('leads to the invoice page of that order (303 to its path), which names the code; no token needed', async () => {
    const t = await open();
    const methods = await gatewayMethods(t);
    expect(methods).toEqual(expect.arrayContaining(['qris', 'bank_transfer']));
    for (const method of methods) {
      const invoice = await placeOrder(t, method);
      expect(invoice.payment_method).toBe(method);
      expect(invoice.payment_url).toBe(`${t.base}/pay/${method}/${invoice.invoice_code}`);

      const link = await t.fetch(invoice.payment_url, { redirect: 'manual' });
      expect(link.status, method).toBe(303);
      // A path, not an origin: nothing in it came from the request's Host.
      const location = link.headers.get('location');
      expect(location).toBe(`/user/invoice/${invoice.invoice_code}`);
      const target = new URL(location!, invoice.payment_url).href;
      expect(target).toBe(invoice.invoice_url);

      const page = await t.fetch(target);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain(`<h1>Order <code>${invoice.invoice_code}</code></h1>`);

      const head = await t.fetch(invoice.payment_url, { method: 'HEAD', redirect: 'manual' });
      expect(head.status).toBe(303);
      expect(head.headers.get('location')).toBe(location);
    }
  });

  it("an unknown code, a method that is not the invoice's, or an invoice without a payment link is the invoice page's 404", async () => {
    const t = await open();
    const qris = await placeOrder(t, 'qris');
    const byInvoice = await placeOrder(t, 'invoice');
    expect(byInvoice.payment_url).toBe('');
    const unknownInvoicePage = await t.fetch(`${t.base}/user/invoice/INV0`);
    expect(unknownInvoicePage.status).toBe(404);
    for (const path of [
      '/pay/qris/INV0',
      `/pay/bank_transfer/${qris.invoice_code}`,
      `/pay/invoice/${byInvoice.invoice_code}`,
      `/pay/balance/${qris.invoice_code}`,
      `/pay/qris/${qris.invoice_code}/more`,
      `/pay/qris`,
      `/pay/${qris.invoice_code}`,
    ]) {
      const answer = await t.fetch(`${t.base}${path}`, { redirect: 'manual' });
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('content-type'), path).toBe(unknownInvoicePage.headers.get('content-type'));
      expect(answer.headers.get('location'), path).toBeNull();
      expect(await answer.text(), path).toContain('<h1>Invoice not found</h1>');
    }
  });

  it('escapes what was asked in its 404, and answers only GET and HEAD', async () => {
    const t = await open();
    const qris = await placeOrder(t, 'qris');
    const page = await t.fetch(`${t.base}/pay/%3Cb%3Ex%3C%2Fb%3E/%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>x');
    expect((await t.fetch(`${t.base}/pay/qris/%E0%A4%A`)).status).toBe(404);
    const posted = await t.fetch(qris.payment_url, { method: 'POST', redirect: 'manual' });
    expect(posted.status).toBe(404);
    expect(await posted.json()).toMatchObject({ success: false, error: { code: 'ROUTE_NOT_FOUND' } });
  });
});

describe('the payment_url over HTTP, as a browser opens it', () => {
  it('following the link ends on the invoice page', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const invoice = await placeOrder({ sandbox, fetch: globalThis.fetch, base: served.url }, 'qris');
    const page = await fetch(invoice.payment_url);
    expect(page.redirected).toBe(true);
    expect(page.url).toBe(invoice.invoice_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`<h1>Order <code>${invoice.invoice_code}</code></h1>`);
  });
});

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** One request as raw bytes, Host and all as given (test/security/host.test.ts). */
function raw(url: string, method: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const head = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), 'connection: close'];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const end = text.indexOf('\r\n\r\n');
      resolve({ status, head: text.slice(0, end), body: text.slice(end + 4) });
    });
  });
}

describe('the payment link and the Host rule of the invoice page', () => {
  it('refuses a foreign Host (DNS rebinding) and answers on loopback, its Location never naming the Host', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const { invoice_code: code } = await placeOrder({ sandbox, fetch: globalThis.fetch, base: served.url }, 'qris');
    const port = new URL(served.url).port;
    const path = `/pay/qris/${code}`;

    const refused = await raw(served.url, 'GET', path, { host: `evil.example:${port}` });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: { code: 'HOST_NOT_ALLOWED' } });
    expect(refused.head).not.toMatch(/^location:/im);
    expect(`${refused.head}${refused.body}`).not.toContain(code);

    const shown = await raw(served.url, 'GET', path, { host: `localhost:${port}` });
    expect(shown.status).toBe(303);
    expect(shown.head).toMatch(new RegExp(`^location: /user/invoice/${code}\\r?$`, 'im'));
    expect(shown.head).not.toContain('localhost');
  });

  it('answers under a name given with allowedHosts, with the same relative Location', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    served = await startHttpSandbox(sandbox, { port: 0, allowedHosts: ['sandbox.test'] });
    const { invoice_code: code } = await placeOrder({ sandbox, fetch: globalThis.fetch, base: served.url }, 'bank_transfer');
    const shown = await raw(served.url, 'GET', `/pay/bank_transfer/${code}`, { host: 'sandbox.test:8080' });
    expect(shown.status).toBe(303);
    expect(shown.head).toMatch(new RegExp(`^location: /user/invoice/${code}\\r?$`, 'im'));
  });
});
