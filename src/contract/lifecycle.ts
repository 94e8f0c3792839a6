import { z } from 'zod';
import { component } from './common.js';
import { ORDER_STATUSES, PAYMENT_STATUSES } from './values.js';

export const OrderStatus = component(
  'OrderStatus',
  z.enum(ORDER_STATUSES),
  'pending: awaiting payment. processing: paid, being delivered. completed: delivered. failed: could not be delivered (the total is refunded to the balance). cancelled: its invoice expired or failed before payment.',
);
export type OrderStatus = z.infer<typeof OrderStatus>;

export const PaymentStatus = component(
  'PaymentStatus',
  z.enum(PAYMENT_STATUSES),
  'pending: awaiting payment. paid: settled. expired: not paid in time. failed: the payment was declined. refunded: paid, then returned to the balance because the order failed.',
);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

// The lists and moves are plain data in values.ts, which the sandbox's store reads without zod.
export { isFinalPaymentStatus, orderTransitions, paymentTransitions } from './values.js';

// Plain constants live in timing.ts, which the client loads without zod.
export { INVOICE_TTL_SECONDS, pollIntervals } from './timing.js';
