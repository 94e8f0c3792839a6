import { createDb, type Db, type TableName } from './db.js';
import { DueQueue } from './due-queue.js';
import type { InvoiceRecord } from './records.js';
import { MAX_SANDBOX_INVOICES } from '../../src/contract/sandbox-control.js';

/**
 * Sandbox-wide delays (`createSandbox({ autoPay, autoExpire })`): options, not state, so a restart may change them.
 * null: the invoice waits for a control call, or expires after the usual TTL.
 */
export interface InvoiceDelays {
  autoPayMs: number | null;
  autoExpireMs: number | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The largest time a Date holds (ECMAScript's time range). */
const LAST_DATE_MS = 8.64e15;

export interface Counters {
  invoice: number;
  transaction: number;
}

/**
 * The whole mutable state of one sandbox: the collections, the sequences, and what waits for the clock (the timed
 * moves of rules/timed-moves.ts), which is rebuilt from the records after a restore.
 */
export class Store {
  readonly db: Db = createDb();
  counters: Counters = { invoice: 0, transaction: 0 };
  delays: InvoiceDelays = { autoPayMs: null, autoExpireMs: null };
  /** `createSandbox({ maxInvoices })`: an option, not state, like the delays. */
  maxInvoices = MAX_SANDBOX_INVOICES;
  /** Pending invoices by expiry time. */
  readonly expiryQueue = new DueQueue<InvoiceRecord>((invoice) => invoice.expires_at);
  /** Pending invoices that auto-pay settles, by creation time (they share one delay). */
  readonly autoPayQueue = new DueQueue<InvoiceRecord>((invoice) => invoice.created_at);
  /** Invoice codes of magic orders (rules/magic-values.ts) that have a move left to make. Few: only test values. */
  readonly watchedOutcomes = new Set<string>();

  /** The UTC day of the last invoice code (days since 1970) and its `YYYYMMDD`: most codes share their day. */
  #codeDay = { number: Number.NaN, text: '' };

  nextInvoiceCode(now: number): string {
    this.counters.invoice += 1;
    // As Date reads a time: whole milliseconds; a time a Date cannot hold throws below, each time, as it always did.
    const time = Math.trunc(now);
    const day = Math.floor(time / DAY_MS);
    if (day !== this.#codeDay.number || !(Math.abs(time) < LAST_DATE_MS)) {
      this.#codeDay = { number: day, text: new Date(now).toISOString().slice(0, 10).replaceAll('-', '') };
    }
    return `INV${this.#codeDay.text}${String(this.counters.invoice).padStart(6, '0')}`;
  }

  nextTransactionId(): string {
    this.counters.transaction += 1;
    return `TRX${String(this.counters.transaction).padStart(8, '0')}`;
  }

  clear(): void {
    for (const table of Object.values(this.db)) table.clear();
    this.counters = { invoice: 0, transaction: 0 };
    this.expiryQueue.reset();
    this.autoPayQueue.reset();
    this.watchedOutcomes.clear();
  }

  /** From now on, remember what changes, for `takeChanges()` (a state file's journal). */
  trackChanges(): void {
    for (const table of Object.values(this.db)) table.trackChanges();
  }

  /** Whether a change was made that `takeChanges()` has not handed out (and so no state file holds yet). */
  hasUntakenChanges(): boolean {
    return Object.values(this.db).some((table) => table.hasUntakenChanges);
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
