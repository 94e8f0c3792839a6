import { z } from 'zod';
import { component, Currency, InvoiceCode, Money, Timestamp } from './common.js';
import { OrderStatus, PaymentStatus } from './lifecycle.js';
import { OrderType } from './orders.js';

export const InvoiceType = component('InvoiceType', z.enum(['order', 'deposit']));

export const Invoice = component(
  'Invoice',
  z.object({
    invoice_code: InvoiceCode,
    type: InvoiceType,
    payment_status: PaymentStatus,
    amount: Money,
    formatted_amount: z.string(),
    currency: Currency,
    payment_method: z.string(),
    payment_url: z.string(),
    invoice_url: z.url(),
    created_at: Timestamp,
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    order: z
      .object({
        status: OrderStatus,
        order_type: OrderType,
        platform_username: z.string(),
        credit_amount: z.int().min(1),
      })
      .nullable()
      .meta({ description: 'The order this invoice pays; null for deposit invoices.' }),
  }),
);
export type Invoice = z.infer<typeof Invoice>;

export const InvoiceData = component('InvoiceData', z.object({ invoice: Invoice }));
export type InvoiceData = z.infer<typeof InvoiceData>;

export const InvoiceStatus = component(
  'InvoiceStatus',
  z.object({
    invoice_code: InvoiceCode,
    type: InvoiceType,
    payment_status: PaymentStatus,
    order_status: OrderStatus.nullable(),
    is_final: z.boolean().meta({ description: 'True once payment_status will not change by itself (paid, expired, failed, refunded).' }),
    amount: Money,
    formatted_amount: z.string(),
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    poll_after_seconds: z.int().min(10).meta({ description: 'Poll again no sooner than this (15).' }),
  }),
);
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;
