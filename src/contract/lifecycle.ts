import { z } from 'zod';
import { component } from './common.js';

export const OrderStatus = component(
  'OrderStatus',
  z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']),
  'pending: awaiting payment. processing: paid, being delivered. completed: delivered. failed: could not be delivered (the total is refunded to the balance). cancelled: its invoice expired or failed before payment.',
);
export type OrderStatus = z.infer<typeof OrderStatus>;

export const PaymentStatus = component(
  'PaymentStatus',
  z.enum(['pending', 'paid', 'expired', 'failed', 'refunded']),
  'pending: awaiting payment. paid: settled. expired: not paid in time. failed: the payment was declined. refunded: paid, then returned to the balance because the order failed.',
);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** The only moves the server makes. Anything else is refused with INVALID_STATE by sandbox controls. */
export const paymentTransitions: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['paid', 'expired', 'failed'],
  paid: ['refunded'],
  expired: [],
  failed: [],
  refunded: [],
};

export const orderTransitions: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['processing', 'cancelled'],
  processing: ['completed', 'failed'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** A payment status after which polling can stop. */
export function isFinalPaymentStatus(status: PaymentStatus): boolean {
  return paymentTransitions[status].length === 0 || status === 'paid';
}

// Plain constants live in timing.ts, which the client loads without zod.
export { INVOICE_TTL_SECONDS, pollIntervals } from './timing.js';
