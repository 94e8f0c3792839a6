import { beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { endpointById, endpoints, type EndpointId } from '../../src/contract/endpoints.js';
import { createClient, type TopupClient } from '../../src/index.js';
import { recordingFetch, type Exchange } from './helpers.js';
import { LEAN } from '../support/cli-assertions.js';

let sandbox: Sandbox;
let client: TopupClient;
let exchanges: Exchange[];
let token: string;
let seen: Array<{ url: string; headers: Record<string, string> }>;

beforeEach(async () => {
  sandbox = await createSandbox({ rateLimit: false });
  token = sandbox.account('rich').token;
  const recorder = recordingFetch(sandbox.fetch);
  exchanges = recorder.exchanges;
  seen = [];
  client = createClient({
    baseUrl: sandbox.baseUrl,
    token,
    fetch: recorder.fetch,
    onRequest: (request) => seen.push(request),
  });
});

/** One call per endpoint; `Record<EndpointId, …>` makes the compiler insist on all 17. */
const calls: Record<EndpointId, (client: TopupClient, fixtures: { invoice: string; deposit: string; slug: string }) => Promise<unknown>> = {
  getHealth: (c) => c.health(),
  listCreditPackages: (c) => c.catalog.creditPackages(),
  listPaymentMethods: (c) => c.catalog.paymentMethods(),
  listArticles: (c) => c.articles.list({ category: 'guide' }),
  getArticle: (c, f) => c.articles.get(f.slug),
  validateToken: (c) => c.token.validate(),
  getProfile: (c) => c.account.profile(),
  getDashboardSummary: (c) => c.account.dashboard(),
  getBalance: (c) => c.balance.get(),
  listBalanceTransactions: (c) => c.balance.transactions({ type: 'credit' }),
  listDeposits: (c) => c.deposits.list({ payment_status: 'paid' }),
  getDeposit: (c, f) => c.deposits.get(f.deposit),
  createOrder: (c) => c.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9002 }),
  listOrders: (c) => c.orders.list({ status: 'pending', per_page: 5 }),
  getOrder: (c, f) => c.orders.get(f.invoice),
  getInvoice: (c, f) => c.invoices.get(f.invoice),
  getInvoiceStatus: (c, f) => c.invoices.status(f.invoice),
};

describe('every endpoint', () => {
  it('has a client method', () => {
    expect(Object.keys(calls).sort()).toEqual(endpoints.map((e) => e.id).sort());
  });

  it.each(endpoints.map((e) => [e.id, e] as const))('%s returns data that matches the contract', async (id, endpoint) => {
    const order = await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
    const deposit = await sandbox.control.deposit({ account: 'rich', amount: 50_000, paid: true });
    const slug = (await client.articles.list()).articles[0]!.slug;
    const before = exchanges.length;

    const data = await calls[id](client, { invoice: order.invoice.invoice_code, deposit: deposit.invoice_code, slug });

    expect(endpoint.data.safeParse(data).error).toBeUndefined();
    const [exchange] = exchanges.slice(before);
    expect(exchanges.length - before).toBe(1);
    expect(exchange!.method).toBe(endpoint.method);
    expect(new URL(exchange!.url).pathname).toMatch(new RegExp(`^${endpoint.path.replace(/\{\w+\}/g, '[^/]+')}$`));
    expect(endpoint.success).toContain(exchange!.status);
  });
});

