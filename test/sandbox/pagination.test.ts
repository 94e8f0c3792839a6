import { describe, expect, it } from 'vitest';
import { accounts, dataOf, expectError, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

interface Made {
  code: string;
  order_type: 'gamepass' | 'vip_server';
  status: string;
  payment_status: string;
  client_reference: string;
}

/**
 * 23 orders for rich, oldest first: every 5th a VIP server, every 3rd paid, every 7th (from the 2nd) expired,
 * and client references that repeat in threes.
 */
async function manyOrders(t: TestSandbox): Promise<Made[]> {
  const made: Made[] = [];
  for (let i = 0; i < 23; i++) {
    const vip = i % 5 === 0;
    const client_reference = `batch-${Math.floor(i / 3)}`;
    const body = {
      order_type: vip ? 'vip_server' : 'gamepass',
      platform_username: 'BuilderBob',
      place_id: 5001,
      platform_pass_id: vip ? 7001 : 9001,
      client_reference,
    };
    const code = dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body }), 201).invoice.invoice_code;
    let status = 'pending';
    let payment_status = 'pending';
    if (i % 3 === 0) {
      await t.sandbox.control.pay(code);
      [status, payment_status] = ['processing', 'paid'];
    } else if (i % 7 === 1) {
      await t.sandbox.control.expire(code);
      [status, payment_status] = ['cancelled', 'expired'];
    }
    made.push({ code, order_type: vip ? 'vip_server' : 'gamepass', status, payment_status, client_reference });
  }
  return made;
}

const codes = (items: Array<{ invoice_code: string }>) => items.map((i) => i.invoice_code);
const newestFirst = (made: Made[]) => [...made].reverse().map((m) => m.code);

function expectedPage(all: string[], page: number, perPage: number) {
  const total = all.length;
  const totalPages = Math.ceil(total / perPage);
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    pagination: { page, per_page: perPage, total, total_pages: totalPages, has_more: page < totalPages },
  };
}

const badPaging = [
  { query: 'per_page=101', field: 'per_page' },
  { query: 'per_page=0', field: 'per_page' },
  { query: 'per_page=-5', field: 'per_page' },
  { query: 'per_page=2.5', field: 'per_page' },
  { query: 'page=0', field: 'page' },
  { query: 'page=-1', field: 'page' },
  { query: 'page=abc', field: 'page' },
  { query: 'page=', field: 'page' },
  { query: 'page=1&page=2', field: 'page' },
];

