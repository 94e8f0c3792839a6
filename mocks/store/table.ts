import { Collection } from '@msw/data';
import type { AnyRecordRule, RecordOf } from './record-rules.js';

/** What a table's records became since the last `takeChanges()`: the record, or null once it was removed. */
export interface TableChanges<R> {
  /** The table was emptied (a reset), so only a whole snapshot describes it now. */
  cleared: boolean;
  /**
   * Changed or created records, in the order they were first touched (created ones in creation order), and
   * removed keys. A key in both was removed and created again: apply the removals first, then the records.
   */
  put: R[];
  remove: string[];
}

/** What the sandbox lets others do with a table's @msw/data collection: read it. */
export type ReadonlyCollection<S extends AnyRecordRule> = Pick<Collection<S>, 'findFirst' | 'findMany' | 'count' | 'all'>;

/**
 * An @msw/data collection plus the indexes that keep the sandbox fast at 100k records:
 * @msw/data queries scan every record, so lookups by key and per-account listings go through maps here.
 * Records are the collection's own objects, read-only to the rest of the sandbox: they change only through
 * `update()`, in place (`Collection.update()` scans the whole collection twice per call, and nothing here relies
 * on its hooks), so that the table knows what changed: a state file appends only that (mocks/state/).
 */
export class Table<S extends AnyRecordRule> {
  #collection: Collection<S>;
  readonly schema: S;
  /** What the collection validates with: the table's schema, except for records this table copied (insertChecked). */
  readonly #collectionSchema: S;
  /** The schema's fields, in its order: all a checked record's copy keeps. */
  readonly #fields: readonly string[];
  readonly #keyOf: (record: Readonly<RecordOf<S>>) => string;
  readonly #ownerOf: ((record: Readonly<RecordOf<S>>) => number) | undefined;
  #byKey = new Map<string, Readonly<RecordOf<S>>>();
  readonly #byOwner = new Map<number, Readonly<RecordOf<S>>[]>();
  #version = 0;
  /** Only while a state file wants changes (`trackChanges()`): otherwise nobody drains them. */
  #changes: Map<string, Readonly<RecordOf<S>> | null> | undefined;
  #cleared = false;
  /** Keys removed and created again since the last `takeChanges()`: the new record goes last, as in the collection. */
  readonly #recreated = new Set<string>();

  /**
   * The @msw/data collection, for queries only (`findMany`, `findFirst`, `count`, `all`). Its `create`, `update` and
   * `delete` would change records behind the indexes and the state journal: change the sandbox through its API or
   * `sandbox.control` instead.
   */
  readonly collection: ReadonlyCollection<S>;

  /** Set while the table waits for its records (close()): its name, for the error any use of it throws. */
  #closedAs: string | undefined;

