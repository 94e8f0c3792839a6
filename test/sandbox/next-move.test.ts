import { describe, expect, it } from 'vitest';
import { INVOICE_EXPIRES_AFTER_MS, magicOrders } from '../../mocks/index.js';
import { nextMoveAtAll } from '../../mocks/rules/timed-moves.js';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import { accounts, CLOCK_START, dataOf, SIMPLE_ORDER, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

/*
 * `next_move_at` (GET/POST /__sandbox/clock) is the sandbox's next move: something it will still do by itself, never
 * an expiry or auto-payment of an invoice already decided otherwise, never a time before `now`, null when none waits.
 */

const { rich } = await accounts();
const iso = (ms: number) => new Date(ms).toISOString();

async function newOrder(t: TestSandbox, body: object = SIMPLE_ORDER): Promise<string> {
  return dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body }), 201).invoice.invoice_code;
}

async function clock(t: TestSandbox): Promise<{ now: string; next_move_at: string | null }> {
  return dataOf(await t.request('GET', '/__sandbox/clock'));
}

async function paymentOf(t: TestSandbox, code: string): Promise<string> {
  return dataOf(await t.request('GET', `/__sandbox/invoices/${code}`)).invoice.payment_status;
}

describe('next_move_at', () => {
  const sandbox = useSandboxes();

  it("is a pending order's expiry, and null once that order is paid", async () => {
    const t = await sandbox('in-process');
    const code = await newOrder(t);
    expect(await clock(t)).toMatchObject({ next_move_at: iso(CLOCK_START + INVOICE_TTL_SECONDS * 1000) });
    dataOf(await t.request('POST', `/__sandbox/invoices/${code}/pay`));
    expect(await clock(t)).toMatchObject({ next_move_at: null });
  });

  it('is null once an order was paid and completed (no auto options)', async () => {
    const t = await sandbox('in-process');
    const code = await newOrder(t);
    dataOf(await t.request('POST', `/__sandbox/invoices/${code}/pay`));
    dataOf(await t.request('POST', `/__sandbox/orders/${code}/complete`));
    t.clock.advance(5_000);
    expect(await clock(t)).toEqual(expect.objectContaining({ now: iso(CLOCK_START + 5_000), next_move_at: null }));
  });

  it("skips a paid order's expiry for the next pending one's, and is null once none is pending", async () => {
    const t = await sandbox('in-process');
    const first = await newOrder(t);
    t.clock.advance(1_000);
    const second = await newOrder(t);
    dataOf(await t.request('POST', `/__sandbox/invoices/${first}/pay`));
    // The first order's expiry will not happen: the second one's is the next move.
    expect(await clock(t)).toMatchObject({ next_move_at: iso(CLOCK_START + 1_000 + INVOICE_TTL_SECONDS * 1000) });
    dataOf(await t.request('POST', `/__sandbox/invoices/${second}/expire`));
    expect(await clock(t)).toMatchObject({ next_move_at: null });
  });

  it("is not the auto-paid deposit's expiry: the tester's --auto-pay 1s --auto-expire 30s", async () => {
    const t = await sandbox('in-process', { autoPay: { after: 1_000 }, autoExpire: { after: 30_000 } });
    const { invoice_code: code } = dataOf(
      await t.request('POST', '/__sandbox/deposits', { body: { amount: 50_000, account: 'rich' } }),
      201,
    );
    expect(await clock(t)).toMatchObject({ next_move_at: iso(CLOCK_START + 1_000) });
    dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 5 } }));
    const read = await clock(t);
    expect(await paymentOf(t, code)).toBe('paid');
    expect(read).toEqual(expect.objectContaining({ now: iso(CLOCK_START + 5_000), next_move_at: null }));
  });

  it("with auto-pay, after the auto-payment the next move is the next real one, not the paid invoice's expiry", async () => {
    const t = await sandbox('in-process', { autoPay: { after: 5_000 }, autoExpire: { after: 20_000 } });
    const paid = await newOrder(t);
    t.clock.advance(6_000);
    // Not auto-paid: its own 30 s expiry, after the paid order's 20 s one, is what the sandbox does next.
    const expires = await newOrder(t, magicOrders.invoice_expires);
    expect(await paymentOf(t, paid)).toBe('paid');
    const read = await clock(t);
    expect(read.next_move_at).not.toBe(iso(CLOCK_START + 20_000));
    expect(read.next_move_at).toBe(iso(CLOCK_START + 6_000 + INVOICE_EXPIRES_AFTER_MS));
    t.clock.advance(INVOICE_EXPIRES_AFTER_MS);
    expect(await paymentOf(t, expires)).toBe('expired');
    expect(await clock(t)).toMatchObject({ next_move_at: null });
  });

  it('is never before now: advanceClock makes what came due before it resolves (in-process)', async () => {
    const t = await sandbox('in-process', { autoPay: { after: 1_000 }, autoExpire: { after: 30_000 } });
    const { invoice_code: code } = await t.sandbox.control.deposit({ account: 'rich', amount: 50_000 });
    const before = t.sandbox.account('rich').balance;
    await t.sandbox.control.advanceClock(5);
    const now = t.sandbox.now();
    expect(now).toBe(CLOCK_START + 5_000);
    // The auto-payment due at +1 s was made by the move itself: paid, credited, and nothing left to wait for.
    expect((t.sandbox.snapshot().tables.invoices as { invoice_code: string }[]).find((i) => i.invoice_code === code)).toMatchObject({
      payment_status: 'paid',
    });
    expect(t.sandbox.account('rich').balance).toBe(before + 50_000);
    expect(nextMoveAtAll(t.sandbox.store, now)).toBeUndefined();
    await newOrder(t);
    for (const seconds of [10, 60, 3_600]) {
      await t.sandbox.control.advanceClock(seconds);
      const next = nextMoveAtAll(t.sandbox.store, t.sandbox.now());
      if (next !== undefined) expect(next).toBeGreaterThan(t.sandbox.now());
      const read = await clock(t);
      if (read.next_move_at !== null) expect(Date.parse(read.next_move_at)).toBeGreaterThan(Date.parse(read.now));
    }
    expect(await clock(t)).toMatchObject({ next_move_at: null });
  });
});

describe('next_move_at in the answer of POST /__sandbox/clock', () => {
  const sandbox = useSandboxes();

  // The clock advance makes what came due by the new time before it answers: its answer is the sandbox as it now is.
  it('shows the moves it made due as made, and the next one still to come', async () => {
    const t = await sandbox('in-process', { autoPay: { after: 1_000 }, autoExpire: { after: 30_000 } });
    const deposit = dataOf(await t.request('POST', '/__sandbox/deposits', { body: { amount: 50_000, account: 'rich' } }), 201);
    const moved = dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 5 } }));
    // The auto-payment due at +1 s is made: nothing is left to move.
    expect(moved).toEqual({ now: iso(CLOCK_START + 5_000), offset_ms: 5_000, next_move_at: null });
    expect(await paymentOf(t, deposit.invoice_code)).toBe('paid');
    // An order made now pays itself a second later: that is the next move, after now.
    await newOrder(t);
    expect(await clock(t)).toEqual({ now: iso(CLOCK_START + 5_000), offset_ms: 5_000, next_move_at: iso(CLOCK_START + 6_000) });
  });

  it('says offset_ms 0 on a clock never moved, and exactly how far it was moved', async () => {
    const t = await sandbox('http');
    expect(dataOf(await t.request('GET', '/__sandbox/clock')).offset_ms).toBe(0);
    expect(dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 1.5 } })).offset_ms).toBe(1_500);
  });
});
