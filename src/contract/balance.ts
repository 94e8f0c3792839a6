import { z } from 'zod';
import { component, Currency, InvoiceCode, Money, openEnum, Pagination, PaginationQuery, Timestamp, tolerant } from './common.js';
import { PaymentStatus } from './lifecycle.js';

export const Balance = component(
  'Balance',
  tolerant(() => ({
    balance: Money,
    formatted_balance: z.string(),
    currency: Currency,
    updated_at: Timestamp,
  })),
);
export type Balance = z.infer<typeof Balance>;

export const TransactionType = component('TransactionType', z.enum(['credit', 'debit']));

export const BalanceTransaction = component(
  'BalanceTransaction',
  tolerant(() => ({
    id: z.string().regex(/^TRX\d+$/),
    type: openEnum(TransactionType),
    amount: Money.meta({ description: 'Always positive; `type` says the direction.' }),
    formatted_amount: z.string(),
    balance_after: Money,
    formatted_balance_after: z.string(),
    currency: Currency,
    description: z.string(),
    reference: InvoiceCode.nullable().meta({ description: 'The invoice that caused it.' }),
    created_at: Timestamp,
  })),
);
export type BalanceTransaction = z.infer<typeof BalanceTransaction>;

export const TransactionListQuery = PaginationQuery.extend({ type: TransactionType.optional() });
export type TransactionListQuery = z.input<typeof TransactionListQuery>;

export const TransactionList = component(
  'TransactionList',
  tolerant(() => ({ transactions: z.array(BalanceTransaction), pagination: Pagination })),
  'Newest first.',
);
export type TransactionList = z.infer<typeof TransactionList>;

export const Deposit = component(
  'Deposit',
  tolerant(() => ({
    invoice_code: InvoiceCode,
    amount: Money,
    formatted_amount: z.string(),
    currency: Currency,
    payment_method: z.string(),
    payment_status: openEnum(PaymentStatus),
    invoice_url: z.url(),
    created_at: Timestamp,
    expires_at: Timestamp,
    paid_at: Timestamp.nullable(),
  })),
  'A top-up of the balance. Paying its invoice credits the balance and records a transaction.',
);
export type Deposit = z.infer<typeof Deposit>;

export const DepositListQuery = PaginationQuery.extend({ payment_status: PaymentStatus.optional() });
export type DepositListQuery = z.input<typeof DepositListQuery>;

export const DepositList = component(
  'DepositList',
  tolerant(() => ({ deposits: z.array(Deposit), pagination: Pagination })),
  'Newest first.',
);
export type DepositList = z.infer<typeof DepositList>;

export const DepositData = component(
  'DepositData',
  tolerant(() => ({ deposit: Deposit })),
);
export type DepositData = z.infer<typeof DepositData>;
