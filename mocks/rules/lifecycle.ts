import { orderTransitions, paymentTransitions, type OrderStatus, type PaymentStatus } from '../../src/contract/index.js';
import { ApiError } from '../core/exchange.js';
import type { InvoiceRecord, OrderRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { postTransaction } from './ledger.js';

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
  if (order === undefined) throw new ApiError(404, `Order ${code} was not found.`, 'NOT_FOUND');
  return order;
}

/** Settles an invoice: its order starts processing, or its deposit credits the balance. */
export async function payInvoice(store: Store, code: string, now: number): Promise<void> {
  const invoice = findInvoice(store, code);
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
  const order = store.db.orders.get(code);
  if (invoice.payment_status === 'pending' && order) moveOrder(store, order, 'cancelled', now);
  movePayment(store, invoice, to, now);
}

export function completeOrder(store: Store, code: string, now: number): void {
  moveOrder(store, findOrder(store, code), 'completed', now);
}

/** A paid order that cannot be delivered fails, and its total goes back to the balance. */
export async function failOrder(store: Store, code: string, now: number): Promise<void> {
  const order = findOrder(store, code);
  const invoice = findInvoice(store, code);
  moveOrder(store, order, 'failed', now);
  movePayment(store, invoice, 'refunded', now);
  const account = store.db.accounts.get(String(order.account_id))!;
  await postTransaction(store, account, 'credit', invoice.amount, `Refund of order ${code}`, code, now);
}
