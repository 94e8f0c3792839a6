import { beforeAll, describe, expect, it } from 'vitest';
import { useAnswerServer } from '../support/answer-server.js';
import { createClient, type TopupClient } from '../../src/index.js';

/**
 * A server we did not write, answering 200 with a success envelope the client cannot use: `data` null or not an
 * object, or a list holding null where records belong. Every method rejects with one TopupError that says so in a
 * sentence, never with the TypeError of reading a field of null.
 */

/** The body every request gets next (set by each test), and where. */
const server = useAnswerServer();
let client: TopupClient;
beforeAll(() => {
  client = createClient({ baseUrl: server.url, token: 'topup_test_x', pacing: false, maxRetries: 0 });
});

function answer(data: unknown): void {
  server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data }) };
}

/** The rejection of `call`: a TopupError (by its brand, as callers test it), not a TypeError. */
async function rejection(call: () => PromiseLike<unknown>): Promise<{ name: string; kind: unknown; message: string }> {
  let caught: unknown;
  try {
    await call();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(Error);
  const error = caught as Error & { kind?: unknown };
  expect(error).not.toBeInstanceOf(TypeError);
  return { name: error.name, kind: error.kind, message: error.message };
}

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

/** Every method that returns the envelope's `data`, by the CLI command that prints it. */
const methods: [string, (c: TopupClient) => PromiseLike<unknown>][] = [
  ['health', (c) => c.health()],
  ['catalog.creditPackages', (c) => c.catalog.creditPackages()],
  ['catalog.paymentMethods', (c) => c.catalog.paymentMethods()],
  ['articles.list', (c) => c.articles.list()],
  ['articles.get', (c) => c.articles.get('some-article')],
  ['token.validate', (c) => c.token.validate()],
  ['account.profile', (c) => c.account.profile()],
  ['account.dashboard', (c) => c.account.dashboard()],
  ['balance.get', (c) => c.balance.get()],
  ['balance.transactions', (c) => c.balance.transactions()],
  ['deposits.list', (c) => c.deposits.list()],
  ['deposits.get', (c) => c.deposits.get('INV1')],
  ['orders.list', (c) => c.orders.list()],
  ['orders.get', (c) => c.orders.get('INV1')],
  ['orders.create', (c) => c.orders.create(order, { idempotencyKey: 'null-data-test' })],
  ['invoices.get', (c) => c.invoices.get('INV1')],
  ['invoices.status', (c) => c.invoices.status('INV1')],
  ['invoices.wait', (c) => c.invoices.wait('INV1', { timeout: 0 })],
];

describe('an answer whose data is not an object', () => {
  it.each(methods)('%s: data null is a TopupError with a sentence', async (_name, call) => {
    answer(null);
    expect(await rejection(() => call(client))).toEqual({
      name: 'TopupError',
      kind: 'api',
      message: "The server's answer has null instead of a data object.",
    });
  });

  it.each([
    ['a string', 'x'],
    ['a number', 7],
    ['a boolean', true],
    ['a list', [{ code: 'P1' }]],
  ])('data that is %s is named as it is', async (kind, data) => {
    answer(data);
    expect((await rejection(() => client.catalog.creditPackages())).message).toBe(
      `The server's answer has ${kind} instead of a data object.`,
    );
  });

  it('orders.create: the error carries the Idempotency-Key, since the order may have been made', async () => {
    answer(null);
    const error = await client.orders.create(order, { idempotencyKey: 'null-data-key' }).then(
      () => undefined,
      (caught: unknown) => caught as { idempotencyKey?: unknown },
    );
    expect(error?.idempotencyKey).toBe('null-data-key');
  });
});

/** The list methods, with the key their items come under, and where a page is awaited or its items iterated. */
const lists: [string, string, (c: TopupClient) => PromiseLike<unknown>][] = [
  ['catalog.creditPackages', 'packages', (c) => c.catalog.creditPackages()],
  ['catalog.paymentMethods', 'payment_methods', (c) => c.catalog.paymentMethods()],
  ['articles.list', 'articles', (c) => c.articles.list()],
  ['balance.transactions', 'transactions', (c) => c.balance.transactions()],
  ['deposits.list', 'deposits', (c) => c.deposits.list()],
  ['orders.list', 'orders', (c) => c.orders.list()],
  ['account.dashboard', 'recent_orders', (c) => c.account.dashboard()],
];

async function iterate(items: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

describe('a list holding something other than a record', () => {
  it.each(lists)('%s: null in its %s list is a TopupError naming the item', async (_name, key, call) => {
    answer({ [key]: [{ invoice_code: 'INV1', code: 'P1' }, null] });
    expect(await rejection(() => call(client))).toEqual({
      name: 'TopupError',
      kind: 'api',
      message: `The server's answer has null instead of a record at item 2 of its ${key} list.`,
    });
  });

  it.each([
    ['articles', (c: TopupClient) => c.articles.list()],
    ['transactions', (c: TopupClient) => c.balance.transactions()],
    ['deposits', (c: TopupClient) => c.deposits.list()],
    ['orders', (c: TopupClient) => c.orders.list()],
  ] as const)('for await over %s: the same error, not a null item', async (key, list) => {
    answer({ [key]: [null] });
    expect((await rejection(() => iterate(list(client)))).message).toBe(
      `The server's answer has null instead of a record at item 1 of its ${key} list.`,
    );
  });

  it('an item that is a string or a list is named as it is', async () => {
    answer({ orders: ['INV1'] });
    expect((await rejection(() => client.orders.list())).message).toBe(
      "The server's answer has a string instead of a record at item 1 of its orders list.",
    );
    answer({ orders: [{ invoice_code: 'INV1' }, { invoice_code: 'INV2' }, []] });
    expect((await rejection(() => client.orders.list())).message).toBe(
      "The server's answer has a list instead of a record at item 3 of its orders list.",
    );
  });

  it('orders.create: an invoice that is null is a TopupError with the Idempotency-Key', async () => {
    answer({ invoice: null, idempotent: false });
    const call = () => client.orders.create(order, { idempotencyKey: 'null-invoice-key' });
    expect(await rejection(call)).toEqual({ name: 'TopupError', kind: 'api', message: "The server's answer has no invoice." });
    await expect(call()).rejects.toMatchObject({ idempotencyKey: 'null-invoice-key' });
  });

  it('orders.createMany: a created order without an invoice stops the batch with that TopupError, not a TypeError', async () => {
    answer({ invoice: null, idempotent: false });
    const result = await client.orders.createMany([{ body: order, key: 'null-invoice-row' }], {});
    expect(result.stopped?.reason).toBe('error');
    const error = (result.stopped as { error: Error }).error;
    expect(error).not.toBeInstanceOf(TypeError);
    expect(error.message).toBe("The server's answer has no invoice.");
  });
});

/**
 * Guards against the opposite mistake, a client stricter than the document: these pass with or without the checks
 * above, and fail if a check reaches into what the document leaves optional or unknown.
 */
describe('what the client does not check stays as the server sent it', () => {
  it('a list or record left out, unknown fields and unknown values pass through', async () => {
    answer({ limit: 10, extra: null, note: [null, 'x'] });
    expect(await client.catalog.creditPackages()).toEqual({ limit: 10, extra: null, note: [null, 'x'] });
    answer({ orders: [{ invoice_code: 'INV1', status: 'brand_new', extra: null }], pagination: null });
    expect(await client.orders.list()).toEqual({ orders: [{ invoice_code: 'INV1', status: 'brand_new', extra: null }], pagination: null });
    answer({ balance: 5 });
    expect(await client.account.dashboard()).toEqual({ balance: 5 });
    answer({});
    expect(await client.health()).toEqual({});
  });

  it('a list that is not a list is still told about by its reader, as before', async () => {
    answer({ orders: 'x' });
    expect(await client.orders.list()).toEqual({ orders: 'x' });
    expect((await rejection(() => iterate(client.orders.list()))).message).toBe("The server's answer has no orders list.");
  });

  it('an answer without a success envelope is still said so', async () => {
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok' }) };
    expect((await rejection(() => client.health())).message).toBe('The server answered without a success envelope.');
  });

  it("a 200 that says it failed is an error in the server's own words", async () => {
    server.answer = { status: 200, body: JSON.stringify({ success: false, message: 'Maintenance until 10:00.' }) };
    expect(await rejection(() => client.health())).toMatchObject({
      name: 'TopupError',
      message: 'The server answered 200 but says it failed: Maintenance until 10:00.',
    });
  });
});
