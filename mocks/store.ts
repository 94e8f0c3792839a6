import { createDb, type Db } from './db.js';
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
}
