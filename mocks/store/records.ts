import { z } from 'zod';
import { OrderStatus, OrderType, PaymentStatus, TokenMode } from '../../src/contract/index.js';
import { COUNT_MAX, TIME_MAX, TIME_MIN } from './time-range.js';

/**
 * Shapes of what the sandbox stores, checked on every insert and update and for every record of a state that is
 * loaded (mocks/state/state-schema.ts). Times are epoch milliseconds within mocks/store/time-range.ts; the routes
 * format them. Each constraint carries the phrase a refused state's error completes with its field's path.
 */
const TIME = 'must be a time from 1970 to 9999 in epoch milliseconds';
const Millis = z.number({ error: TIME }).int({ error: TIME }).min(TIME_MIN, { error: TIME }).max(TIME_MAX, { error: TIME });
/** Money and balances: whole, not negative, and small enough that adding to them stays exact. */
const AMOUNT = `must be a whole number from 0 to ${COUNT_MAX}`;
const Amount = z.number({ error: AMOUNT }).int({ error: AMOUNT }).min(0, { error: AMOUNT }).max(COUNT_MAX, { error: AMOUNT });

export const AccountRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  display_name: z.string(),
  email: z.string(),
  balance: Amount,
  balance_updated_at: Millis,
  created_at: Millis,
  /**
   * Set on the test-mode world of an account that holds both a sandbox and a production key: this record holds what
   * the sandbox key made (orders, invoices, deposits, balance, transactions, idempotency keys), apart from the live
   * data of the account with this id, as Stripe keeps test and live mode apart. Its profile is that account's.
   */
  live_account_id: z.number().int().optional(),
});

/** Only a digest of each token is kept, as a real service would: no state file ever holds a token. */
export const TokenRecord = z.object({
  token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  account_id: z.number().int(),
  mode: TokenMode,
  name: z.string(),
  revoked: z.boolean(),
  last_used_at: Millis.nullable(),
});

export const ChatLinkRecord = z.object({
  account_id: z.number().int(),
  chat_user_id: z.string(),
  linked_at: Millis,
});

export const TransactionRecord = z.object({
  id: z.string(),
  account_id: z.number().int(),
  type: z.enum(['credit', 'debit']),
  amount: Amount,
  balance_after: Amount,
  description: z.string(),
  reference: z.string().nullable(),
  created_at: Millis,
});

export const InvoiceRecord = z.object({
  invoice_code: z.string(),
  account_id: z.number().int(),
  type: z.enum(['order', 'deposit']),
  amount: Amount,
  currency: z.string(),
  payment_method: z.string(),
  payment_url: z.string(),
  payment_status: PaymentStatus,
  environment: TokenMode,
  created_at: Millis,
  expires_at: Millis,
  paid_at: Millis.nullable(),
  updated_at: Millis,
});

export const OrderRecord = z.object({
  invoice_code: z.string(),
  account_id: z.number().int(),
  status: OrderStatus,
  order_type: OrderType,
  platform_username: z.string(),
  place_id: z.number().int(),
  platform_pass_id: z.number().int(),
  credit_amount: z.number().int(),
  price: z.number().int(),
  discount: z.number().int(),
  total_amount: z.number().int(),
  payment_method: z.string(),
  client_reference: z.string().nullable(),
  environment: TokenMode,
  created_at: Millis,
  updated_at: Millis,
  paid_at: Millis.nullable(),
  completed_at: Millis.nullable(),
});

export const DepositRecord = z.object({
  invoice_code: z.string(),
  account_id: z.number().int(),
  created_at: Millis,
});

export const IdempotencyRecord = z.object({
  account_id: z.number().int(),
  key: z.string(),
  fingerprint: z.string(),
  invoice_code: z.string(),
  created_at: Millis,
  expires_at: Millis,
});

export const CreditPackageRecord = z.object({
  code: z.string(),
  name: z.string(),
  credit_amount: z.number().int(),
  price: z.number().int(),
  currency: z.string(),
  description: z.string(),
  sort_order: z.number().int(),
  active: z.boolean(),
});

export const PaymentMethodRecord = z.object({
  code: z.string(),
  name: z.string(),
  type: z.enum(['invoice', 'balance', 'gateway']),
  description: z.string(),
  min_amount: z.number().int(),
  max_amount: z.number().int(),
  sort_order: z.number().int(),
  active: z.boolean(),
});

export const ArticleRecord = z.object({
  slug: z.string(),
  title: z.string(),
  category: z.string(),
  excerpt: z.string(),
  content: z.string(),
  author: z.string(),
  tags: z.array(z.string()),
  status: z.enum(['published', 'draft']),
  published_at: Millis,
  updated_at: Millis,
});

export const PlatformUserRecord = z.object({ id: z.number().int(), username: z.string() });
export const PlatformPlaceRecord = z.object({ id: z.number().int(), owner_id: z.number().int(), name: z.string() });
export const PlatformPassRecord = z.object({
  id: z.number().int(),
  place_id: z.number().int(),
  name: z.string(),
  price: z.number().int(),
  for_sale: z.boolean(),
});
export const VipServerRecord = z.object({
  id: z.number().int(),
  place_id: z.number().int(),
  name: z.string(),
  price: z.number().int(),
  active: z.boolean(),
});

export type AccountRecord = Readonly<z.infer<typeof AccountRecord>>;
export type TokenRecord = Readonly<z.infer<typeof TokenRecord>>;
export type ChatLinkRecord = Readonly<z.infer<typeof ChatLinkRecord>>;
export type TransactionRecord = Readonly<z.infer<typeof TransactionRecord>>;
export type InvoiceRecord = Readonly<z.infer<typeof InvoiceRecord>>;
export type OrderRecord = Readonly<z.infer<typeof OrderRecord>>;
export type DepositRecord = Readonly<z.infer<typeof DepositRecord>>;
export type IdempotencyRecord = Readonly<z.infer<typeof IdempotencyRecord>>;
export type CreditPackageRecord = Readonly<z.infer<typeof CreditPackageRecord>>;
export type PaymentMethodRecord = Readonly<z.infer<typeof PaymentMethodRecord>>;
export type ArticleRecord = Readonly<z.infer<typeof ArticleRecord>>;
export type PlatformUserRecord = Readonly<z.infer<typeof PlatformUserRecord>>;
export type PlatformPlaceRecord = Readonly<z.infer<typeof PlatformPlaceRecord>>;
export type PlatformPassRecord = Readonly<z.infer<typeof PlatformPassRecord>>;
export type VipServerRecord = Readonly<z.infer<typeof VipServerRecord>>;
