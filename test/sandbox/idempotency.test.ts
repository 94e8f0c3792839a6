import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../mocks/rules/idempotency.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const ORDERS = '/api/v1/me/orders';

const order = (t: TestSandbox, key: string, body: object = SIMPLE_ORDER, token = rich.token) =>
  t.request('POST', ORDERS, { token, body, headers: { 'idempotency-key': key } });

async function orderCount(t: TestSandbox, token = rich.token): Promise<number> {
  return dataOf(await t.request('GET', ORDERS, { token })).pagination.total;
}

describe.each(transports)('idempotency (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('the same key and body gets 200 with the same invoice, idempotent: true, and still one order', async () => {
    const t = await sandbox(transport);
    const first = dataOf(await order(t, 'order-1'), 201);
    expect(first.idempotent).toBe(false);
    const again = dataOf(await order(t, 'order-1'), 200);
    expect(again.idempotent).toBe(true);
    expect(again.invoice).toEqual(first.invoice);
    expect(again.environment).toBe(first.environment);
    expect(await orderCount(t)).toBe(1);
  });

  it('a replay shows the invoice as it is now, not as it was', async () => {
    const t = await sandbox(transport);
    const first = dataOf(await order(t, 'order-1'), 201);
    await t.sandbox.control.pay(first.invoice.invoice_code);
    const again = dataOf(await order(t, 'order-1'), 200);
    expect(again.invoice).toMatchObject({
      invoice_code: first.invoice.invoice_code,
      payment_status: 'paid',
      order: { status: 'processing' },
    });
  });

  it('the same body with the alias counts as the same request', async () => {
    const t = await sandbox(transport);
    const first = dataOf(await order(t, 'order-1', { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }), 201);
    const again = dataOf(
      await order(t, 'order-1', {
        order_type: 'gamepass',
        platform_username: 'BuilderBob',
        place_id: 5001,
        gamepass_id: 9001,
        payment_method: 'invoice',
      }),
      200,
    );
    expect(again.invoice.invoice_code).toBe(first.invoice.invoice_code);
  });

  it.each([
    { name: 'another pass', body: { ...SIMPLE_ORDER, platform_pass_id: 9002 } },
    { name: 'another payment method', body: { ...SIMPLE_ORDER, payment_method: 'qris' } },
    { name: 'a client_reference', body: { ...SIMPLE_ORDER, client_reference: 'ref-1' } },
    { name: 'another username', body: { platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101 } },
  ])('the same key with $name gets 409 IDEMPOTENCY_KEY_MISMATCH and creates nothing', async ({ body }) => {
    const t = await sandbox(transport);
    dataOf(await order(t, 'order-1'), 201);
    const before = t.state();
    expectError(await order(t, 'order-1', body), 409, 'IDEMPOTENCY_KEY_MISMATCH');
    expect(t.state()).toEqual(before);
    expect(await orderCount(t)).toBe(1);
  });

  it('without a key, the same body makes a new order each time', async () => {
    const t = await sandbox(transport);
    const a = dataOf(await t.request('POST', ORDERS, { token: rich.token, body: SIMPLE_ORDER }), 201);
    const b = dataOf(await t.request('POST', ORDERS, { token: rich.token, body: SIMPLE_ORDER }), 201);
    expect(a.invoice.invoice_code).not.toBe(b.invoice.invoice_code);
    expect(await orderCount(t)).toBe(2);
  });

  it('keys are per account: the same key on two accounts makes two orders', async () => {
    const t = await sandbox(transport);
    const mine = dataOf(await order(t, 'shared-key', SIMPLE_ORDER, rich.token), 201);
    const theirs = dataOf(await order(t, 'shared-key', SIMPLE_ORDER, demo.token), 201);
    expect(theirs.idempotent).toBe(false);
    expect(theirs.invoice.invoice_code).not.toBe(mine.invoice.invoice_code);
    expect(await orderCount(t, rich.token)).toBe(1);
    expect(await orderCount(t, demo.token)).toBe(1);
  });

  it('a refused request does not use up its key', async () => {
    const t = await sandbox(transport);
    expectError(await order(t, 'order-1', { ...SIMPLE_ORDER, platform_pass_id: 9003 }), 422, 'PLATFORM_VALIDATION_FAILED');
    expect(dataOf(await order(t, 'order-1', { ...SIMPLE_ORDER, platform_pass_id: 9002 }), 201).idempotent).toBe(false);
  });

  it('N = 10 concurrent identical keyed requests make exactly one order', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const answers = await Promise.all(Array.from({ length: 10 }, () => order(t, 'burst-1')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const codes = new Set(answers.map((a) => a.json.data.invoice.invoice_code));
    expect(codes.size).toBe(1);
    expect(answers.filter((a) => a.json.data.idempotent === true)).toHaveLength(9);
    expect(await orderCount(t)).toBe(1);
    expect(t.sandbox.store.db.orders.size).toBe(1);
  });

  it('concurrent requests with one key but different bodies make one order; the others get 200 or 409', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const passes = [9001, 9002, 9004, 9001, 9002, 9004];
    const answers = await Promise.all(passes.map((pass) => order(t, 'contested', { ...SIMPLE_ORDER, platform_pass_id: pass })));
    const winner = answers.findIndex((a) => a.status === 201);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const winnerCode = answers[winner]!.json.data.invoice.invoice_code;
    for (const [i, answer] of answers.entries()) {
      if (i === winner) continue;
      if (passes[i] === passes[winner]) expect(dataOf(answer, 200).invoice.invoice_code).toBe(winnerCode);
      else expectError(answer, 409, 'IDEMPOTENCY_KEY_MISMATCH');
    }
    expect(await orderCount(t)).toBe(1);
  });

  it('a key expires after 24 hours', async () => {
    const t = await sandbox(transport);
    const first = dataOf(await order(t, 'daily'), 201);
    expect(IDEMPOTENCY_TTL_MS).toBe(24 * 60 * 60 * 1000); // the documented lifetime
    t.clock.advance(IDEMPOTENCY_TTL_MS - 1_000);
    expect(dataOf(await order(t, 'daily'), 200).invoice.invoice_code).toBe(first.invoice.invoice_code);
    t.clock.advance(1_000);
    const later = dataOf(await order(t, 'daily'), 201);
    expect(later.idempotent).toBe(false);
    expect(later.invoice.invoice_code).not.toBe(first.invoice.invoice_code);
    // The key now belongs to the new order.
    expect(dataOf(await order(t, 'daily'), 200).invoice.invoice_code).toBe(later.invoice.invoice_code);
  });

  it('a key of 255 visible ASCII characters is accepted', async () => {
    const t = await sandbox(transport);
    const key = `${'k'.repeat(250)}-!~{}`;
    expect(key).toHaveLength(255);
    expect(dataOf(await order(t, key), 201).idempotent).toBe(false);
    expect(dataOf(await order(t, key), 200).idempotent).toBe(true);
  });

  it.each([
    { name: 'empty', key: '' },
    { name: '256 characters', key: 'k'.repeat(256) },
    { name: 'non-ASCII', key: 'clé-1' },
    { name: 'with a space', key: 'order 1' },
    { name: 'with a tab', key: 'order\t1' },
  ])('an invalid key ($name) gets 422 INVALID_IDEMPOTENCY_KEY and changes nothing', async ({ key }) => {
    const t = await sandbox(transport);
    const before = t.state();
    expectError(await order(t, key), 422, 'INVALID_IDEMPOTENCY_KEY', ['Idempotency-Key']);
    expect(t.state()).toEqual(before);
  });
});
