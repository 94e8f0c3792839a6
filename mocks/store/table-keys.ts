import type * as R from './records.js';

/**
 * Each table's key: what the sandbox looks records up by, @msw/data's primary key, and what a state file's
 * journal (mocks/state/) matches its changes on. Free of zod, so reading a state file does not build schemas.
 */
export const tableKeys = {
  accounts: (r: R.AccountRecord) => String(r.id),
  tokens: (r: R.TokenRecord) => r.token_sha256,
  chatLinks: (r: R.ChatLinkRecord) => String(r.account_id),
  transactions: (r: R.TransactionRecord) => r.id,
  invoices: (r: R.InvoiceRecord) => r.invoice_code,
  orders: (r: R.OrderRecord) => r.invoice_code,
  deposits: (r: R.DepositRecord) => r.invoice_code,
  idempotency: (r: R.IdempotencyRecord) => idempotencyKeyOf(r.account_id, r.key),
  creditPackages: (r: R.CreditPackageRecord) => r.code,
  paymentMethods: (r: R.PaymentMethodRecord) => r.code,
  articles: (r: R.ArticleRecord) => r.slug,
  platformUsers: (r: R.PlatformUserRecord) => r.username.toLowerCase(),
  platformPlaces: (r: R.PlatformPlaceRecord) => String(r.id),
  platformPasses: (r: R.PlatformPassRecord) => String(r.id),
  vipServers: (r: R.VipServerRecord) => String(r.id),
};

export function idempotencyKeyOf(accountId: number, key: string): string {
  return `${accountId}\u0000${key}`;
}
