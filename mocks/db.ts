import * as R from './records.js';
import { Table } from './table.js';

/** Every collection the sandbox keeps, each with its key (and owner, where records belong to an account). */
export function createDb() {
  return {
    accounts: new Table(R.AccountRecord, (r) => String(r.id)),
    tokens: new Table(R.TokenRecord, (r) => r.token_sha256, (r) => r.account_id),
    chatLinks: new Table(R.ChatLinkRecord, (r) => String(r.account_id)),
    transactions: new Table(R.TransactionRecord, (r) => r.id, (r) => r.account_id),
    invoices: new Table(R.InvoiceRecord, (r) => r.invoice_code, (r) => r.account_id),
    orders: new Table(R.OrderRecord, (r) => r.invoice_code, (r) => r.account_id),
    deposits: new Table(R.DepositRecord, (r) => r.invoice_code, (r) => r.account_id),
    idempotency: new Table(R.IdempotencyRecord, (r) => idempotencyKeyOf(r.account_id, r.key)),
    creditPackages: new Table(R.CreditPackageRecord, (r) => r.code),
    paymentMethods: new Table(R.PaymentMethodRecord, (r) => r.code),
    articles: new Table(R.ArticleRecord, (r) => r.slug),
    platformUsers: new Table(R.PlatformUserRecord, (r) => r.username.toLowerCase()),
    platformPlaces: new Table(R.PlatformPlaceRecord, (r) => String(r.id)),
    platformPasses: new Table(R.PlatformPassRecord, (r) => String(r.id)),
    vipServers: new Table(R.VipServerRecord, (r) => String(r.id)),
  };
}

export type Db = ReturnType<typeof createDb>;
export type TableName = keyof Db;

export function idempotencyKeyOf(accountId: number, key: string): string {
  return `${accountId}\u0000${key}`;
}
