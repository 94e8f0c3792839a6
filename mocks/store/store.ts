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

  /** Tables whose records are still to be read (deferLoad), and how. */
  #deferred:
    { tables: readonly TableName[]; load: () => Promise<void>; moves: DeferredMoves; loading?: Promise<void> | undefined } | undefined;

  /**
   * Closes `tables` until `load` fills them (a state file's history read later: mocks/state/snapshot.ts
   * deferHistory): using one before then throws (Table.close), so that nothing reads them empty or writes them so.
   */
  deferLoad(tables: readonly TableName[], load: () => Promise<void>, moves: DeferredMoves): void {
    for (const name of tables) this.db[name].close(name);
    this.#deferred = { tables, load, moves };
  }

  /**
   * Whether a move the sandbox makes by itself (an expiry, an auto-payment, a magic order's ending) may be due by
   * `now` in the records still to be read (deferLoad): a request whose answer such a move changes (the balance)
   * then reads them first.
   */
  deferredMayMoveBy(now: number): boolean {
    const moves = this.#deferred?.moves;
    if (moves === undefined) return false;
    if (moves.watched || (moves.expiresFrom !== null && moves.expiresFrom <= now)) return true;
    return this.delays.autoPayMs !== null && moves.pendingFrom !== null && moves.pendingFrom + this.delays.autoPayMs <= now;
  }

  /** Whether some tables wait for their records (deferLoad). */
  get loadPending(): boolean {
    return this.#deferred !== undefined;
  }

  /**
   * Fills the tables that wait for their records (deferLoad), once; a load that fails leaves them closed (and empty,
   * as no change), and the next call tries again.
   */
  loadDeferred(): Promise<void> {
    const deferred = this.#deferred;
    if (deferred === undefined) return Promise.resolve();
    deferred.loading ??= deferred.load().then(
      () => {
        if (this.#deferred === deferred) this.#deferred = undefined;
      },
      (error: unknown) => {
        deferred.loading = undefined;
        if (this.#deferred === deferred) for (const name of deferred.tables) this.db[name].close(name);
        throw error;
      },
    );
    return deferred.loading;
  }

  /** For the deferred load itself: opens the waiting tables to be filled. */
  openDeferred(): void {
    for (const name of this.#deferred?.tables ?? []) this.db[name].open();
  }

  /** Counts clear()s: a deferred load that finds it moved on stops, its records belonging to a state replaced since. */
  get generation(): number {
    return this.#generation;
  }

  #generation = 0;

  clear(): void {
    // Whatever waited to be read is replaced.
    for (const name of this.#deferred?.tables ?? []) this.db[name].open();
    this.#deferred = undefined;
    this.#generation += 1;
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

/** What in records still to be read may move by itself: pending invoices' earliest expiry and creation, magic orders. */
export interface DeferredMoves {
  expiresFrom: number | null;
  pendingFrom: number | null;
  watched: boolean;
}

/** Per table: the records as they are now, and the keys of removed ones. */
export type TableChangeSet = { [K in TableName]?: { put: unknown[]; remove: string[] } };
