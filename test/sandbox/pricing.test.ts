import { describe, expect, it } from 'vitest';
import { quote } from '../../mocks/rules/pricing.js';
import { accounts, dataOf, transports, useSandboxes } from '../support/sandbox-harness.js';

const { rich } = await accounts();

/** price = credits × 120; 5 % off from 1,000 credits, 10 % from 5,000; the discount is floored. */
const pricedOrders = [
  {
    name: '100-credit gamepass',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
    credits: 100,
    price: 12_000,
    discount: 0,
    total: 12_000,
    formatted: 'Rp 12.000',
  },
  {
    name: '1,500-credit gamepass by alias',
    body: { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9002 },
    credits: 1_500,
    price: 180_000,
    discount: 9_000,
    total: 171_000,
    formatted: 'Rp 171.000',
  },
  {
    name: '6,000-credit gamepass',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9004 },
    credits: 6_000,
    price: 720_000,
    discount: 72_000,
    total: 648_000,
    formatted: 'Rp 648.000',
  },
  {
    name: '50-credit gamepass of another creator',
    body: { order_type: 'gamepass', platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101 },
    credits: 50,
    price: 6_000,
    discount: 0,
    total: 6_000,
    formatted: 'Rp 6.000',
  },
  {
    name: '200-credit VIP server',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7001 },
    credits: 200,
    price: 24_000,
    discount: 0,
    total: 24_000,
    formatted: 'Rp 24.000',
  },
];

describe('the pricing model', () => {
  it.each([
    { credits: 10, price: 1_200, discount: 0 },
    { credits: 999, price: 119_880, discount: 0 },
    { credits: 1_000, price: 120_000, discount: 6_000 },
    { credits: 1_001, price: 120_120, discount: 6_006 },
    { credits: 4_999, price: 599_880, discount: 29_994 },
    { credits: 5_000, price: 600_000, discount: 60_000 },
    { credits: 100_000, price: 12_000_000, discount: 1_200_000 },
  ])('$credits credits cost $price less $discount', ({ credits, price, discount }) => {
    expect(quote(credits)).toEqual({ credit_amount: credits, price, discount, total_amount: price - discount });
  });
});

describe.each(transports)('server-computed prices (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each(pricedOrders)(
    '$name: price $price, discount $discount, total $total',
    async ({ body, credits, price, discount, total, formatted }) => {
      const t = await sandbox(transport);
      const created = dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body }), 201);
      expect(created.invoice).toMatchObject({ amount: total, formatted_amount: formatted, currency: 'IDR' });
      expect(created.invoice.order).toMatchObject({ credit_amount: credits, price, discount, total_amount: total });
      const code = created.invoice.invoice_code;
      const order = dataOf(await t.request('GET', `/api/v1/me/orders/${code}`, { token: rich.token })).order;
      expect(order).toMatchObject({ credit_amount: credits, price, discount, total_amount: total, formatted_total_amount: formatted });
      expect(dataOf(await t.request('GET', `/api/v1/me/invoices/${code}`, { token: rich.token })).invoice.amount).toBe(total);
      expect(dataOf(await t.request('GET', `/api/v1/me/invoices/${code}/status`, { token: rich.token })).amount).toBe(total);
    },
  );
});
