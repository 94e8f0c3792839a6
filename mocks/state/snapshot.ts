import { HISTORY_TABLES, isHistoryTable, type Db, type TableName } from '../store/db.js';
import type { Counters, Store, TableChangeSet } from '../store/store.js';
import { tableKeys } from '../store/table-keys.js';
import { rebuildSchedule } from '../rules/timed-moves.js';
import type { HistoryMoves } from './state-layout.js';
import { checkStateKeyed, SNAPSHOT_VERSION, StateRefusal, type SandboxState } from './state-schema.js';

export { SNAPSHOT_VERSION };

/** The whole sandbox state as plain JSON: what `--state FILE` and the offline CLI keep between runs. */
export interface SandboxSnapshot {
  version: typeof SNAPSHOT_VERSION;
  clock_offset_ms: number;
  counters: Counters;
  tables: { [K in TableName]: unknown[] };
  /** Names the journal that continues this snapshot (mocks/state/): lines with another id are not its own. */
  journal_id?: string;
}

/** What one commit changed: a line of a state file's journal. */
export interface SandboxChanges {
  clock_offset_ms: number;
  counters: Counters;
  tables: TableChangeSet;
}

/**
 * Where a sandbox keeps its state as it changes (a state file, see mocks/state/). After each commit the sandbox
 * hands it what changed since the last write, or the whole state when it asks for that or after a reset.
 * The request that made the change is answered once `write` resolves.
 */
export interface StateWriter {
  /** True when the next write should be the whole state (no snapshot yet, or the changes outgrew it). */
  readonly wantsSnapshot: boolean;
  write(state: { snapshot: SandboxSnapshot } | { changes: SandboxChanges }): Promise<void>;
}

export function takeSnapshot(store: Store, clockOffsetMs: number): SandboxSnapshot {
  const tables = {} as SandboxSnapshot['tables'];
  // Copies of the records: routes change records in place, and a snapshot must stay the moment it was taken.
  for (const [name, table] of Object.entries(store.db) as [TableName, Db[TableName]][])
    tables[name] = table.all().map((record) => ({ ...record }));
  return { version: SNAPSHOT_VERSION, clock_offset_ms: clockOffsetMs, counters: { ...store.counters }, tables };
}

export class SnapshotError extends Error {
  override name = 'SnapshotError';
  /** The field at fault, as a path (`counters.invoice`, `tables.orders[3].created_at`), when one is. */
  readonly field: string | undefined;
  /**
   * The file refused as a whole, when it is no plain file of its own (a symbolic link, a folder, a hard link): no repair
   * or reset of its content helps; it must be moved away.
   */
  unsafeFile: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }

  /** A state file refused by src/safe-file.ts's rules, with its path kept (`unsafeFile`). */
  static ofUnsafeFile(error: { message: string; path: string }): SnapshotError {
    const refused = new SnapshotError(error.message);
    refused.unsafeFile = error.path;
    return refused;
  }
}

/**
 * Replaces what the store holds with a snapshot, checked whole first (mocks/state/state-schema.ts) against the
 * sandbox clock it will run on (`clock`, epoch ms, before the snapshot's offset): a bad one throws SnapshotError,
 * naming the field, and leaves the store as it was. Returns the snapshot's clock offset.
 */
export async function restoreSnapshot(store: Store, snapshot: unknown, clock: number = Date.now()): Promise<number> {
  if (!isSnapshotOfThisVersion(snapshot))
    throw new SnapshotError(
      `${REFUSED}Not a sandbox state file of version ${SNAPSHOT_VERSION}${isControlAnswer(snapshot) ? `; this is the answer of GET /__sandbox/state, whose data is the state: load its data (topup mock state save writes it so)` : ''}.`,
      'version',
    );
  const { state, keys } = checkedState(snapshot, clock);
  // Taken whether or not the state passes: a snapshot is handed over once.
  const adopt = handedOver.delete(snapshot as object);
  const history = deferredHistory.get(snapshot as object);
  deferredHistory.delete(snapshot as object);
  store.clear();
  for (const name of Object.keys(store.db) as TableName[])
    await insertChecked(store, name, state.tables[name], { adopt, byKey: keys[name] });
  store.counters = { ...state.counters };
  rebuildSchedule(store);
  if (history !== undefined) store.deferLoad(HISTORY_TABLES, () => restoreHistory(store, state, clock, history.read), history.moves);
  return state.clock_offset_ms;
}

/** Checked records into a table (see Table.insertCheckedAll). */
function insertChecked(
  store: Store,
  name: TableName,
  records: readonly unknown[],
  options: { adopt: boolean; byKey: Map<string, unknown>; loaded?: boolean },
): Promise<void> {
  const table = store.db[name] as unknown as {
    insertCheckedAll(values: readonly unknown[], options: { adopt: boolean; byKey: Map<string, unknown>; loaded?: boolean }): Promise<void>;
  };
  // checkState has checked every record against its table's schema: the tables keep them without checking again.
  return table.insertCheckedAll(records, options);
}

/** Reads a head-only snapshot's history (state-layout.ts): its tables, with the journal's changes to them applied. */
export type HistoryReader = () => SandboxSnapshot['tables'];

/** Head-only snapshots (mocks/state/file.ts), with how to read the rest. */
const deferredHistory = new WeakMap<object, { read: HistoryReader; moves: HistoryMoves }>();

