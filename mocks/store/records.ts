import { ORDER_STATUSES, ORDER_TYPES, PAYMENT_STATUSES, TOKEN_MODES } from '../../src/contract/values.js';
import { bool, list, nullable, oneOf, optional, record, text, whole, type RecordOf } from './record-rules.js';
import { COUNT_MAX, TIME_MAX, TIME_MIN } from './time-range.js';

/**
 * Shapes of what the sandbox stores, checked on every insert and update and for every record of a state that is
 * loaded (mocks/state/state-schema.ts). Times are epoch milliseconds within mocks/store/time-range.ts; the routes
 * format them. Each constraint carries the phrase a refused state's error completes with its field's path. The
 * rules are plain predicates (record-rules.ts), not zod: an offline command opens a state file at every start.
 */
const TIME = 'must be a time from 1970 to 9999 in epoch milliseconds';
const Millis = whole({ min: TIME_MIN, max: TIME_MAX, message: TIME });
/** Money and balances: whole, not negative, and small enough that adding to them stays exact. */
const Amount = whole({ min: 0, max: COUNT_MAX, message: `must be a whole number from 0 to ${COUNT_MAX}` });

export const AccountRecord = record({
  id: whole(),
  name: text(),
  username: text(),
  display_name: text(),
  email: text(),
  balance: Amount,
  balance_updated_at: Millis,
  created_at: Millis,
  /**
   * Set on the test-mode world of an account that holds both a sandbox and a production key: this record holds what
   * the sandbox key made (orders, invoices, deposits, balance, transactions, idempotency keys), apart from the live
   * data of the account with this id, as Stripe keeps test and live mode apart. Its profile is that account's.
   */
  live_account_id: optional(whole()),
});

/** Only a digest of each token is kept, as a real service would: no state file ever holds a token. */
export const TokenRecord = record({
  token_sha256: text(/^[0-9a-f]{64}$/),
  account_id: whole(),
  mode: oneOf(TOKEN_MODES),
  name: text(),
  revoked: bool(),
  last_used_at: nullable(Millis),
});

export const ChatLinkRecord = record({
  account_id: whole(),
  chat_user_id: text(),
  linked_at: Millis,
});

export const TransactionRecord = record({
  id: text(),
  account_id: whole(),
  type: oneOf(['credit', 'debit']),
  amount: Amount,
  balance_after: Amount,
  description: text(),
  reference: nullable(text()),
  created_at: Millis,
});

export const InvoiceRecord = record({
  invoice_code: text(),
  account_id: whole(),
  type: oneOf(['order', 'deposit']),
  amount: Amount,
  currency: text(),
  payment_method: text(),
  payment_url: text(),
  payment_status: oneOf(PAYMENT_STATUSES),
  environment: oneOf(TOKEN_MODES),
  created_at: Millis,
  expires_at: Millis,
  paid_at: nullable(Millis),
  updated_at: Millis,
});

export const OrderRecord = record({
  invoice_code: text(),
  account_id: whole(),
  status: oneOf(ORDER_STATUSES),
  order_type: oneOf(ORDER_TYPES),
  platform_username: text(),
  place_id: whole(),
  platform_pass_id: whole(),
  credit_amount: whole(),
  price: whole(),
  discount: whole(),
  total_amount: whole(),
  payment_method: text(),
  client_reference: nullable(text()),
  environment: oneOf(TOKEN_MODES),
  created_at: Millis,
  updated_at: Millis,
  paid_at: nullable(Millis),
  completed_at: nullable(Millis),
});

export const DepositRecord = record({
  invoice_code: text(),
  account_id: whole(),
  created_at: Millis,
});

export const IdempotencyRecord = record({
  account_id: whole(),
  key: text(),
  fingerprint: text(),
  invoice_code: text(),
  created_at: Millis,
  expires_at: Millis,
});

export const CreditPackageRecord = record({
  code: text(),
  name: text(),
  credit_amount: whole(),
  price: whole(),
  currency: text(),
  description: text(),
  sort_order: whole(),
  active: bool(),
});

export const PaymentMethodRecord = record({
  code: text(),
  name: text(),
  type: oneOf(['invoice', 'balance', 'gateway']),
  description: text(),
  min_amount: whole(),
  max_amount: whole(),
  sort_order: whole(),
  active: bool(),
});

export const ArticleRecord = record({
  slug: text(),
  title: text(),
  category: text(),
  excerpt: text(),
  content: text(),
  author: text(),
  tags: list(text()),
  status: oneOf(['published', 'draft']),
  published_at: Millis,
  updated_at: Millis,
});

export const PlatformUserRecord = record({ id: whole(), username: text() });
export const PlatformPlaceRecord = record({ id: whole(), owner_id: whole(), name: text() });
export const PlatformPassRecord = record({
  id: whole(),
  place_id: whole(),
  name: text(),
  price: whole(),
  for_sale: bool(),
});
export const VipServerRecord = record({
  id: whole(),
  place_id: whole(),
  name: text(),
  price: whole(),
  active: bool(),
});

export type AccountRecord = Readonly<RecordOf<typeof AccountRecord>>;
export type TokenRecord = Readonly<RecordOf<typeof TokenRecord>>;
export type ChatLinkRecord = Readonly<RecordOf<typeof ChatLinkRecord>>;
export type TransactionRecord = Readonly<RecordOf<typeof TransactionRecord>>;
export type InvoiceRecord = Readonly<RecordOf<typeof InvoiceRecord>>;
export type OrderRecord = Readonly<RecordOf<typeof OrderRecord>>;
export type DepositRecord = Readonly<RecordOf<typeof DepositRecord>>;
export type IdempotencyRecord = Readonly<RecordOf<typeof IdempotencyRecord>>;
export type CreditPackageRecord = Readonly<RecordOf<typeof CreditPackageRecord>>;
export type PaymentMethodRecord = Readonly<RecordOf<typeof PaymentMethodRecord>>;
export type ArticleRecord = Readonly<RecordOf<typeof ArticleRecord>>;
export type PlatformUserRecord = Readonly<RecordOf<typeof PlatformUserRecord>>;
export type PlatformPlaceRecord = Readonly<RecordOf<typeof PlatformPlaceRecord>>;
export type PlatformPassRecord = Readonly<RecordOf<typeof PlatformPassRecord>>;
export type VipServerRecord = Readonly<RecordOf<typeof VipServerRecord>>;
