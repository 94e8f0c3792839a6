import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Collection } from '@msw/data';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { openPersistentSandbox } from '../../mocks/assembly/persistent-sandbox.js';
import type { SandboxSnapshot } from '../../mocks/state/snapshot.js';

/**
 * A restore puts checked records into @msw/data's collections in one pass (mocks/store/table.ts insertCheckedAll),
 * and keeps a state file's own parsed records rather than copies. These check that what it stores is what create()
 * would: only the schema's fields, found by @msw/data's queries, removable, with create()'s hidden properties.
 */
let dir: string;
let closers: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-restore-'));
});
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
  await rm(dir, { recursive: true, force: true });
});

const ORDER = JSON.stringify({ order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });

async function placeOrder(sandbox: Sandbox): Promise<string> {
  const response = await sandbox.handle({
    method: 'POST',
    url: `${sandbox.baseUrl}/api/v1/me/orders`,
    headers: { authorization: `Bearer ${sandbox.account('demo').token}`, 'content-type': 'application/json' },
    body: ORDER,
  });
  if ('drop' in response || response.status !== 201) throw new Error(`the order was refused: ${JSON.stringify(response)}`);
  return (JSON.parse(response.body) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
}

/** A state with one order, as a state file holds it (a snapshot with a journal id, so opening it writes nothing). */
async function stateWithAnOrder(): Promise<{ snapshot: SandboxSnapshot; code: string }> {
  const sandbox = await createSandbox();
  const code = await placeOrder(sandbox);
  const snapshot = JSON.parse(JSON.stringify({ ...sandbox.snapshot(), journal_id: 'restore-test' })) as SandboxSnapshot;
  return { snapshot, code };
}

/** The hidden properties of a record, as name and attributes (their values differ from record to record). */
function hiddenProperties(record: object) {
  return Object.getOwnPropertySymbols(record).map((symbol) => {
    const { enumerable, writable, configurable } = Object.getOwnPropertyDescriptor(record, symbol)!;
    return { name: symbol.description, enumerable, writable, configurable };
  });
}

/**
 * A record as @msw/data's create() makes it when given its primary key, as the sandbox's tables gave it before they
 * put records in directly: under @msw/data's own symbol (read off a record it made), in a collection of its own.
 */
async function madeByCreate(): Promise<object> {
  const collection = new Collection({ schema: z.object({}).loose() });
  const first = await collection.create({});
  const keySymbol = Object.getOwnPropertySymbols(first).find((symbol) => symbol.description === 'kPrimaryKey')!;
  return collection.create({ [keySymbol]: 'made' });
}

/** Both ways in: a state file opened (its parsed records kept) and `createSandbox({ snapshot })` (copied). */
const restoreWays: [string, (snapshot: SandboxSnapshot) => Promise<Sandbox>][] = [
  [
    'a state file',
    async (snapshot) => {
      const file = join(dir, 'state.json');
      await writeFile(file, JSON.stringify(snapshot));
      const opened = await openPersistentSandbox(file);
      closers.push(() => opened.close());
      return opened.sandbox;
    },
  ],
  ['createSandbox({ snapshot })', (snapshot) => createSandbox({ snapshot })],
];

describe.each(restoreWays)('records restored from %s', (_way, restore) => {
  it('keep only the fields of their schema', async () => {
    const { snapshot, code } = await stateWithAnOrder();
    const order = snapshot.tables.orders.find((o) => (o as { invoice_code: string }).invoice_code === code) as Record<string, unknown>;
    const fields = { ...order };
    order.not_a_field = 'left out';
    (snapshot.tables.articles[0] as Record<string, unknown>).extra = 'left out';
    const sandbox = await restore(snapshot);
    expect({ ...sandbox.store.db.orders.get(code) }).toEqual(fields);
    expect(sandbox.store.db.articles.all()[0]).not.toHaveProperty('extra');
    expect(sandbox.snapshot().tables.articles[0]).not.toHaveProperty('extra');
  });

  it("are found by @msw/data's queries and can be removed, like records create() made", async () => {
    const { snapshot, code } = await stateWithAnOrder();
    const sandbox = await restore(snapshot);
    const orders = sandbox.store.db.orders;
    const restored = orders.get(code)!;
    expect(orders.collection.findFirst((q) => q.where({ invoice_code: code }))).toBe(restored);
    // The hidden properties @msw/data's own create() gives a record, with the same attributes.
    expect(hiddenProperties(restored)).toEqual(hiddenProperties(await madeByCreate()));
    expect(hiddenProperties(restored).map((p) => p.name)).toEqual(['kPrimaryKey', 'kRelationMap']);
    expect(Object.keys({ ...restored })).toEqual(Object.keys(restored));
    orders.remove(code);
    expect(orders.get(code)).toBeUndefined();
    expect(orders.collection.findFirst((q) => q.where({ invoice_code: code }))).toBeUndefined();
    expect(orders.size).toBe(0);
  });

  it('are indexed by key and by owner', async () => {
    const { snapshot, code } = await stateWithAnOrder();
    const sandbox = await restore(snapshot);
    const order = sandbox.store.db.orders.get(code)!;
    expect(sandbox.store.db.orders.ownedBy(order.account_id)).toEqual([order]);
    expect(sandbox.store.db.invoices.get(code)?.account_id).toBe(order.account_id);
    expect(sandbox.store.db.accounts.get(String(order.account_id))?.name).toBe('demo');
  });
});

describe('records a route makes', () => {
  // Stored as a restore stores them (mocks/store/table.ts insertChecked): not through create(), whose own work and
  // relation map per record were most of what storing an order cost.
  it("are found by @msw/data's queries and can be removed, with create()'s hidden properties and one shared empty relation map", async () => {
    const sandbox = await createSandbox();
    const orders = sandbox.store.db.orders;
    const first = orders.get(await placeOrder(sandbox))!;
    const second = orders.get(await placeOrder(sandbox))!;
    expect(orders.collection.findFirst((q) => q.where({ invoice_code: second.invoice_code }))).toBe(second);
    expect(hiddenProperties(first)).toEqual(hiddenProperties(await madeByCreate()));
    const relations = (record: object) => {
      const symbol = Object.getOwnPropertySymbols(record).find((s) => s.description === 'kRelationMap')!;
      return (record as Record<symbol, unknown>)[symbol];
    };
    expect(relations(first)).toBeInstanceOf(Map);
    expect(relations(first)).toBe(relations(second));
    orders.remove(first.invoice_code);
    expect(orders.collection.findFirst((q) => q.where({ invoice_code: first.invoice_code }))).toBeUndefined();
    expect(orders.size).toBe(1);
    // What the state file gets is the record's fields only.
    expect(Object.keys(sandbox.snapshot().tables.orders[0]!)).toEqual(Object.keys(second));
  });
});
