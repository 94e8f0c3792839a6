/**
 * The closed value lists of the contract and the moves between them, as plain data: the zod enums (lifecycle.ts,
 * orders.ts, common.ts) are built from these lists, and the sandbox's store checks its records against them without
 * loading zod (mocks/store/records.ts), which the offline CLI's commands would otherwise build at every start.
 */
export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'expired', 'failed', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const ORDER_TYPES = ['gamepass', 'vip_server'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const TOKEN_MODES = ['sandbox', 'production'] as const;
export type TokenMode = (typeof TOKEN_MODES)[number];

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
