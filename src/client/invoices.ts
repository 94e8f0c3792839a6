import type { InvoiceData, InvoiceStatus } from '../contract/invoices.js';
import type { Clock } from './clock.js';
import type { Requester, RequestOptions } from './request.js';
import { waitForInvoice, type WaitOptions } from './wait.js';

export interface InvoicesApi {
  /** One invoice (of an order or a deposit); another account's invoice is NotFoundError. */
  get(invoiceCode: string, options?: RequestOptions): Promise<InvoiceData>;
  /** The payment status; poll no sooner than `poll_after_seconds`. */
  status(invoiceCode: string, options?: RequestOptions): Promise<InvoiceStatus>;
  /**
   * Polls the status until `is_final` and returns that final status (paid, expired, failed or refunded).
   * Throws WaitTimeoutError (with `lastStatus`) at the timeout; rejects with the signal's reason on abort. A later
   * check that fails in a way that may pass by itself (`onPollError` hears of it) does not end the wait.
   */
  wait(invoiceCode: string, options?: WaitOptions): Promise<InvoiceStatus>;
}

export function invoicesApi(request: Requester, clock: Clock): InvoicesApi {
  const status = (invoiceCode: string, options?: RequestOptions): Promise<InvoiceStatus> =>
    request('getInvoiceStatus', { ...options, params: { invoice: invoiceCode } });
  return {
    get: (invoiceCode, options) => request('getInvoice', { ...options, params: { invoice: invoiceCode } }),
    status,
    wait: (invoiceCode, options = {}) => waitForInvoice((signal) => status(invoiceCode, { signal }), options, clock, invoiceCode),
  };
}
