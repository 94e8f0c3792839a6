import { orderTransitions, paymentTransitions, type OrderStatus, type PaymentStatus } from '../../src/contract/values.js';
import { ApiError } from '../core/exchange.js';
import type { InvoiceRecord, OrderRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { postTransaction } from './ledger.js';
import { invoiceRefusal, orderRefusal, type InvoiceMove, type OrderMove } from './lifecycle-refusals.js';

// The checks below guard the transition tables; the callers refuse first, in words about what happened.
function movePayment(store: Store, invoice: InvoiceRecord, to: PaymentStatus, now: number): void {
  if (!paymentTransitions[invoice.payment_status].includes(to)) {
    throw new ApiError(409, `Invoice ${invoice.invoice_code} is ${invoice.payment_status} and cannot become ${to}.`, 'INVALID_STATE');
  }
  store.db.invoices.update(
    invoice,
    to === 'paid' ? { payment_status: to, updated_at: now, paid_at: now } : { payment_status: to, updated_at: now },
  );
}

function moveOrder(store: Store, order: OrderRecord, to: OrderStatus, now: number): void {
  if (!orderTransitions[order.status].includes(to)) {
    throw new ApiError(409, `Order ${order.invoice_code} is ${order.status} and cannot become ${to}.`, 'INVALID_STATE');
  }
  store.db.orders.update(order, {
    status: to,
    updated_at: now,
    ...(to === 'processing' ? { paid_at: now } : {}),
    ...(to === 'completed' || to === 'failed' ? { completed_at: now } : {}),
  });
}

export function findInvoice(store: Store, code: string): InvoiceRecord {
  const invoice = store.db.invoices.get(code);
  if (invoice === undefined) throw new ApiError(404, `Invoice ${code} was not found.`, 'NOT_FOUND');
  return invoice;
}

function findOrder(store: Store, code: string): OrderRecord {
  const order = store.db.orders.get(code);
  if (order !== undefined) return order;
  if (store.db.invoices.get(code)?.type === 'deposit') throw new ApiError(404, `Invoice ${code} is a deposit, not an order.`, 'NOT_FOUND');
  throw new ApiError(404, `Order ${code} was not found.`, 'NOT_FOUND');
}

/** A move its state forbids: 409 INVALID_STATE, about the invoice when the caller named an invoice. */
function refuseInvoiceMove(move: InvoiceMove, invoice: InvoiceRecord): void {
  const why = invoiceRefusal(move, invoice);
  if (why !== undefined) throw new ApiError(409, why, 'INVALID_STATE');
}

function refuseOrderMove(move: OrderMove, order: OrderRecord, invoice: InvoiceRecord): void {
  const why = orderRefusal(move, order, invoice);
  if (why !== undefined) throw new ApiError(409, why, 'INVALID_STATE');
}

/** Settles an invoice: its order starts processing, or its deposit credits the balance. */
export async function payInvoice(store: Store, code: string, now: number): Promise<void> {
  const invoice = findInvoice(store, code);
  refuseInvoiceMove('pay', invoice);
  const order = store.db.orders.get(code);
  if (order) moveOrder(store, order, 'processing', now);
  movePayment(store, invoice, 'paid', now);
  if (invoice.type === 'deposit') {
    const account = store.db.accounts.get(String(invoice.account_id))!;
    await postTransaction(store, account, 'credit', invoice.amount, `Deposit ${code}`, code, now);
  }
}

/** Ends an unpaid invoice as expired or failed; its order is cancelled. */
export function closeUnpaidInvoice(store: Store, code: string, to: 'expired' | 'failed', now: number): void {
  const invoice = findInvoice(store, code);
  refuseInvoiceMove(to === 'expired' ? 'expire' : 'fail', invoice);
  const order = store.db.orders.get(code);
  if (order) moveOrder(store, order, 'cancelled', now);
  movePayment(store, invoice, to, now);
}

export function completeOrder(store: Store, code: string, now: number): void {
  const order = findOrder(store, code);
  refuseOrderMove('complete', order, findInvoice(store, code));
  moveOrder(store, order, 'completed', now);
}

/** A paid order that cannot be delivered fails, and its total goes back to the balance. */
export async function failOrder(store: Store, code: string, now: number): Promise<void> {
  const order = findOrder(store, code);
  const invoice = findInvoice(store, code);
  refuseOrderMove('failOrder', order, invoice);
  moveOrder(store, order, 'failed', now);
  movePayment(store, invoice, 'refunded', now);
  const account = store.db.accounts.get(String(order.account_id))!;
  await postTransaction(store, account, 'credit', invoice.amount, `Refund of order ${code}`, code, now);
}