describe('requests', () => {
  it('send Accept: application/json, and the token only in Authorization and only to endpoints that need it', async () => {
    const order = await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
    for (const call of Object.values(calls))
      await call(client, { invoice: order.invoice.invoice_code, deposit: 'INV1', slug: 'x' }).catch(() => undefined);
    expect(exchanges.length).toBeGreaterThanOrEqual(18);
    for (const exchange of exchanges) {
      const path = new URL(exchange.url).pathname;
      const endpoint = endpoints.find(
        (e) => new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path) && e.method === exchange.method,
      )!;
      expect(exchange.headers.accept).toBe('application/json');
      expect(exchange.url).not.toContain(token);
      expect(exchange.headers.authorization).toBe(endpoint.auth ? `Bearer ${token}` : undefined);
      for (const [name, value] of Object.entries(exchange.headers)) {
        if (name !== 'authorization') expect(value).not.toContain(token);
      }
    }
  });

  it('show the onRequest hook the real URL and headers with the token redacted', async () => {
    await client.account.profile();
    expect(seen).toEqual([
      {
        method: 'GET',
        url: `${sandbox.baseUrl}/api/v1/me`,
        headers: { accept: 'application/json', authorization: `Bearer topup_live_…${token.slice(-4)}`, 'user-agent': 'topup-client' },
      },
    ]);
  });

  it('URL-encode path parameters', async () => {
    await expect(client.orders.get('INV1/../../health')).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(client.articles.get('a b?c#d')).rejects.toMatchObject({ name: 'NotFoundError' });
    expect(exchanges.map((e) => e.url)).toEqual([
      `${sandbox.baseUrl}/api/v1/me/orders/INV1%2F..%2F..%2Fhealth`,
      `${sandbox.baseUrl}/api/v1/articles/a%20b%3Fc%23d`,
    ]);
  });

  it('send list queries without undefined values', async () => {
    await client.orders.list({ status: 'pending', payment_status: undefined, per_page: 3 });
    expect(new URL(exchanges[0]!.url).search).toBe('?status=pending&per_page=3');
  });

  it('create an order with the body as JSON, a generated UUID key, and X-Chat-User-ID when asked', async () => {
    const result = await client.orders.create(
      { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, payment_method: 'balance' },
      { chatUserId: '700000001' },
    );
    expect(result.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.invoice.payment_status).toBe('paid');
    const [exchange] = exchanges;
    expect(exchange!.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': result.idempotencyKey,
      'x-chat-user-id': '700000001',
    });
  });
});

