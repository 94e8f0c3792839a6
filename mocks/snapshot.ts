import type { Db, TableName } from './db.js';
import type { Counters, Store } from './store.js';

export const SNAPSHOT_VERSION = 1;

/** The whole sandbox state as plain JSON: what `--state FILE` and the offline CLI keep between runs. */
export interface SandboxSnapshot {
  version: typeof SNAPSHOT_VERSION;
  clock_offset_ms: number;
  counters: Counters;
  tables: { [K in TableName]: unknown[] };
}

export function takeSnapshot(store: Store, clockOffsetMs: number): SandboxSnapshot {
  const tables = {} as SandboxSnapshot['tables'];
  // Copies of the records: routes change records in place, and a snapshot must stay the moment it was taken.
  for (const [name, table] of Object.entries(store.db) as [TableName, Db[TableName]][]) tables[name] = table.all().map((record) => ({ ...record }));
  return { version: SNAPSHOT_VERSION, clock_offset_ms: clockOffsetMs, counters: { ...store.counters }, tables };
}

export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

/** Loads a snapshot into an empty store; every record is checked against its table's schema. */
export async function restoreSnapshot(store: Store, snapshot: unknown): Promise<number> {
  if (!isSnapshot(snapshot)) throw new SnapshotError(`Not a sandbox state file of version ${SNAPSHOT_VERSION}.`);
  store.clear();
  for (const name of Object.keys(store.db) as TableName[]) {
    const table = store.db[name] as unknown as { insert(values: unknown): Promise<unknown> };
    for (const record of snapshot.tables[name] ?? []) {
      // insert() validates against the table's schema; any other failure is as much a damaged file.
      try {
        await table.insert(record);
      } catch {
        throw new SnapshotError(`The state file has an invalid record in '${name}'.`);
      }
    }
  }
  store.counters = { ...snapshot.counters };
  store.expiryQueue = store.db.invoices.all().filter((i) => i.payment_status === 'pending').sort((a, b) => a.expires_at - b.expires_at);
  return snapshot.clock_offset_ms;
}

function isSnapshot(value: unknown): value is SandboxSnapshot {
  if (value === null || typeof value !== 'object') return false;
  const s = value as Partial<SandboxSnapshot>;
  return s.version === SNAPSHOT_VERSION && typeof s.clock_offset_ms === 'number' && typeof s.counters === 'object' && s.counters !== null && typeof s.tables === 'object' && s.tables !== null;
}
