import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, createSandbox, openPersistentSandbox } from '../../mocks/index.js';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import {
  accounts,
  CLOCK_START,
  dataOf,
  fakeClock,
  SIMPLE_ORDER,
  transports,
  useSandboxes,
  type TestSandbox,
} from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const AFTER_MS = 5_000;

async function newOrder(t: TestSandbox, token = rich.token): Promise<string> {
  return dataOf(await t.request('POST', '/api/v1/me/orders', { token, body: SIMPLE_ORDER }), 201).invoice.invoice_code;
}

/** What a bot polling the invoice status sees. */
async function statusOf(t: TestSandbox, code: string, token = rich.token) {
  const status = dataOf(await t.request('GET', `/api/v1/me/invoices/${code}/status`, { token }));
  return { payment: status.payment_status as string, order: status.order_status as string | null, paidAt: status.paid_at as string | null };
}

describe.each(transports)('auto-pay (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('pays a new order once the delay has passed on the sandbox clock, and not before', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const code = await newOrder(t);
    t.clock.advance(AFTER_MS - 1);
    expect(await statusOf(t, code)).toEqual({ payment: 'pending', order: 'pending', paidAt: null });
    t.clock.advance(1);
    expect(await statusOf(t, code)).toEqual({ payment: 'paid', order: 'processing', paidAt: '2026-03-02 10:00:05' });
  });

  it('stamps the payment with the moment it was due, not the moment it was noticed', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const code = await newOrder(t);
    t.clock.advance(20 * 60_000);
    expect(await statusOf(t, code)).toEqual({ payment: 'paid', order: 'processing', paidAt: '2026-03-02 10:00:05' });
  });

  it('pays deposits too, crediting the balance', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const { invoice_code: code } = await t.sandbox.control.deposit({ account: 'demo', amount: 50_000 });
    t.clock.advance(AFTER_MS);
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${code}`, { token: demo.token })).deposit.payment_status).toBe('paid');
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: demo.token })).balance).toBe(50_000);
  });

  it.each(['expire', 'fail'] as const)('a control call made first wins (%s)', async (move) => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const code = await newOrder(t);
    t.clock.advance(AFTER_MS - 1);
    await t.sandbox.control[move](code);
    t.clock.advance(60_000);
    expect(await statusOf(t, code)).toMatchObject({ payment: move === 'expire' ? 'expired' : 'failed', order: 'cancelled' });
  });

  it('a control call made after the delay finds the invoice paid, even when no request came in between', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const code = await newOrder(t);
    t.clock.advance(AFTER_MS);
    const refused = t.sandbox.control.expire(code);
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(await statusOf(t, code)).toMatchObject({ payment: 'paid', order: 'processing' });
  });

  it('the sandbox clock advance (POST /__sandbox/clock) reaches it', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS } });
    const code = await newOrder(t, demo.token);
    dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: AFTER_MS / 1000 } }));
    expect(await statusOf(t, code, demo.token)).toEqual({ payment: 'paid', order: 'processing', paidAt: '2026-03-02 10:00:05' });
  });

  it('an invoice that expires first is not paid', async () => {
    const t = await sandbox(transport, { autoPay: { after: AFTER_MS }, autoExpire: { after: AFTER_MS - 1_000 } });
    const code = await newOrder(t);
    t.clock.advance(AFTER_MS);
    expect(await statusOf(t, code)).toEqual({ payment: 'expired', order: 'cancelled', paidAt: null });
  });

  it('without the option nothing pays itself', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    t.clock.advance(INVOICE_TTL_SECONDS * 1000 - 1);
    expect(await statusOf(t, code)).toMatchObject({ payment: 'pending', order: 'pending' });
  });
});

describe.each(transports)('auto-expire (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('expires a new invoice after the delay instead of the usual TTL, and says so in expires_at', async () => {
    const t = await sandbox(transport, { autoExpire: { after: 10_000 } });
    const created = dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER }), 201);
    const code = created.invoice.invoice_code;
    expect(created.invoice.expires_at).toBe('2026-03-02 10:00:10');
    const { invoice_code: deposit } = await t.sandbox.control.deposit({ account: 'rich', amount: 50_000 });
    t.clock.advance(9_999);
    expect(await statusOf(t, code)).toMatchObject({ payment: 'pending' });
    t.clock.advance(1);
    expect(await statusOf(t, code)).toEqual({ payment: 'expired', order: 'cancelled', paidAt: null });
    expect(dataOf(await t.request('GET', `/api/v1/me/deposits/${deposit}`, { token: rich.token })).deposit.payment_status).toBe('expired');
  });

  it('a payment made first wins', async () => {
    const t = await sandbox(transport, { autoExpire: { after: 10_000 } });
    const code = await newOrder(t);
    await t.sandbox.control.pay(code);
    t.clock.advance(60_000);
    expect(await statusOf(t, code)).toMatchObject({ payment: 'paid', order: 'processing' });
  });
});

describe('auto-pay with fake timers and no injected clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('follows Date.now', async () => {
    vi.useFakeTimers({ now: CLOCK_START, toFake: ['Date'] });
    const sandbox = await createSandbox({ autoPay: { after: AFTER_MS } });
    const headers = { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' };
    const created = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify(SIMPLE_ORDER),
    });
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    const status = async () =>
      (
        (await (await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/invoices/${code}/status`, { headers })).json()) as {
          data: { payment_status: string };
        }
      ).data.payment_status;
    vi.advanceTimersByTime(AFTER_MS - 1);
    expect(await status()).toBe('pending');
    vi.advanceTimersByTime(1);
    expect(await status()).toBe('paid');
  });
});

