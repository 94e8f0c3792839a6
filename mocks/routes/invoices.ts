import { ApiError } from '../core/exchange.js';
import * as present from './present.js';
import type { InvoiceRecord } from '../store/records.js';
import { principalOf, type RouteContext, type RouteHandler } from './context.js';

function ownInvoice(ctx: RouteContext): InvoiceRecord {
  const { account } = principalOf(ctx);
  const code = ctx.params.invoice!;
  const invoice = ctx.store.db.invoices.get(code);
  if (invoice === undefined || invoice.account_id !== account.id) throw new ApiError(404, `Invoice ${code} was not found.`, 'NOT_FOUND');
  return invoice;
}

export const getInvoice: RouteHandler = (ctx) => {
  const invoice = ownInvoice(ctx);
  return {
    message: 'Invoice retrieved.',
    data: { invoice: present.invoice(invoice, ctx.store.db.orders.get(invoice.invoice_code), ctx.base) },
  };
};

export const getInvoiceStatus: RouteHandler = (ctx) => {
  const invoice = ownInvoice(ctx);
  return { message: 'Invoice status retrieved.', data: present.invoiceStatus(invoice, ctx.store.db.orders.get(invoice.invoice_code)) };
};
