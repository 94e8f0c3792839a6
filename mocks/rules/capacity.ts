import { groupThousands } from '../../src/contract/money.js';
import { ApiError } from '../core/exchange.js';
import { invoiceCount, MAX_SANDBOX_INVOICES } from '../../src/contract/sandbox-control.js';
import type { Store } from '../store/store.js';

/**
 * How many invoices a sandbox keeps. Every record a request can add hangs off an invoice (an order or a deposit, its
 * ledger lines and its idempotency key), so this bounds the whole state: at the default (MAX_SANDBOX_INVOICES),
 * whatever the records hold, the state stays writable and readable as one JSON text (mocks/state/limits.ts), and the
 * sandbox's memory bounded.
 */

/** createSandbox's maxInvoices option as the store keeps it; a bad one is a programming error. */
export function invoiceCapacity(option: number | undefined): number {
  if (option === undefined) return MAX_SANDBOX_INVOICES;
  if (!Number.isSafeInteger(option) || option < 1 || option > MAX_SANDBOX_INVOICES)
    throw new RangeError(`createSandbox: maxInvoices is a whole number from 1 to ${groupThousands(MAX_SANDBOX_INVOICES)}.`);
  return option;
}

/**
 * Refuses a new invoice when the sandbox holds as many as it keeps: 507 SANDBOX_FULL, before anything changes. A state
 * loaded with more keeps them all; only new ones are refused.
 */
export function assertRoomForInvoice(store: Store): void {
  const held = store.db.invoices.size;
  if (held < store.maxInvoices) return;
  throw new ApiError(
    507,
    `The sandbox is full: it keeps at most ${invoiceCount(store.maxInvoices)} (orders and deposits together) and holds ${groupThousands(held)}. Reset it to go on (topup mock reset, POST /__sandbox/reset).`,
    'SANDBOX_FULL',
  );
}