// Against a lean server there is no pagination: a list is its first page, and iterating stops there.
describe('list methods', () => {
  beforeEach(async () => {
    // Setup goes around pacing (create-order is 10 a minute); the sandbox's limits are off here.
    const setup = createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch, pacing: false });
    for (let i = 0; i < 23; i++) {
      await setup.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, client_reference: `ref-${i}` });
    }
  });

  it('resolve to the requested page when awaited', async () => {
    const page = await client.orders.list({ page: 2, per_page: 10 });
    expect(page.pagination).toEqual(LEAN ? undefined : { page: 2, per_page: 10, total: 23, total_pages: 3, has_more: true });
    expect(page.orders).toHaveLength(10);
    expect(exchanges).toHaveLength(1);
  });

  it('iterate every item of every page with for await, one request per page', async () => {
    const references: string[] = [];
    for await (const order of client.orders.list({ per_page: 10 })) references.push(order.invoice_code!);
    expect(references).toHaveLength(LEAN ? 10 : 23);
    expect(new Set(references).size).toBe(LEAN ? 10 : 23);
    expect(exchanges.map((e) => new URL(e.url).search)).toEqual(
      LEAN ? ['?per_page=10'] : ['?per_page=10', '?per_page=10&page=2', '?per_page=10&page=3'],
    );
  });

  it('iterate from the requested page on, keeping the filters', async () => {
    const codes: string[] = [];
    for await (const order of client.orders.list({ status: 'pending', per_page: 10, page: 2 })) codes.push(order.invoice_code!);
    expect(codes).toHaveLength(LEAN ? 10 : 13);
    expect(exchanges.map((e) => new URL(e.url).search)).toEqual(
      LEAN ? ['?status=pending&per_page=10&page=2'] : ['?status=pending&per_page=10&page=2', '?status=pending&per_page=10&page=3'],
    );
  });

  it('fetch the first page once when both awaited and iterated', async () => {
    const list = client.orders.list({ per_page: 20 });
    const first = await list;
    let count = 0;
    for await (const _ of list) count += 1;
    expect(first.orders).toHaveLength(20);
    expect(count).toBe(LEAN ? 20 : 23);
    expect(exchanges).toHaveLength(LEAN ? 1 : 2);
  });

  it('send nothing until awaited or iterated', async () => {
    client.orders.list();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exchanges).toHaveLength(0);
  });

  it.each([
    {
      name: 'the same items again',
      reshape: (page: number, data: Record<string, unknown>) => data,
      message: 'with the same items as page 1',
    },
    {
      name: 'no items',
      reshape: (page: number, data: Record<string, unknown>) => (page > 1 ? { ...data, orders: [] } : data),
      message: undefined,
    },
  ])('a server that ignores `page`, sends no page number and always says has_more: $name ends the walk', async ({ reshape, message }) => {
    let requests = 0;
    const stuck = createClient({
      baseUrl: sandbox.baseUrl,
      token,
      pacing: false,
      fetch: async (input, init) => {
        requests += 1;
        const url = new URL(input instanceof Request ? input.url : String(input));
        const page = Number(url.searchParams.get('page') ?? 1);
        url.searchParams.delete('page');
        const answer = await sandbox.fetch(url.href, init);
        const body = (await answer.json()) as { data: Record<string, unknown> };
        body.data = { ...reshape(page, body.data), pagination: { has_more: true } };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const seen: unknown[] = [];
    const walk = (async () => {
      for await (const order of stuck.orders.list({ per_page: 2 })) seen.push(order);
    })();
    // The same items again are an error; an empty page ends the walk there, as `topup api --paginate` ends it.
    if (message === undefined) await walk;
    else await expect(walk).rejects.toMatchObject({ code: 'PAGE_OUT_OF_ORDER', message: expect.stringContaining(message) });
    expect(requests).toBe(2);
    expect(seen).toHaveLength(2);
  });

  it('walk pages with pages()', async () => {
    const sizes: number[] = [];
    for await (const page of client.orders.list({ per_page: 10 }).pages()) sizes.push(page.orders!.length);
    expect(sizes).toEqual(LEAN ? [10] : [10, 10, 3]);
  });

  it.each([
    ['articles', (c: TopupClient) => c.articles.list(), LEAN ? 10 : 12],
    // The paid deposit's credit and the seeded opening balance; a pending deposit moves nothing.
    ['balance transactions', (c: TopupClient) => c.balance.transactions({ per_page: 2 }), 2],
    ['deposits', (c: TopupClient) => c.deposits.list({ per_page: 1 }), LEAN ? 1 : 2],
  ])('iterate %s too', async (_name, list, expected) => {
    await sandbox.control.deposit({ account: 'rich', amount: 20_000, paid: true });
    await sandbox.control.deposit({ account: 'rich', amount: 30_000 });
    let count = 0;
    for await (const _ of list(client)) count += 1;
    expect(count).toBe(expected);
  });
});

it('uses the endpoint table for every method (a changed path would be seen here)', () => {
  expect(endpointById.getInvoiceStatus.path).toBe('/api/v1/me/invoices/{invoice}/status');
});

describe('pages from a server that numbers them oddly', () => {
  beforeEach(async () => {
    const setup = createClient({ baseUrl: sandbox.baseUrl, token, fetch: sandbox.fetch, pacing: false });
    for (let i = 0; i < 23; i++) await setup.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
  });

  /** The sandbox's answers with `pagination.page` rewritten: a server that paginates differently. */
  function numbering(page: (n: number) => unknown): { client: TopupClient; asked: string[] } {
    const asked: string[] = [];
    const rewriting: typeof globalThis.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      asked.push(new URL(url).search);
      const answer = await sandbox.fetch(input, init);
      const body = (await answer.json()) as { data?: { pagination?: { page?: unknown } } };
      const pagination = body.data?.pagination;
      if (pagination !== undefined && typeof pagination.page === 'number') pagination.page = page(pagination.page);
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
    return {
      client: createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: rewriting, pacing: false }),
      asked,
    };
  }

  it.each([
    ['a text', (n: number) => String(n)],
    ['a fraction', (n: number) => n + 0.5],
    ['zero', () => 0],
  ])('a page number that is %s is not counted on from: every page once, in order', async (_name, page) => {
    const { client: odd, asked } = numbering(page);
    const sizes: number[] = [];
    for await (const each of odd.orders.list({ per_page: 10 }).pages()) sizes.push(each.orders!.length);
    expect(sizes).toEqual(LEAN ? [10] : [10, 10, 3]);
    expect(asked).toEqual(LEAN ? ['?per_page=10'] : ['?per_page=10', '?per_page=10&page=2', '?per_page=10&page=3']);
  });
});
