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
    const record = (await this.collection.create(values)) as z.output<S>;
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
