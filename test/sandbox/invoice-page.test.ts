import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';

let served: HttpSandbox | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const ORDER = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9004 };

describe('the hosted invoice page (invoice_url)', () => {
  it('serves the invoice as a page: amount, what was ordered, status, expiry, the sandbox banner and the buttons', async () => {
    const sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const created = await fetch(`${served.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ORDER),
    });
    const { invoice } = ((await created.json()) as { data: { invoice: { invoice_url: string; invoice_code: string } } }).data;
    expect(invoice.invoice_url).toBe(`${served.url}/user/invoice/${invoice.invoice_code}`);
    const page = await fetch(invoice.invoice_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain(`<h1>Order <code>${invoice.invoice_code}</code></h1>`);
    expect(html).toContain('<dd class="amount">Rp 648.000</dd>');
    expect(html).toContain('6,000 credits (game pass 9004) for BuilderBob');
    expect(html).toMatch(/<span id="status" class="status" data-status="pending" aria-live="polite">pending<\/span>/);
    expect(html).toContain('Sandbox: no real money moves.');
    for (const label of ['Pay', 'Fail', 'Let it expire'])
      expect(html).toMatch(new RegExp(`<button type="button" data-move="\\w+"[^>]*>${label}</button>`));
  });

  it("its data comes from the control API, which the page's buttons drive", async () => {
    const sandbox = await createSandbox();
    const code = (await sandbox.control.deposit({ amount: 75_000, account: 'broke' })).invoice_code;
    const read = async () =>
      (await (await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/invoices/${code}`)).json()) as {
        data: { invoice: { type: string; amount: number; payment_status: string; order: unknown } };
      };
    expect((await read()).data.invoice).toMatchObject({ type: 'deposit', amount: 75_000, payment_status: 'pending', order: null });
    await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/invoices/${code}/pay`, { method: 'POST', headers: { 'x-topup-sandbox': '1' } });
    expect((await read()).data.invoice.payment_status).toBe('paid');
    const html = await (await sandbox.fetch(`${sandbox.baseUrl}/user/invoice/${code}`)).text();
    expect(html).toContain('<h1>Deposit <code>');
    expect(html).toContain('data-status="paid"');
    expect((await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/invoices/INV0`)).status).toBe(404);
  });

  it('an unknown code is a 404 page, with what was asked escaped', async () => {
    const sandbox = await createSandbox();
    const page = await sandbox.fetch(`${sandbox.baseUrl}/user/invoice/%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>Invoice not found</h1>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
    expect((await sandbox.fetch(`${sandbox.baseUrl}/user/invoice/%E0%A4%A`)).status).toBe(404);
  });
});

describe('state over HTTP (what the dashboard reads)', () => {
  it('accounts, invoices, orders, deposits (newest first, filtered) and the clock', async () => {
    const sandbox = await createSandbox({ now: () => Date.UTC(2026, 10, 24, 12) });
    const get = async (path: string) => ((await (await sandbox.fetch(`${sandbox.baseUrl}${path}`)).json()) as { data: any }).data;
    await sandbox.control.deposit({ amount: 50_000, account: 'broke' });
    await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ORDER),
    });
    expect((await get('/__sandbox/accounts')).accounts.map((a: { name: string; mode: string }) => `${a.name} ${a.mode}`)).toEqual([
      'demo sandbox',
      'rich production',
      'broke production',
      'unlinked production',
      'dual production',
      'dual sandbox',
    ]);
    expect((await get('/__sandbox/invoices')).invoices.map((i: { type: string; account: string }) => `${i.type} ${i.account}`)).toEqual([
      'order rich',
      'deposit broke',
    ]);
    expect((await get('/__sandbox/orders?account=rich&status=pending')).orders).toHaveLength(1);
    expect((await get('/__sandbox/orders?account=broke')).orders).toHaveLength(0);
    expect((await get('/__sandbox/deposits?limit=1')).deposits.map((d: { account: string }) => d.account)).toEqual(['broke']);
    expect((await get('/__sandbox/invoices?since=2099-01-01T00:00:00Z')).invoices).toEqual([]);
    expect((await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/invoices?since=soon`)).status).toBe(422);
    // A filter that is none is refused, naming it, rather than list everything or nothing by mistake.
    for (const [query, field, words] of [
      ['/__sandbox/orders?acount=rich', 'acount', 'not acount'],
      ['/__sandbox/orders?account=nobody', 'account', 'the accounts are demo, rich, broke, unlinked, dual, dual'],
      ['/__sandbox/orders?account=Rich', 'account', 'No account is named Rich'],
      ['/__sandbox/invoices?status=bogus', 'status', 'status is one of pending, paid, expired, failed, refunded, processing'],
    ] as const) {
      const answer = await sandbox.fetch(`${sandbox.baseUrl}${query}`);
      const body = (await answer.json()) as { message: string; error: { fields: string[] } };
      expect([answer.status, body.error.fields], query).toEqual([422, [field]]);
      expect(body.message, query).toContain(words);
    }
    expect((await get('/__sandbox/invoices?status=paid')).invoices).toEqual([]);
    expect(await get('/__sandbox/clock')).toMatchObject({ now: '2026-11-24T12:00:00.000Z' });
  });
});