  constructor(schema: S, keyOf: (record: Readonly<RecordOf<S>>) => string, ownerOf?: (record: Readonly<RecordOf<S>>) => number) {
    this.schema = schema;
    this.#collectionSchema = checkedOrParsed(schema);
    this.#fields = schema.fields;
    this.#collection = new Collection({ schema: this.#collectionSchema });
    // Through #collection as it is at each call: clear() starts a new one.
    this.collection = Object.freeze({
      findFirst: ((...args: Parameters<Collection<S>['findFirst']>) => this.#open().findFirst(...args)) as Collection<S>['findFirst'],
      findMany: ((...args: Parameters<Collection<S>['findMany']>) => this.#open().findMany(...args)) as Collection<S>['findMany'],
      count: (...args: Parameters<Collection<S>['count']>) => this.#open().count(...args),
      all: () => this.#open().all(),
    });
    this.#keyOf = keyOf;
    this.#ownerOf = ownerOf;
  }

  /**
   * Checks the values against the table's rule and stores a copy, through `insertChecked()`. That check is all
   * @msw/data's create() would make; its sanitising walk of the values (for relations, which these tables have none
   * of) and the hand-over to the collection's schema were most of the cost of a route's insert (`POST /me/orders`
   * makes three or four records). A record that fails throws a RecordRefusal, before anything changes.
   */
  async insert(values: RecordOf<S>): Promise<Readonly<RecordOf<S>>> {
    this.#open();
    return this.insertChecked(this.schema.parse(values) as RecordOf<S>);
  }

  /**
   * Stores a copy of a record that already passed this table's schema (a state checked whole by checkState, the seed
   * this process built, a record a route built from checked parts): the copy keeps the schema's fields only. It goes
   * into the collection's list as insertCheckedAll() puts a restored record, marked as create() marks one
   * (directInsert): create()'s own work (its sanitising walk, its loggers, two awaits, a relation map per record) was
   * most of what storing an order's records cost, and about a fifth of the sandbox's CPU per `POST /me/orders`. When
   * this @msw/data keeps records another way, or the collection has hooks on create, it goes through create(), which
   * then skips both of its copies of the values. Anything else goes through `insert()` or `insertBuilt()`.
   */
  async insertChecked(values: Readonly<RecordOf<S>>): Promise<Readonly<RecordOf<S>>> {
    this.#open();
    const copy = this.#copyOf(values);
    const key = this.#keyOf(values);
    // Found once per process; later inserts do not wait for it.
    const direct = this.#directInsert(directInsertReady ?? (await directInsert()));
    if (direct !== undefined) {
      direct.mark(copy, key);
      (this.#collection.all() as unknown[]).push(copy);
      return this.#stored(copy as RecordOf<S>, key);
    }
    return this.#created(copy, key);
  }

  /**
   * insertChecked() through @msw/data's create(), for the seed of a fresh `createSandbox()`: put in directly, its 250
   * records made V8 drop its optimised code of the sandbox's constructors for stretches of some 50 sandboxes a few
   * times in a process's first 300 (each then about 0.8 ms instead of 0.1-0.3), which a bot's test files, each making
   * its sandboxes in a process of its own, would meet.
   */
  async insertCheckedByCreate(values: Readonly<RecordOf<S>>): Promise<Readonly<RecordOf<S>>> {
    this.#open();
    return this.#created(this.#copyOf(values), this.#keyOf(values));
  }

  /**
   * How a record goes into this table's collection directly (what directInsert() found), or undefined when it must go
   * through create(): this @msw/data keeps its records another way, or someone listens to the collection's creations.
   */
  #directInsert(found: DirectInsert | undefined): DirectInsert | undefined {
    return this.#collection.hooks.listenerCount('create') === 0 ? found : undefined;
  }

  /** A copy of checked values stored through create(), which is handed the copy as its validated value. */
  async #created(copy: Record<string, unknown>, key: string): Promise<Readonly<RecordOf<S>>> {
    // Looked up once per process; each later insert saves the wait for it (one insert is a few microseconds).
    const symbol = primaryKeySymbolFound === null ? await primaryKeySymbol() : primaryKeySymbolFound;
    // @msw/data's create() validates its input before it first waits: the copy is handed to that validation
    // (checkedOrParsed), and the input holds only the primary key, which create() reads off it, so its sanitising
    // walk has one key to walk.
    handedOver = copy;
    let creating: Promise<unknown>;
    try {
      creating = this.#collection.create(symbol === undefined ? {} : { [symbol]: key });
    } finally {
      handedOver = undefined;
    }
    return this.#stored((await creating) as RecordOf<S>, key);
  }

  /**
   * A record a route built: from values that passed their contract schema (the request body) and values computed
   * from checked records and the clock. Stored as `insertChecked()` stores a checked record when `fits` says what the
   * route cannot build from checked parts holds (the clock reads a whole millisecond within the range records hold);
   * otherwise parsed as `insert()` parses, failing as it always did. test/sandbox/route-records.test.ts checks every
   * kind of record each route builds against the state schema.
   */
  insertBuilt(values: RecordOf<S>, fits: boolean): Promise<Readonly<RecordOf<S>>> {
    return fits ? this.insertChecked(values) : this.insert(values);
  }

  /**
   * Stores records that already passed this table's schema (a state checked whole by checkState), in their order:
   * what insertChecked() does one record at a time, in one pass with no await per record. At 100k orders,
   * create()'s own work per record (its sanitising walk of the input, its loggers, two awaits) was more than the
   * rest of the restore. The records go into the collection's own list (`all()`) made as create() makes them: the
   * primary key and an empty relation map, under @msw/data's own symbols with create()'s attributes, read once off
   * a record create() made (directInsert). When this @msw/data does not keep its records that way, or the
   * collection has hooks on create, each record goes through create() (insertCheckedByCreate).
   * `adopt`: the records are the sandbox's own (a state file this process parsed, handed to nobody else): one that
   * holds the schema's fields and nothing else is kept as it is instead of copied. `byKey`: the records by their key,
   * every key once, as the state's check built it (checkStateKeyed): into an empty table, it becomes the table's index
   * rather than being built a second time.
   */
  async insertCheckedAll(
    records: readonly Readonly<RecordOf<S>>[],
    options: { adopt?: boolean; byKey?: Map<string, Readonly<RecordOf<S>>>; loaded?: boolean } = {},
  ): Promise<void> {
    this.#open();
    const direct = this.#directInsert(await directInsert());
    if (direct === undefined) {
      for (const values of records) await this.insertCheckedByCreate(values);
      return;
    }
    const list = this.#collection.all() as unknown[];
    const adopt = options.adopt === true;
    // The plain way (#stored) unless the table is empty and nobody follows its changes, or these are no changes: the
    // records a state file already holds, read after the rest (`loaded`, Store.deferLoad).
    const given = this.#byKey.size === 0 && (this.#changes === undefined || options.loaded === true) ? options.byKey : undefined;
    const byKey = given ?? this.#byKey;
    for (const values of records) {
      const adopted = adopt && this.#holdsOnlyFields(values);
      const record = adopted ? (values as RecordOf<S>) : (this.#copyOf(values) as RecordOf<S>);
      const key = this.#keyOf(record);
      direct.mark(record, key);
      list.push(record);
      if (given === undefined) this.#stored(record, key);
      else {
        if (!adopted) byKey.set(key, record);
        this.#index(record);
      }
    }
    if (given !== undefined) {
      this.#byKey = byKey;
      this.#version += 1;
    }
  }

  /** A copy holding only the schema's fields (insertChecked). */
  #copyOf(values: Readonly<RecordOf<S>>): Record<string, unknown> {
    const copy: Record<string, unknown> = {};
    const source = values as Record<string, unknown>;
    for (const field of this.#fields) {
      const value = source[field];
      // Arrays (an article's tags) are copied too: a record never shares a mutable part with its source.
      if (value !== undefined) copy[field] = Array.isArray(value) ? value.slice() : value;
    }
    return copy;
  }

  /**
   * Whether every own key of values that passed the schema is one of its fields (so a copy would keep them all): a
   * field the schema requires is there, so only the optional ones need counting.
   */
  #holdsOnlyFields(values: Readonly<RecordOf<S>>): boolean {
    const source = values as Record<string, unknown>;
    const optionalFields = this.schema.optionalFields;
    let present = this.#fields.length - optionalFields.length;
    for (const field of optionalFields) if (source[field] !== undefined) present += 1;
    let keys = 0;
    for (const key in source) if (Object.hasOwn(source, key)) keys += 1;
    return keys === present;
  }

