import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { expectNoAxeViolationsInBothSchemes } from '../support/axe.js';
import { browserMissing, useChromium } from '../support/browser.js';
import { focusableNames, focusedName, focusIndicator, tabThrough, tabTo } from '../support/keyboard.js';

/** Screenshots land in docs/ when TOPUP_SCREENSHOTS=1 (to update docs/sandbox.md's), else in a temp folder to look at. */
const SHOTS =
  process.env.TOPUP_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../../docs/', import.meta.url))
    : `${mkdtempSync(join(tmpdir(), 'topup-shots-'))}/`;
const ORDER = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9002 };

describe.skipIf(browserMissing !== undefined)('in a real browser (Chromium)', () => {
  const browser = useChromium();
  let sandbox: Sandbox;
  let served: HttpSandbox;

  afterEach(async () => {
    await served?.close();
  });

  async function order(options: Parameters<typeof createSandbox>[0] = {}): Promise<{ code: string; url: string }> {
    sandbox = await createSandbox(options);
    served = await startHttpSandbox(sandbox, { port: 0 });
    const created = await fetch(`${served.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ORDER),
    });
    const { invoice } = ((await created.json()) as { data: { invoice: { invoice_code: string; invoice_url: string } } }).data;
    return { code: invoice.invoice_code, url: invoice.invoice_url };
  }

  it('the invoice page: press Pay, see it paid; the API agrees', async () => {
    const { code, url } = await order();
    const page = await browser().newPage({ viewport: { width: 720, height: 640 } });
    await page.goto(url);
    await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
    await page.screenshot({ path: `${SHOTS}invoice-page.png` });
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('paid');
    await expect.poll(() => page.locator('#order-status').textContent()).toBe('processing');
    expect(await page.getByRole('button', { name: 'Fail' }).isDisabled()).toBe(true);
    const status = (await (
      await fetch(`${served.url}/api/v1/me/invoices/${code}/status`, {
        headers: { authorization: `Bearer ${sandbox.account('rich').token}` },
      })
    ).json()) as { data: { payment_status: string } };
    expect(status.data.payment_status).toBe('paid');
    await page.close();
  });

  it('follows a change made elsewhere (the CLI, a script) without a reload', async () => {
    const { code, url } = await order();
    const page = await browser().newPage();
    await page.goto(url);
    await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
    // As `topup mock expire` does it, over the control API.
    const moved = await fetch(`${served.url}/__sandbox/invoices/${code}/expire`, { method: 'POST', headers: { 'x-topup-sandbox': '1' } });
    expect(moved.status).toBe(200);
    await expect.poll(() => page.locator('#status').textContent()).toBe('expired');
    await page.close();
  });

  it('shows an auto-payment when it is due, with no other request coming in', async () => {
    // Due 3 s after the order: time enough for a loaded machine to open the page while it is still pending.
    const { url } = await order({ autoPay: { after: 3_000 } });
    const page = await browser().newPage();
    await page.goto(url);
    await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
    await expect.poll(() => page.locator('#status').textContent()).toBe('paid');
    await page.close();
  });

  it('a page on another origin cannot reset the sandbox or pay an invoice', async () => {
    const { code } = await order();
    // The attacker's page, on another port (another origin), tries both the simple and the JSON way.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><script>
        const target = ${JSON.stringify(served.url)};
        window.done = Promise.allSettled([
          fetch(target + '/__sandbox/reset', { method: 'POST', mode: 'no-cors' }),
          fetch(target + '/__sandbox/invoices/${code}/pay', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' }),
          fetch(target + '/__sandbox/invoices/${code}/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
        ]).then((results) => results.map((r) => r.status));
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const page = await browser().newPage();
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      await page.evaluate(() => (window as unknown as { done: Promise<unknown> }).done);
      expect(sandbox.store.db.invoices.get(code)?.payment_status).toBe('pending');
      expect(sandbox.store.db.orders.get(code)).toBeDefined();
      // The simple requests reached the sandbox and were refused; the JSON one never left the browser: its CORS
      // preflight got no CORS answer.
      const reached = sandbox.requests.list({ path: '/__sandbox/**' }).map((e) => `${e.method} ${e.path.replace(code, 'INV')} ${e.status}`);
      expect(reached.sort()).toEqual([
        'OPTIONS /__sandbox/invoices/INV/pay 405',
        'POST /__sandbox/invoices/INV/pay 403',
        'POST /__sandbox/reset 403',
      ]);
      await page.close();
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  });

  it('passes axe-core (WCAG 2.1 AA) in light and dark: in every status it shows, after a move, and when not found', async () => {
    const { code, url } = await order();
    const completed = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    await sandbox.control.pay(completed);
    const failed = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    await sandbox.control.fail(failed);
    const expired = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    await sandbox.control.expire(expired);
    const page = await browser().newPage({ viewport: { width: 720, height: 640 } });
    try {
      for (const [invoice, status] of [
        [code, 'pending'],
        [completed, 'paid'],
        [failed, 'failed'],
        [expired, 'expired'],
      ] as const) {
        await page.goto(`${served.url}/user/invoice/${invoice}`);
        await expect.poll(() => page.locator('#status').textContent()).toBe(status);
        // The buttons are disabled by the script once it has read the status: the page as it settles.
        await expect.poll(() => page.locator('button[data-move="pay"]').isDisabled()).toBe(status !== 'pending');
        await expectNoAxeViolationsInBothSchemes(page, `invoice page, ${status}`);
      }
      await page.goto(url);
      await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
      await page.getByRole('button', { name: 'Pay' }).click();
      await expect.poll(() => page.locator('#order-status').textContent()).toBe('processing');
      await expect.poll(() => page.locator('#message').textContent()).not.toBe('');
      await expectNoAxeViolationsInBothSchemes(page, 'invoice page, just paid with its message');
      await page.goto(`${served.url}/user/invoice/INV-NOT-HERE`);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Invoice not found');
      await expectNoAxeViolationsInBothSchemes(page, 'invoice page, not found');
    } finally {
      await page.close();
    }
    // Each axe-core run takes seconds on a loaded machine, and this makes many.
  }, 120_000);

  it('works from the keyboard alone: every button in order both ways, the focus shown, Pay with Enter, Fail with Space', async () => {
    const { code, url } = await order();
    const page = await browser().newPage({ viewport: { width: 720, height: 640 } });
    try {
      await page.goto(url);
      await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
      const stops = ['button "Pay"', 'button "Fail"', 'button "Let it expire"'];
      expect(await focusableNames(page)).toEqual(stops);
      expect(await tabThrough(page)).toEqual(stops);
      // From the end of the page back up.
      expect(await tabThrough(page, 'Shift+Tab')).toEqual([...stops].reverse());
      for (const stop of stops) {
        await tabTo(page, stop);
        expect(await focusIndicator(page)).toMatchObject({ focusVisible: true, shown: true });
      }

      await page.reload();
      await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
      await tabTo(page, 'button "Pay"');
      await page.keyboard.press('Enter');
      await expect.poll(() => sandbox.store.db.invoices.get(code)?.payment_status).toBe('paid');
      await expect.poll(() => page.locator('#status').textContent()).toBe('paid');
      // Every button is disabled now: the focus is on the message saying what happened, not lost to the page.
      await expect.poll(() => focusedName(page)).toBe('#message');
      expect(await focusIndicator(page)).toMatchObject({ shown: true });

      const deposit = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
      await page.goto(`${served.url}/user/invoice/${deposit}`);
      await expect.poll(() => page.locator('#status').textContent()).toBe('pending');
      await tabTo(page, 'button "Fail"');
      await page.keyboard.press('Space');
      await expect.poll(() => sandbox.store.db.invoices.get(deposit)?.payment_status).toBe('failed');
      await expect.poll(() => focusedName(page)).toBe('#message');
    } finally {
      await page.close();
    }
  });
});
