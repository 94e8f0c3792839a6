import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { main } from '../../src/cli/main.js';
import { expectNoAxeViolationsInBothSchemes } from '../support/axe.js';
import { browserMissing, useChromium } from '../support/browser.js';
import { focusableNames, focusedName, focusIndicator, tabThrough, tabTo } from '../support/keyboard.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';

const SHOTS =
  process.env.TOPUP_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../../docs/', import.meta.url))
    : `${mkdtempSync(join(tmpdir(), 'topup-shots-'))}/`;

describe.skipIf(browserMissing !== undefined)('the dashboard in a real browser (Chromium)', () => {
  const browser = useChromium();
  let sandbox: Sandbox;
  let served: HttpSandbox;

  afterEach(async () => {
    await served?.close();
  });

  // How soon the page shows, and how soon a request reaches the live log, are `npm run bench`'s dashboard rows (with
  // budgets), timed by the page itself: not asserted here, where a loaded machine and a cold Chromium would time them.
  it('an order created with the CLI shows in the live log, and in the invoices', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${served.url}/__sandbox/`);
    await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);

    const config = tempConfigDir();
    try {
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir, TOPUP_TOKEN: sandbox.account('rich').token } });
      const code = await main(
        ['--base-url', served.url, 'orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--yes'],
        io,
      );
      expect(code).toBe(0);
      const invoice = io.out().trim();
      const row = page.locator('#log tr', { hasText: '/api/v1/me/orders' });
      await row.first().waitFor({ timeout: 10_000 });
      await expect.poll(() => page.locator('#invoices tr', { hasText: invoice }).count()).toBe(1);
      // The detail view shows what was sent and answered.
      await row.first().click();
      await expect.poll(() => page.locator('#detail-body').textContent()).toContain('"platform_username": "BuilderBob"');
      await page.screenshot({ path: `${SHOTS}dashboard.png` });
      // A move from the dashboard, as a person would make it.
      await page.getByRole('button', { name: `Pay ${invoice}` }).click();
      await expect.poll(() => sandbox.store.db.invoices.get(invoice)?.payment_status).toBe('paid');
      // The fixtures are read when their box is first opened.
      await page.getByText('Fixtures', { exact: true }).click();
      await expect.poll(() => page.locator('#fixtures').textContent()).toContain(sandbox.account('rich').token);
    } finally {
      config.cleanup();
      await page.close();
    }
  });

  it('after a restart of the sandbox, the live log is the new run’s, with what it answered before the page reconnected', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const port = Number(new URL(served.url).port);
    const page = await browser().newPage();
    try {
      await page.goto(`${served.url}/__sandbox/`);
      for (const path of ['health', 'articles', 'catalog/payment-methods']) await fetch(`${served.url}/api/v1/${path}`);
      await expect.poll(() => page.locator('#log tr', { hasText: '/api/v1/catalog/payment-methods' }).count()).toBe(1);
      // The new run answers before it listens, so before the page's stream can reconnect: its ids 1 and 2 are below
      // the 3 the page saw last, and were skipped when a reconnecting client was told only what came after an id.
      await served.close();
      sandbox = await createSandbox();
      await sandbox.fetch('http://sandbox.test/api/v1/catalog/credit-packages');
      await sandbox.fetch('http://sandbox.test/api/v1/me/balance');
      served = await startHttpSandbox(sandbox, { port });
      await expect
        .poll(() => page.locator('#log tr', { hasText: /\/api\/v1\/(catalog\/credit-packages|me\/balance)/ }).count(), { timeout: 15_000 })
        .toBe(2);
      // The log is the new run's: the old run's requests, whose ids the new one uses again, are gone from it.
      await expect.poll(() => page.locator('#log tr', { hasText: '/api/v1/catalog/payment-methods' }).count()).toBe(0);
      expect(await page.locator('#log tr', { hasText: '/api/v1/health' }).count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('a fault added in the dashboard makes the next request fail', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const page = await browser().newPage();
    await page.goto(`${served.url}/__sandbox/`);
    await expect.poll(() => page.locator('#faults tr').textContent()).toBe('none');
    await page.getByLabel('Routes').fill('getHealth');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(() => page.locator('#faults tr').first().textContent()).toContain('getHealth');
    expect((await fetch(`${served.url}/api/v1/health`)).status).toBe(503);
    // The table counts what each rule did: it follows the live log.
    await expect.poll(() => page.locator('#faults tr td:last-child').textContent()).toBe('1 of 1');
    // A sequence: this one fires once, on the first order only.
    await page.getByLabel('Routes').fill('createOrder');
    await page.getByLabel('Times').fill('1');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(() => page.locator('#faults tr').nth(1).textContent()).toBe('erroronce503createOrder0 of 0');
    expect(sandbox.faults.config.rules[1]).toEqual({ kind: 'error', rate: 1, status: 503, routes: ['createOrder'], times: 1 });
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect.poll(() => sandbox.faults.config.rules.length).toBe(0);
    expect((await fetch(`${served.url}/api/v1/health`)).status).toBe(200);
    await page.close();
  });

  it('an invoice that pays itself (auto-pay) shows as paid with no other request made', async () => {
    sandbox = await createSandbox({ autoPay: { after: 1_500 } });
    served = await startHttpSandbox(sandbox, { port: 0 });
    const page = await browser().newPage();
    await page.goto(`${served.url}/__sandbox/`);
    await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);
    const created = await fetch(`${served.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
    });
    const invoice = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    const row = page.locator('#invoices tr', { hasText: invoice });
    await expect.poll(() => row.locator('td.status').textContent()).toBe('pending');
    // Nothing but the page itself asks from here: it looks again when the payment is due, and that look settles it.
    await expect.poll(() => row.locator('td.status').textContent()).toBe('paid');
    expect(sandbox.requests.count({ path: '/api/**' })).toBe(1);
    await page.close();
  });

  it('with a control secret it asks for it once, keeps it for the tab, and follows the live log with it', async () => {
    const secret = 'dashboard-secret-123';
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0, controlSecret: secret });
    const page = await browser().newPage();
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      // A wrong answer first: the page says so and asks again.
      void dialog.accept(asked.length === 1 ? 'wrong' : secret);
    });
    try {
      await page.goto(`${served.url}/__sandbox/`);
      await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);
      expect(asked).toEqual(['This sandbox needs its control secret:', 'That control secret is wrong. The sandbox control secret:']);
      expect(await page.evaluate(() => sessionStorage.getItem('topup-sandbox-control-secret'))).toBe(secret);
      // The live log arrives over the secret-carrying stream (EventSource cannot send it).
      await fetch(`${served.url}/api/v1/health?from=outside`);
      await page.locator('#log tr', { hasText: '/api/v1/health' }).first().waitFor({ timeout: 10_000 });
      // A change from the page carries it too, and the page reloaded asks no more.
      await page.reload();
      await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);
      expect(asked).toHaveLength(2);
      await page.locator('#advance').fill('60');
      await page.locator('#clock-form button[type=submit]').click();
      await expect.poll(() => sandbox.now() - Date.now()).toBeGreaterThan(50_000);
    } finally {
      await page.close();
    }
  });

  it('the pages break no rule of their CSP: their inline script and style are allowed by hash, and run', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    await sandbox.control.pay(code);
    // What only the script does: the dashboard fills its tables; the invoice page disables the buttons of a paid
    // invoice (they are served enabled).
    for (const [path, ran] of [
      ['/__sandbox/', '#accounts tr'],
      [`/user/invoice/${code}`, 'button[data-move="pay"]:disabled'],
    ] as const) {
      const page = await browser().newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(`${served.url}${path}`);
      await page.locator(ran).first().waitFor();
      // The style sheet applies: a browser's own margin for <body> is 8px.
      expect(await page.evaluate(() => getComputedStyle(document.body).marginTop), path).toBe('0px');
      expect(refused, path).toEqual([]);
      await page.close();
    }
  });

  it('passes axe-core (WCAG 2.1 AA) in light and dark: empty, with requests and one opened, after a move, with a fault', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await page.goto(`${served.url}/__sandbox/`);
      await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);
      await expectNoAxeViolationsInBothSchemes(page, 'dashboard, nothing asked yet');

      const invoice = await createOrder(served.url, sandbox.account('rich').token);
      await page.locator('#log tr', { hasText: '/api/v1/me/orders' }).first().click();
      await expect.poll(() => page.locator('#detail-body').textContent()).toContain('BuilderBob');
      // A screen reader hears the newest request: the table changes too often to be read out.
      await expect.poll(() => page.locator('#log-live').textContent()).toBe('Request POST /api/v1/me/orders: answered 201.');
      await page.getByText('Fixtures', { exact: true }).click();
      await expect.poll(() => page.locator('#fixtures').textContent()).toContain('rich');
      await expectNoAxeViolationsInBothSchemes(page, 'dashboard, with requests, one opened, the fixtures shown');

      await page.getByRole('button', { name: `Pay ${invoice}` }).click();
      await expect.poll(() => page.locator('#invoices tr', { hasText: invoice }).locator('td.status').textContent()).toBe('paid');
      await expect.poll(() => page.locator('#toast').textContent()).not.toBe('');
      await expectNoAxeViolationsInBothSchemes(page, 'dashboard, after paying an invoice');

      await page.getByLabel('Routes').fill('getHealth');
      await page.getByRole('button', { name: 'Add fault' }).click();
      await expect.poll(() => page.locator('#faults tr').first().textContent()).toContain('getHealth');
      await expectNoAxeViolationsInBothSchemes(page, 'dashboard, with a fault');
    } finally {
      await page.close();
    }
    // Each axe-core run takes seconds on a loaded machine, and this makes many.
  }, 120_000);

  it('works from the keyboard alone: every control in order, the focus shown, and each action done with keys', async () => {
    sandbox = await createSandbox();
    served = await startHttpSandbox(sandbox, { port: 0 });
    const page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await page.goto(`${served.url}/__sandbox/`);
      await expect.poll(() => page.locator('#accounts tr').count()).toBe(sandbox.fixtures().accounts.length);
      const invoice = await createOrder(served.url, sandbox.account('rich').token);
      await expect.poll(() => page.locator('#invoices tr', { hasText: invoice }).count()).toBe(1);
      const orderRow = await page.locator('#log tr', { hasText: '/api/v1/me/orders' }).first().getAttribute('data-id');

      // Every control is reached, in the order of the page, forwards and back; each shows that it has the focus.
      const stops = await focusableNames(page);
      expect(stops.slice(0, 7)).toEqual(['#advance', 'button "Advance"', '#reset', '#f-method', '#f-status', '#f-path', '#clear-log']);
      expect(stops).toEqual(
        expect.arrayContaining([`log row ${orderRow}`, '#detail', `Pay ${invoice}`, '#fault-kind', 'summary "Fixtures"']),
      );
      expect(await tabThrough(page)).toEqual(stops);
      expect(await tabThrough(page, 'Shift+Tab')).toEqual([...stops].reverse());
      for (const stop of stops) {
        await tabTo(page, stop);
        expect({ stop, ...(await focusIndicator(page)) }).toMatchObject({ stop, focusVisible: true, shown: true });
      }

      // A request opened with Enter; the focus stays on its row though the log is redrawn.
      await page.reload();
      await expect.poll(() => page.locator('#invoices tr', { hasText: invoice }).count()).toBe(1);
      await tabTo(page, `log row ${orderRow}`);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#detail-body').textContent()).toContain('BuilderBob');
      expect(await focusedName(page)).toBe(`log row ${orderRow}`);
      // The detail pane takes the focus next, so the keyboard can scroll it.
      await page.keyboard.press('Tab');
      expect(await focusedName(page)).toBe('#detail');

      // Pay with Enter: the row is rebuilt, and the focus moves to its next action rather than back to the top.
      await tabTo(page, `Pay ${invoice}`);
      await page.keyboard.press('Enter');
      await expect.poll(() => sandbox.store.db.invoices.get(invoice)?.payment_status).toBe('paid');
      await expect.poll(() => focusedName(page)).toBe(`Complete ${invoice}`);
      // A refresh that changes nothing in the table (every request brings one) leaves its buttons as they are: one
      // replaced between Space's press and its release would never be clicked.
      const complete = await page.evaluateHandle(() => document.activeElement);
      const logged = await page.locator('#log tr').count();
      await fetch(`${served.url}/api/v1/health`);
      await expect.poll(() => page.locator('#log tr').count()).toBeGreaterThan(logged);
      await page.waitForTimeout(300);
      expect(await complete.evaluate((button) => button?.isConnected === true && document.activeElement === button)).toBe(true);
      await page.keyboard.press('Space');
      await expect.poll(() => sandbox.store.db.orders.get(invoice)?.status).toBe('completed');

      // A fault typed in and added with Enter.
      await tabTo(page, '#fault-routes');
      await page.keyboard.type('getHealth');
      await page.keyboard.press('Enter');
      await expect.poll(() => sandbox.faults.config.rules).toEqual([expect.objectContaining({ routes: ['getHealth'] })]);

      // The clock moved an hour, with the field and Enter.
      const before = sandbox.now();
      await tabTo(page, '#advance');
      await page.keyboard.press('Enter');
      await expect.poll(() => sandbox.now() - before).toBeGreaterThanOrEqual(3_600_000);

      // The fixtures opened with Enter, and their pane takes the focus.
      await tabTo(page, 'summary "Fixtures"');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#fixtures').textContent()).toContain('rich');
      await page.keyboard.press('Tab');
      expect(await focusedName(page)).toBe('#fixtures');
    } finally {
      await page.close();
    }
  }, 120_000);
});

/** An order of the rich account's, made over the API as a bot makes it; its invoice code. */
async function createOrder(url: string, token: string): Promise<string> {
  const created = await fetch(`${url}/api/v1/me/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
  });
  return ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
}
