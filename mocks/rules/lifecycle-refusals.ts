import type { InvoiceRecord, OrderRecord } from '../store/records.js';

/** A sandbox move on an invoice (its payment) or on an order (its delivery). */
export type InvoiceMove = 'pay' | 'expire' | 'fail';
export type OrderMove = 'complete' | 'failOrder';

const at = (ms: number) => new Date(ms).toISOString();

/**
 * Why an invoice cannot make this move, as one sentence about what already happened to it; undefined when it can.
 * Only a pending invoice moves. Final states are stamped with `updated_at`, the moment they were reached.
 */
export function invoiceRefusal(move: InvoiceMove, invoice: InvoiceRecord): string | undefined {
  const code = invoice.invoice_code;
  const when = at(invoice.updated_at);
  switch (invoice.payment_status) {
    case 'pending':
      return undefined;
    case 'paid':
      return {
        pay: `Invoice ${code} is already paid.`,
        expire: `Invoice ${code} is already paid, so it can no longer expire.`,
        fail: `Invoice ${code} is already paid, so its payment can no longer fail.`,
      }[move];
    case 'expired':
      return {
        pay: `Invoice ${code} expired at ${when} and can no longer be paid.`,
        expire: `Invoice ${code} already expired at ${when}.`,
        fail: `Invoice ${code} expired at ${when}, so its payment can no longer fail.`,
      }[move];
    case 'failed':
      return {
        pay: `The payment of invoice ${code} failed at ${when}; it can no longer be paid.`,
        expire: `The payment of invoice ${code} failed at ${when}; it can no longer expire.`,
        fail: `The payment of invoice ${code} already failed at ${when}.`,
      }[move];
    case 'refunded':
      return {
        pay: `Invoice ${code} was refunded at ${when} when its order failed, and cannot be paid again.`,
        expire: `Invoice ${code} was paid and then refunded at ${when}, so it can no longer expire.`,
        fail: `Invoice ${code} was paid and then refunded at ${when}, so its payment can no longer fail.`,
      }[move];
  }
}

/** Why an order cannot make this move; undefined when it can. Only a processing (paid) order moves. */
export function orderRefusal(move: OrderMove, order: OrderRecord, invoice: InvoiceRecord): string | undefined {
  const code = order.invoice_code;
  const when = at(order.updated_at);
  switch (order.status) {
    case 'processing':
      return undefined;
    case 'pending':
      return {
        complete: `Order ${code} is not paid yet, so it cannot be completed (pay its invoice first).`,
        failOrder: `Order ${code} is not paid yet, so it cannot fail (fail its invoice instead).`,
      }[move];
    case 'completed':
      return {
        complete: `Order ${code} is already completed.`,
        failOrder: `Order ${code} is already completed, so it can no longer fail.`,
      }[move];
    case 'failed':
      return {
        complete: `Order ${code} failed at ${when} and was refunded, so it can no longer be completed.`,
        failOrder: `Order ${code} already failed at ${when} and was refunded.`,
      }[move];
    case 'cancelled': {
      // Cancelled only ever because its unpaid invoice ended: say how.
      const cause = invoice.payment_status === 'failed' ? 'its payment failed' : 'its invoice expired';
      return {
        complete: `Order ${code} was cancelled at ${when} when ${cause}, so it can no longer be completed.`,
        failOrder: `Order ${code} was cancelled at ${when} when ${cause}, so it can no longer fail.`,
      }[move];
    }
  }
}