describe.each(transports)('pagination and filters (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('pages orders newest first with exact totals, 20 a page by default', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const all = newestFirst(await manyOrders(t));
    const byDefault = dataOf(await t.request('GET', '/api/v1/me/orders', { token: rich.token }));
    expect({ items: codes(byDefault.orders), pagination: byDefault.pagination }).toEqual(expectedPage(all, 1, 20));
    for (const [page, perPage] of [
      [1, 10],
      [2, 10],
      [3, 10],
      [4, 10],
      [1, 23],
      [1, 100],
      [12, 2],
      [5, 5],
    ] as const) {
      const data = dataOf(await t.request('GET', `/api/v1/me/orders?page=${page}&per_page=${perPage}`, { token: rich.token }));
      expect({ items: codes(data.orders), pagination: data.pagination }, `page ${page} of ${perPage}`).toEqual(
        expectedPage(all, page, perPage),
      );
    }
  });

  it.each([
    { name: 'status=processing', query: 'status=processing', keep: (m: Made) => m.status === 'processing' },
    { name: 'status=cancelled', query: 'status=cancelled', keep: (m: Made) => m.status === 'cancelled' },
    { name: 'status=completed', query: 'status=completed', keep: () => false },
    { name: 'payment_status=pending', query: 'payment_status=pending', keep: (m: Made) => m.payment_status === 'pending' },
    { name: 'payment_status=expired', query: 'payment_status=expired', keep: (m: Made) => m.payment_status === 'expired' },
    { name: 'order_type=vip_server', query: 'order_type=vip_server', keep: (m: Made) => m.order_type === 'vip_server' },
    { name: 'client_reference=batch-2', query: 'client_reference=batch-2', keep: (m: Made) => m.client_reference === 'batch-2' },
    {
      name: 'two filters',
      query: 'order_type=gamepass&status=pending',
      keep: (m: Made) => m.order_type === 'gamepass' && m.status === 'pending',
    },
  ])('filters orders by $name, paging the filtered list', async ({ query, keep }) => {
    const t = await sandbox(transport, { rateLimit: false });
    const made = await manyOrders(t);
    const all = newestFirst(made.filter(keep));
    for (const [page, perPage] of [
      [1, 20],
      [1, 3],
      [2, 3],
      [3, 3],
    ] as const) {
      const data = dataOf(await t.request('GET', `/api/v1/me/orders?${query}&page=${page}&per_page=${perPage}`, { token: rich.token }));
      expect({ items: codes(data.orders), pagination: data.pagination }, `page ${page} of ${perPage}`).toEqual(
        expectedPage(all, page, perPage),
      );
      for (const order of data.orders)
        expect(
          keep({
            code: order.invoice_code,
            order_type: order.order_type,
            status: order.status,
            payment_status: order.payment_status,
            client_reference: made.find((m) => m.code === order.invoice_code)!.client_reference,
          }),
        ).toBe(true);
    }
  });

  it('pages and filters balance transactions', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const { broke } = await accounts();
    const made: Array<{ code: string; type: 'credit' | 'debit' }> = [];
    for (let i = 0; i < 7; i++) {
      const { invoice_code } = await t.sandbox.control.deposit({ account: 'broke', amount: 10_000 + i, paid: true });
      made.push({ code: invoice_code, type: 'credit' });
      if (i % 2 === 0) {
        const body = { platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101, payment_method: 'balance' };
        const order = dataOf(
          await t.request('POST', '/api/v1/me/orders', { token: broke.token, body, headers: { 'x-chat-user-id': broke.chat_user_id! } }),
          201,
        );
        made.push({ code: order.invoice.invoice_code, type: 'debit' });
      }
    }
    // Another account's transactions stay out of broke's list.
    await t.sandbox.control.deposit({ account: 'rich', amount: 10_000, paid: true });
    for (const [filter, keep] of [
      ['', () => true],
      ['&type=credit', (m: { type: string }) => m.type === 'credit'],
      ['&type=debit', (m: { type: string }) => m.type === 'debit'],
    ] as const) {
      const all = [...made]
        .reverse()
        .filter(keep)
        .map((m) => m.code);
      for (const [page, perPage] of [
        [1, 3],
        [2, 3],
        [3, 3],
        [4, 3],
        [1, 20],
      ] as const) {
        const data = dataOf(
          await t.request('GET', `/api/v1/me/balance/transactions?page=${page}&per_page=${perPage}${filter}`, { token: broke.token }),
        );
        const refs = data.transactions.map((x: { reference: string }) => x.reference);
        expect({ items: refs, pagination: data.pagination }, `${filter} page ${page} of ${perPage}`).toEqual(
          expectedPage(all, page, perPage),
        );
      }
    }
  });

  it('pages and filters deposits', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const made: Array<{ code: string; paid: boolean }> = [];
    for (let i = 0; i < 9; i++) {
      const paid = i % 3 === 0;
      made.push({ code: (await t.sandbox.control.deposit({ account: 'demo', amount: 10_000, paid })).invoice_code, paid });
    }
    await t.sandbox.control.deposit({ account: 'rich', amount: 10_000 });
    const all = [...made].reverse().map((d) => d.code);
    for (const [page, perPage] of [
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ] as const) {
      const data = dataOf(await t.request('GET', `/api/v1/me/deposits?page=${page}&per_page=${perPage}`, { token: demo.token }));
      expect({ items: codes(data.deposits), pagination: data.pagination }).toEqual(expectedPage(all, page, perPage));
    }
    const paid = dataOf(await t.request('GET', '/api/v1/me/deposits?payment_status=paid', { token: demo.token }));
    expect({ items: codes(paid.deposits), pagination: paid.pagination }).toEqual(
      expectedPage(
        [...made]
          .reverse()
          .filter((d) => d.paid)
          .map((d) => d.code),
        1,
        20,
      ),
    );
  });

  describe.each(['/api/v1/me/orders', '/api/v1/me/balance/transactions', '/api/v1/me/deposits'])('%s', (path) => {
    it.each(badPaging)('refuses $query with 422 VALIDATION_FAILED naming $field', async ({ query, field }) => {
      const t = await sandbox(transport);
      expectError(await t.request('GET', `${path}?${query}`, { token: rich.token }), 422, 'VALIDATION_FAILED', [field]);
    });
  });

  it.each(badPaging.filter((c) => c.field === 'page'))(
    'articles refuse $query with 422 VALIDATION_FAILED naming $field',
    async ({ query, field }) => {
      const t = await sandbox(transport);
      expectError(await t.request('GET', `/api/v1/articles?${query}`), 422, 'VALIDATION_FAILED', [field]);
    },
  );

  it.each([
    { path: '/api/v1/me/orders?status=shipped', field: 'status' },
    { path: '/api/v1/me/orders?payment_status=unpaid', field: 'payment_status' },
    { path: '/api/v1/me/orders?order_type=robux', field: 'order_type' },
    { path: `/api/v1/me/orders?client_reference=${'r'.repeat(65)}`, field: 'client_reference' },
    { path: '/api/v1/me/balance/transactions?type=refund', field: 'type' },
    { path: '/api/v1/me/deposits?payment_status=unpaid', field: 'payment_status' },
  ])('refuses an unknown filter value: $path', async ({ path, field }) => {
    const t = await sandbox(transport);
    expectError(await t.request('GET', path, { token: rich.token }), 422, 'VALIDATION_FAILED', [field]);
  });
});