/**
 * Marks a snapshot read without its history (HISTORY_TABLES, empty in it): restoring it leaves those tables closed
 * (Store.deferLoad) until a request needs them, and `read` then fetches them to be checked and restored. `moves`:
 * what in the history may move by itself, and from when (state-layout.ts).
 */
export function deferHistory<T extends SandboxSnapshot>(snapshot: T, read: HistoryReader, moves: HistoryMoves): T {
  deferredHistory.set(snapshot, { read, moves });
  return snapshot;
}

/**
 * The history, restored into a store that holds the rest: the state as it now stands checked whole (the records
 * in the store and the history read), as any state is at its open, then the history's tables filled as a restore
 * fills them, without counting as changes (the files hold them already). A bad one throws SnapshotError.
 */
async function restoreHistory(store: Store, opened: SandboxState, clock: number, read: HistoryReader): Promise<void> {
  const tables = { ...read() };
  for (const name of Object.keys(store.db) as TableName[]) if (!isHistoryTable(name)) tables[name] = store.db[name].all() as unknown[];
  const { state, keys } = checkedState({ ...opened, counters: store.counters, tables }, clock);
  const generation = store.generation;
  store.openDeferred();
  for (const name of HISTORY_TABLES) {
    // Replaced while this waited (a reset, a state loaded): what was read belongs to the state before.
    if (store.generation !== generation) return;
    await insertChecked(store, name, state.tables[name], { adopt: true, byKey: keys[name], loaded: true });
  }
  rebuildSchedule(store);
}

const REFUSED = 'The state cannot be loaded: ';

/** checkStateKeyed, a refusal said as a SnapshotError naming the field. */
function checkedState(value: unknown, clock: number): ReturnType<typeof checkStateKeyed> {
  try {
    return checkStateKeyed(value, clock);
  } catch (error) {
    if (error instanceof StateRefusal) throw new SnapshotError(`${REFUSED}${error.message}`, error.field);
    throw error;
  }
}

/** Snapshots whose records nobody else holds (handOver): restoring one keeps its records rather than copies. */
const handedOver = new WeakSet<object>();

/**
 * Hands a snapshot over to the restore that comes next, as a state file's is (mocks/state/file.ts parsed it and
 * forgets it): its records become the store's own, changed in place from then on, where a snapshot given to
 * `createSandbox` stays its caller's and is copied. It is checked whole all the same.
 */
export function handOver<T extends object>(snapshot: T): T {
  handedOver.add(snapshot);
  return snapshot;
}

function isSnapshotOfThisVersion(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { version?: unknown }).version === SNAPSHOT_VERSION;
}

/**
 * The snapshot with journal entries applied in order: records by key replaced where they are (a changed record
 * keeps its place), new ones appended, removed ones dropped. Plain JSON in and out; restoreSnapshot validates.
 */
export function applyChanges(snapshot: SandboxSnapshot, entries: readonly SandboxChanges[]): SandboxSnapshot {
  if (entries.length === 0) return snapshot;
  const tables = new Map<TableName, Map<string, unknown>>();
  const tableOf = (name: string): Map<string, unknown> => {
    if (!Object.hasOwn(tableKeys, name)) throw new SnapshotError(`The state file's journal names an unknown table '${name}'.`);
    const keyOf = tableKeys[name as TableName] as (record: unknown) => string;
    let table = tables.get(name as TableName);
    if (table === undefined) {
      const records = snapshot.tables[name as TableName] ?? [];
      if (!Array.isArray(records))
        throw new SnapshotError(`The state cannot be loaded: tables.${name} must be a list of records.`, `tables.${name}`);
      table = new Map(
        records.map((record, index) => {
          if (record === null || typeof record !== 'object')
            throw new SnapshotError(`The state cannot be loaded: tables.${name}[${index}] must be an object.`, `tables.${name}[${index}]`);
          return [keyOf(record), record];
        }),
      );
      tables.set(name as TableName, table);
    }
    return table;
  };
  let { clock_offset_ms, counters } = snapshot;
  for (const entry of entries) {
    for (const [name, change] of Object.entries(entry.tables)) {
      const table = tableOf(name);
      const keyOf = tableKeys[name as TableName] as (record: unknown) => string;
      for (const key of change.remove) table.delete(key);
      for (const record of change.put) {
        if (record === null || typeof record !== 'object')
          throw new SnapshotError(`The state file's journal has an invalid record in '${name}'.`);
        table.set(keyOf(record), record);
      }
    }
    clock_offset_ms = entry.clock_offset_ms;
    counters = entry.counters;
  }
  const merged = { ...snapshot.tables };
  for (const [name, table] of tables) merged[name] = [...table.values()];
  return { ...snapshot, clock_offset_ms, counters, tables: merged };
}

/**
 * Enough of a snapshot to replay its journal onto (mocks/state/file.ts): the rest, field by field, is for
 * restoreSnapshot to check and name.
 */
export function isSnapshot(value: unknown): value is SandboxSnapshot {
  if (value === null || typeof value !== 'object') return false;
  const s = value as Partial<SandboxSnapshot>;
  return (
    s.version === SNAPSHOT_VERSION &&
    (s.journal_id === undefined || typeof s.journal_id === 'string') &&
    typeof s.tables === 'object' &&
    s.tables !== null
  );
}

/** The control API's answer to GET /__sandbox/state (its envelope), which holds a state in `data`. */
export function isControlAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { success, data } = value as { success?: unknown; data?: unknown };
  return success === true && isSnapshotOfThisVersion(data);
}