  /** Indexes a record the collection just created under its key, and notes it for the state file. */
  #stored(record: RecordOf<S>, key: string): Readonly<RecordOf<S>> {
    if (this.#byKey.has(key)) this.remove(key);
    this.#byKey.set(key, record);
    this.#index(record);
    this.#version += 1;
    if (this.#changes) {
      // A key removed and created again is a new record: it goes after the others, where the collection put it.
      if (this.#changes.get(key) === null) this.#recreated.add(key);
      this.#changes.delete(key);
      this.#changes.set(key, record);
    }
    return record;
  }

  /** Lists a record under its owner. */
  #index(record: RecordOf<S>): void {
    if (this.#ownerOf === undefined) return;
    const owner = this.#ownerOf(record);
    const owned = this.#byOwner.get(owner);
    if (owned) owned.push(record);
    else this.#byOwner.set(owner, [record]);
  }

  /**
   * Changes a stored record in place. The key and the owner never change (they index the record), so they may
   * not be in the patch; values are checked against the schema's field types first.
   */
  update(record: Readonly<RecordOf<S>>, patch: Partial<RecordOf<S>>): void {
    this.#open();
    const key = this.#keyOf(record);
    if (this.#byKey.get(key) !== record) throw new Error(`update: the record ${key} is not in this table`);
    const next = Object.assign({}, record, patch) as RecordOf<S>;
    this.schema.parse(next);
    if (this.#keyOf(next) !== key || (this.#ownerOf && this.#ownerOf(next) !== this.#ownerOf(record)))
      throw new Error(`update: the key or owner of ${key} cannot change`);
    Object.assign(record as object, patch);
    this.#changes?.set(key, record);
  }

  /**
   * Changes whenever a record is inserted or removed, or the table is cleared. Not when a record is changed in
   * place, so only what is derived from tables whose records never change (the catalog) may be cached by it.
   */
  get version(): number {
    this.#open();
    return this.#version;
  }

  get(key: string): Readonly<RecordOf<S>> | undefined {
    this.#open();
    return this.#byKey.get(key);
  }

  /** The owner's records, oldest first. */
  ownedBy(ownerId: number): readonly Readonly<RecordOf<S>>[] {
    this.#open();
    return this.#byOwner.get(ownerId) ?? [];
  }

  /** Every record, oldest first. */
  all(): readonly Readonly<RecordOf<S>>[] {
    return this.#open().all() as unknown as RecordOf<S>[];
  }

  get size(): number {
    return this.#open().count();
  }

  remove(key: string): void {
    this.#open();
    const record = this.#byKey.get(key);
    if (record === undefined) return;
    this.#collection.delete(record as never);
    this.#byKey.delete(key);
    this.#version += 1;
    const owned = this.#ownerOf ? this.#byOwner.get(this.#ownerOf(record)) : undefined;
    if (owned) owned.splice(owned.indexOf(record), 1);
    if (this.#changes) {
      this.#changes.delete(key);
      this.#changes.set(key, null);
    }
  }

  clear(): void {
    // A new collection rather than Collection.clear(), which deletes record by record, each a search and a splice:
    // minutes at 100k orders, for every reset and every state loaded over a full store.
    this.#collection = new Collection({ schema: this.#collectionSchema });
    this.#byKey.clear();
    this.#byOwner.clear();
    this.#version += 1;
    this.#changes?.clear();
    this.#recreated.clear();
    this.#cleared = true;
  }

  /**
   * Empties the table and closes it until open(): its records are still to be read (Store.deferLoad). Any use of it
   * until then throws, so that no request reads it empty and no snapshot writes it so. Emptied as no change: the
   * records are where they were read from.
   */
  close(name: string): void {
    this.#collection = new Collection({ schema: this.#collectionSchema });
    this.#byKey = new Map();
    this.#byOwner.clear();
    this.#version += 1;
    this.#changes?.clear();
    this.#recreated.clear();
    this.#closedAs = name;
  }

  /** Opens a closed table to be filled (Store.deferLoad). */
  open(): void {
    this.#closedAs = undefined;
  }

  /** The collection, when the table is open. */
  #open(): Collection<S> {
    if (this.#closedAs !== undefined)
      throw new Error(`sandbox store: the ${this.#closedAs} table was used before its records were read from the state file`);
    return this.#collection;
  }

  /** From now on, remembers what changes, for `takeChanges()`. */
  trackChanges(): void {
    this.#changes = new Map();
    this.#recreated.clear();
    this.#cleared = false;
  }

  /** Whether anything changed that `takeChanges()` has not handed out yet. */
  get hasUntakenChanges(): boolean {
    return this.#cleared || (this.#changes?.size ?? 0) > 0;
  }

  /** What changed since the last call (copies of the records, as they are now), and forgets it. */
  takeChanges(): TableChanges<RecordOf<S>> {
    const changes: TableChanges<RecordOf<S>> = { cleared: this.#cleared, put: [], remove: [] };
    for (const [key, record] of this.#changes ?? []) {
      if (record === null || this.#recreated.has(key)) changes.remove.push(key);
      if (record !== null) changes.put.push(Object.assign({}, record) as RecordOf<S>);
    }
    this.#changes?.clear();
    this.#recreated.clear();
    this.#cleared = false;
    return changes;
  }
}

/** A schema that takes any value as it is: for the probes below. */
const passThrough = { '~standard': { version: 1, vendor: 'topup', validate: (value: unknown) => ({ value }) } } as const;

/**
 * @msw/data's create() keeps a primary key given in the initial values, and otherwise makes one with
 * crypto.randomUUID(), whose string costs about 480 bytes a record (a tree of concatenated pieces). Each table
 * already has a unique natural key, so records are created with it: at 100k orders that is ~100 MB less.
 * The key's symbol is not exported, so it is read once off a record @msw/data made; without it, create() simply
 * makes its own keys as before.
 */
let primaryKeySymbolLookup: Promise<symbol | undefined> | undefined;
/** The symbol once looked up (undefined: @msw/data has none); null until then. */
let primaryKeySymbolFound: symbol | undefined | null = null;

function primaryKeySymbol(): Promise<symbol | undefined> {
  primaryKeySymbolLookup ??= new Collection({ schema: passThrough })
    .create(keyAsker())
    .then((record) => (primaryKeySymbolFound = Object.getOwnPropertySymbols(record).find((s) => s.description === 'kPrimaryKey')));
  return primaryKeySymbolLookup;
}

/**
 * Empty initial values that give create() a primary key when it asks for one by its symbol. Given none, create()
 * makes one with crypto.randomUUID(), and loading node's crypto for that was about 7 ms of every offline command,
 * which otherwise needs none. If create() asks another way, it makes its own key, as before.
 */
function keyAsker(): object {
  return new Proxy(
    {},
    {
      get: (target, property, receiver) =>
        typeof property === 'symbol' && property.description === 'kPrimaryKey'
          ? 'probe'
          : (Reflect.get(target, property, receiver) as unknown),
    },
  );
}

/** The record insertChecked() copied, for the one validation its create() makes; module-private, so unforgeable. */
let handedOver: object | undefined;

/**
 * The relation map of every record put in directly. create() gives each record a Map of its own, which only
 * @msw/data's relations ever fill; these tables have none, so it stays empty. One shared map that refuses entries
 * holds the same nothing: at 100k orders, 200k Maps less were a sixth of opening the state file (the young
 * generation copied each of them twice) and about 38 MB of heap.
 */
class NoRelations extends Map<never, never> {
  override set(): this {
    throw new Error('The sandbox tables have no @msw/data relations.');
  }
}
const NO_RELATIONS = new NoRelations();

/** Makes a record what create() makes of it: its primary key and an empty relation map (NO_RELATIONS), as @msw/data defines them. */
interface DirectInsert {
  mark(record: object, key: string): void;
}

let directInsertFound: Promise<DirectInsert | undefined> | undefined;
/** What directInsert() found, once it has (undefined before, and when it found none). */
let directInsertReady: DirectInsert | undefined;

/**
 * How create() marks a record, read off one it made, and whether a record put into `all()` (which hands back the
 * collection's own list) is one of the collection's: undefined when this @msw/data does either another way.
 */
function directInsert(): Promise<DirectInsert | undefined> {
  directInsertFound ??= (async () => {
    const keySymbol = await primaryKeySymbol();
    if (keySymbol === undefined) return undefined;
    const probe = new Collection({ schema: passThrough });
    const made = await probe.create({ [keySymbol]: 'made' });
    const relationsSymbol = Object.getOwnPropertySymbols(made).find((s) => s.description === 'kRelationMap');
    const list = probe.all() as unknown[];
    if (relationsSymbol === undefined || list !== probe.all() || list.length !== 1 || list[0] !== made) return undefined;
    const keyDescriptor = Object.getOwnPropertyDescriptor(made, keySymbol);
    const relationsDescriptor = Object.getOwnPropertyDescriptor(made, relationsSymbol);
    if (keyDescriptor?.value !== 'made' || !(relationsDescriptor?.value instanceof Map) || relationsDescriptor.value.size !== 0)
      return undefined;
    // One descriptor each, reused: only the key changes from record to record.
    const key: PropertyDescriptor = { ...keyDescriptor };
    const relations: PropertyDescriptor = { ...relationsDescriptor, value: NO_RELATIONS };
    const direct: DirectInsert = {
      mark(record, value) {
        key.value = value;
        Object.defineProperty(record, keySymbol, key);
        Object.defineProperty(record, relationsSymbol, relations);
      },
    };
    const pushed = {};
    direct.mark(pushed, 'pushed');
    list.push(pushed);
    directInsertReady = probe.count() === 2 && probe.all()[1] === pushed ? direct : undefined;
    return directInsertReady;
  })();
  return directInsertFound;
}

/**
 * The table's schema as @msw/data sees it (a Standard Schema): the record insertChecked() hands over is the record as
 * it is; any other input is checked by the table's rule (mocks/store/record-rules.ts).
 */
function checkedOrParsed<S extends AnyRecordRule>(schema: S): S {
  const standard = schema['~standard'];
  return {
    '~standard': {
      ...standard,
      validate: (value: unknown) => {
        const record = handedOver;
        if (record === undefined) return standard.validate(value);
        handedOver = undefined;
        return { value: record };
      },
    },
  } as unknown as S;
}
