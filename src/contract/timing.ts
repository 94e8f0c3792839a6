/** Unpaid invoices (orders and deposits) expire this long after creation. */
export const INVOICE_TTL_SECONDS = 60 * 60;

/** How long a wait for an invoice lasts by default: its time to live and five minutes more, when every invoice is final. */
export const WAIT_TIMEOUT_SECONDS = INVOICE_TTL_SECONDS + 5 * 60;

/** Recommended polling intervals from the interface document, in seconds. */
export const pollIntervals = {
  invoiceStatus: { min: 10, max: 30, recommended: 15 },
  orderList: { min: 30, max: 60, recommended: 30 },
  balance: { min: 30, max: 60, recommended: 30 },
  dashboard: { min: 15, max: 30, recommended: 15 },
} as const;
