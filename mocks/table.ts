import { Collection } from '@msw/data';
import type { z } from 'zod';

/**
 * An @msw/data collection plus the indexes that keep the sandbox fast at 100k records:
 * @msw/data queries scan every record, so lookups by key and per-account listings go through maps here.
 * Records are the collection's own objects; state transitions mutate them in place, because
 * `Collection.update()` scans the whole collection twice per call and nothing here relies on its hooks.
 */
export class Table<S extends z.ZodObject> {
  readonly collection: Collection<S>;
  readonly schema: S;
  readonly #keyOf: (record: z.output<S>) => string;
  readonly #ownerOf: ((record: z.output<S>) => number) | undefined;
  readonly #byKey = new Map<string, z.output<S>>();
  readonly #byOwner = new Map<number, z.output<S>[]>();
  #version = 0;

  constructor(schema: S, keyOf: (record: z.output<S>) => string, ownerOf?: (record: z.output<S>) => number) {
    this.schema = schema;
    this.collection = new Collection({ schema });
    this.#keyOf = keyOf;
    this.#ownerOf = ownerOf;
  }

  /** Validates the values against the schema (in @msw/data's create) and indexes the stored record. */
  async insert(values: z.input<S>): Promise<z.output<S>> {
    const record = (await this.collection.create(await withPrimaryKey(values, this.#keyOf(values as z.output<S>)))) as z.output<S>;
    const key = this.#keyOf(record);
    if (this.#byKey.has(key)) this.remove(key);
    this.#byKey.set(key, record);
    if (this.#ownerOf) {
      const owner = this.#ownerOf(record);
      const owned = this.#byOwner.get(owner);
      if (owned) owned.push(record);
      else this.#byOwner.set(owner, [record]);
    }
    this.#version += 1;
    return record;
  }

  /**
   * Changes whenever a record is inserted or removed, or the table is cleared. Not when a record is changed in
   * place, so only what is derived from tables whose records never change (the catalog) may be cached by it.
   */
  get version(): number {
    return this.#version;
  }

  get(key: string): z.output<S> | undefined {
    return this.#byKey.get(key);
  }

  /** The owner's records, oldest first. */
  ownedBy(ownerId: number): readonly z.output<S>[] {
    return this.#byOwner.get(ownerId) ?? [];
  }

  /** Every record, oldest first. */
  all(): readonly z.output<S>[] {
    return this.collection.all() as z.output<S>[];
  }

  get size(): number {
    return this.collection.count();
  }

  remove(key: string): void {
    const record = this.#byKey.get(key);
    if (record === undefined) return;
    this.collection.delete(record as never);
    this.#byKey.delete(key);
    this.#version += 1;
    const owned = this.#ownerOf ? this.#byOwner.get(this.#ownerOf(record)) : undefined;
    if (owned) owned.splice(owned.indexOf(record), 1);
  }

  clear(): void {
    this.collection.clear();
    this.#byKey.clear();
    this.#byOwner.clear();
    this.#version += 1;
  }
}

/**
 * @msw/data's create() keeps a primary key given in the initial values, and otherwise makes one with
 * crypto.randomUUID(), whose string costs about 480 bytes a record (a tree of concatenated pieces). Each table
 * already has a unique natural key, so records are created with it: at 100k orders that is ~100 MB less.
 * The key's symbol is not exported, so it is read once off a record @msw/data made; without it, create() simply
 * makes its own keys as before.
 */
let primaryKeySymbol: Promise<symbol | undefined> | undefined;

async function withPrimaryKey<T>(values: T, key: string): Promise<T> {
  primaryKeySymbol ??= new Collection({ schema: { '~standard': { version: 1, vendor: 'topup', validate: (value: unknown) => ({ value }) } } })
    .create({})
    .then((record) => Object.getOwnPropertySymbols(record).find((s) => s.description === 'kPrimaryKey'));
  const symbol = await primaryKeySymbol;
  if (symbol === undefined || values === null || typeof values !== 'object') return values;
  return Object.assign({}, values, { [symbol]: key });
}
