import { z } from 'zod';
import { component, Currency, InvoiceCode, Money, openEnum, Timestamp, tolerant } from './common.js';
import { OrderStatus, PaymentStatus } from './lifecycle.js';
import { OrderType } from './orders.js';

export const InvoiceType = component('InvoiceType', z.enum(['order', 'deposit']));

export const InvoiceOrder = component(
  'InvoiceOrder',
  tolerant(() => ({
    status: openEnum(OrderStatus),
    order_type: openEnum(OrderType),
    platform_username: z.string(),
    credit_amount: z.int().min(1),
  })),
);

export const Invoice = component(
  'Invoice',
  tolerant(() => ({
    invoice_code: InvoiceCode,
    type: openEnum(InvoiceType),
    payment_status: openEnum(PaymentStatus),
    amount: Money,
    formatted_amount: z.string(),
    currency: Currency,
    payment_method: z.string(),
    payment_url: z.string(),
    invoice_url: z.url(),
    created_at: Timestamp,
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    order: InvoiceOrder.nullable().meta({ description: 'The order this invoice pays; null for deposit invoices.' }),
  })),
);
export type Invoice = z.infer<typeof Invoice>;

export const InvoiceData = component(
  'InvoiceData',
  tolerant(() => ({ invoice: Invoice })),
);
export type InvoiceData = z.infer<typeof InvoiceData>;

export const InvoiceStatus = component(
  'InvoiceStatus',
  tolerant(() => ({
    invoice_code: InvoiceCode,
    type: openEnum(InvoiceType),
    payment_status: openEnum(PaymentStatus),
    order_status: openEnum(OrderStatus).nullable(),
    is_final: z.boolean().meta({ description: 'True once payment_status will not change by itself (paid, expired, failed, refunded).' }),
    amount: Money,
    formatted_amount: z.string(),
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
    poll_after_seconds: z
      .int()
      .min(10)
      .meta({ description: 'Poll again no sooner than this (15). Only while the status can still change: absent once `is_final`.' }),
  })),
);
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;