describe('createSandbox refuses a bad delay', () => {
  it.each([{ after: -1 }, { after: 1.5 }, { after: Number.NaN }])('autoPay %j', async (autoPay) => {
    await expect(createSandbox({ autoPay })).rejects.toThrow('createSandbox: autoPay.after is a whole number of milliseconds, 0 or more.');
  });
});

describe('auto-pay on a state file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'topup-auto-pay-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('commits the payment: after a restart without auto-pay, the invoice is still paid', async () => {
    const file = join(dir, 'state.json');
    const clock = fakeClock();
    const first = await openPersistentSandbox(file, { now: clock.now, autoPay: { after: AFTER_MS } });
    const headers = { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' };
    const { fetch, baseUrl } = first.sandbox;
    const created = await fetch(`${baseUrl}/api/v1/me/orders`, { method: 'POST', headers, body: JSON.stringify(SIMPLE_ORDER) });
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    clock.advance(AFTER_MS);
    // The bot's poll is what settles it; nothing else is asked before the restart.
    const polled = await fetch(`${baseUrl}/api/v1/me/invoices/${code}/status`, { headers });
    expect(((await polled.json()) as { data: { payment_status: string } }).data.payment_status).toBe('paid');
    await first.close();

    const second = await openPersistentSandbox(file, { now: clock.now });
    try {
      expect(second.sandbox.store.db.invoices.get(code)).toMatchObject({ payment_status: 'paid', paid_at: CLOCK_START + AFTER_MS });
      expect(second.sandbox.store.db.orders.get(code)).toMatchObject({ status: 'processing' });
    } finally {
      await second.close();
    }
  });

  it('an invoice left pending at shutdown is paid after a restart with auto-pay, stamped when it was due', async () => {
    const file = join(dir, 'state.json');
    const clock = fakeClock();
    const first = await openPersistentSandbox(file, { now: clock.now });
    const headers = { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' };
    const created = await first.sandbox.fetch(`${first.sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify(SIMPLE_ORDER),
    });
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    await first.close();

    clock.advance(60_000);
    const second = await openPersistentSandbox(file, { now: clock.now, autoPay: { after: AFTER_MS } });
    try {
      await second.sandbox.fetch(`${second.sandbox.baseUrl}/api/v1/me/invoices/${code}/status`, { headers });
      expect(second.sandbox.store.db.invoices.get(code)).toMatchObject({ payment_status: 'paid', paid_at: CLOCK_START + AFTER_MS });
    } finally {
      await second.close();
    }
  });
});
