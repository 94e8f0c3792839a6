import { describe, expect, it } from 'vitest';
import { accounts, dataOf, SIMPLE_ORDER, transports, useSandboxes } from '../support/sandbox-harness.js';

/** The keys of an object, sorted; of an array, the keys of each element. */
const keys = (value: unknown): any => (Array.isArray(value) ? value.map(keys) : Object.keys(value as object).sort());

const INVOICE = [
  'amount',
  'currency',
  'formatted_amount',
  'invoice_code',
  'invoice_url',
  'payment_method',
  'payment_status',
  'payment_url',
  'type',
];
const ARTICLE = ['article_url', 'category', 'cover_image', 'excerpt', 'published_at', 'slug', 'title'];
const PACKAGE = ['code', 'credit_amount', 'currency', 'description', 'formatted_price', 'name', 'price', 'sort_order'];

describe.each(transports)('the lean sandbox answers only what the document guarantees (%s)', (transport) => {
  const open = useSandboxes();

  it('every endpoint, field by field; every answer still matches the OpenAPI document', async () => {
    const t = await open(transport, { lean: true, rateLimit: false });
    const { rich } = await accounts();
    const token = rich.token;
    const created = dataOf(await t.request('POST', '/api/v1/me/orders', { token, body: SIMPLE_ORDER }), 201);
    // The document lists `environment` among the order-creation answer's fields (`sandbox` in a sandbox response).
    expect(keys(created)).toEqual(['environment', 'idempotent', 'invoice']);
    expect(created.environment).toBe('production');
    expect(keys(created.invoice)).toEqual(INVOICE);
    const code = created.invoice.invoice_code as string;
    const deposit = await t.sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: false });
    await t.sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: true });
    const slug = (dataOf(await t.request('GET', '/api/v1/articles')).articles[0] as { slug: string }).slug;

    const table: [string, string, (data: any) => unknown, unknown][] = [
      ['GET', '/api/v1/health', keys, []],
      ['GET', '/api/v1/catalog/credit-packages', (d) => [keys(d), keys(d.packages)[0]], [['limit', 'packages'], PACKAGE]],
      ['GET', '/api/v1/catalog/payment-methods', (d) => [keys(d), keys(d.payment_methods)[0]], [['payment_methods'], []]],
      ['GET', '/api/v1/articles', (d) => [keys(d), keys(d.articles)[0]], [['articles', 'limit'], ARTICLE]],
      ['GET', `/api/v1/articles/${slug}`, (d) => [keys(d), keys(d.article)], [['article'], ARTICLE]],
      ['POST', '/api/v1/auth/token/validate', (d) => d, { mode: 'production' }],
      ['GET', '/api/v1/me', (d) => d, { user: {} }],
      ['GET', '/api/v1/me/dashboard-summary', (d) => d, {}],
      ['GET', '/api/v1/me/balance', (d) => d, {}],
      [
        'GET',
        '/api/v1/me/balance/transactions',
        (d) => [keys(d), d.transactions.length > 0 && d.transactions.every((x: object) => Object.keys(x).length === 0)],
        [['transactions'], true],
      ],
      [
        'GET',
        '/api/v1/me/deposits',
        (d) => keys(d.deposits)[0],
        ['amount', 'currency', 'formatted_amount', 'invoice_code', 'invoice_url', 'payment_method', 'payment_status'],
      ],
      [
        'GET',
        `/api/v1/me/deposits/${deposit.invoice_code}`,
        (d) => keys(d.deposit),
        ['amount', 'currency', 'formatted_amount', 'invoice_code', 'invoice_url', 'payment_method', 'payment_status'],
      ],
      [
        'GET',
        '/api/v1/me/orders',
        (d) => [keys(d), keys(d.orders)[0]],
        [['orders'], ['credit_amount', 'invoice_code', 'order_type', 'platform_username', 'status']],
      ],
      [
        'GET',
        `/api/v1/me/orders/${code}`,
        (d) => keys(d.order),
        ['credit_amount', 'invoice_code', 'invoice_url', 'order_type', 'platform_username', 'status'],
      ],
      [
        'GET',
        `/api/v1/me/invoices/${code}`,
        (d) => [keys(d.invoice), keys(d.invoice.order)],
        [[...INVOICE, 'order'].sort(), ['credit_amount', 'order_type', 'platform_username', 'status']],
      ],
      [
        'GET',
        `/api/v1/me/invoices/${code}/status`,
        (d) => d,
        {
          invoice_code: code,
          type: 'order',
          payment_status: 'pending',
          amount: created.invoice.amount,
          formatted_amount: created.invoice.formatted_amount,
        },
      ],
    ];
    for (const [method, path, view, expected] of table) {
      const answer = await t.request(method, path, { token });
      expect(answer.status, `${method} ${path}`).toBe(200);
      expect(Object.keys(answer.json).sort(), `${method} ${path}`).toEqual(['data', 'message', 'success']);
      expect(view(answer.json.data), `${method} ${path}`).toEqual(expected);
    }
  });

  it('errors keep their envelope and codes: lean changes only what success answers carry', async () => {
    const t = await open(transport, { lean: true });
    const answer = await t.request('POST', '/api/v1/me/orders', {
      token: (await accounts()).demo.token,
      body: { ...SIMPLE_ORDER, price: 1 },
    });
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ success: false, error: { code: 'FORBIDDEN_FIELDS', fields: ['price'] } });
  });

  it('the full sandbox still sends every field of its design', async () => {
    const t = await open(transport);
    const status = dataOf(await t.request('GET', '/api/v1/me/balance', { token: (await accounts()).demo.token }));
    expect(keys(status)).toEqual(['balance', 'currency', 'formatted_balance', 'updated_at']);
  });
});
