import { createDb, type Db, type TableName } from './db.js';
import type { InvoiceRecord } from './records.js';

export interface Counters {
  invoice: number;
  transaction: number;
}

/** The whole mutable state of one sandbox: the collections, the sequences, and the queue of invoices awaiting expiry. */
export class Store {
  readonly db: Db = createDb();
  counters: Counters = { invoice: 0, transaction: 0 };
  /** Pending invoices by expiry time. Invoices share one TTL, so creation order is expiry order and a FIFO suffices. */
  expiryQueue: InvoiceRecord[] = [];

  nextInvoiceCode(now: number): string {
    this.counters.invoice += 1;
    const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
    return `INV${day}${String(this.counters.invoice).padStart(6, '0')}`;
  }

  nextTransactionId(): string {
    this.counters.transaction += 1;
    return `TRX${String(this.counters.transaction).padStart(8, '0')}`;
  }

  clear(): void {
    for (const table of Object.values(this.db)) table.clear();
    this.counters = { invoice: 0, transaction: 0 };
    this.expiryQueue = [];
  }

  /** From now on, remember what changes, for `takeChanges()` (a state file's journal). */
  trackChanges(): void {
    for (const table of Object.values(this.db)) table.trackChanges();
  }

  /**
   * The records created, changed and removed since the last call, by table; `reset` when a table was emptied
   * since (a reset), after which only a whole snapshot describes the state.
   */
  takeChanges(): { reset: boolean; tables: TableChangeSet } {
    let reset = false;
    const tables: TableChangeSet = {};
    for (const [name, table] of Object.entries(this.db) as [TableName, Db[TableName]][]) {
      const changes = table.takeChanges();
      reset ||= changes.cleared;
      if (changes.put.length > 0 || changes.remove.length > 0) tables[name] = { put: changes.put, remove: changes.remove };
    }
    return { reset, tables };
  }
}

/** Per table: the records as they are now, and the keys of removed ones. */
export type TableChangeSet = { [K in TableName]?: { put: unknown[]; remove: string[] } };
