import * as R from './records.js';
import { Table } from './table.js';
import { tableKeys as key } from './table-keys.js';

export { idempotencyKeyOf } from './table-keys.js';

/** Every collection the sandbox keeps, each with its key (and owner, where records belong to an account). */
export function createDb() {
  return {
    accounts: new Table(R.AccountRecord, key.accounts),
    tokens: new Table(R.TokenRecord, key.tokens, (r) => r.account_id),
    chatLinks: new Table(R.ChatLinkRecord, key.chatLinks),
    transactions: new Table(R.TransactionRecord, key.transactions, (r) => r.account_id),
    invoices: new Table(R.InvoiceRecord, key.invoices, (r) => r.account_id),
    orders: new Table(R.OrderRecord, key.orders, (r) => r.account_id),
    deposits: new Table(R.DepositRecord, key.deposits, (r) => r.account_id),
    idempotency: new Table(R.IdempotencyRecord, key.idempotency),
    creditPackages: new Table(R.CreditPackageRecord, key.creditPackages),
    paymentMethods: new Table(R.PaymentMethodRecord, key.paymentMethods),
    articles: new Table(R.ArticleRecord, key.articles),
    platformUsers: new Table(R.PlatformUserRecord, key.platformUsers),
    platformPlaces: new Table(R.PlatformPlaceRecord, key.platformPlaces),
    platformPasses: new Table(R.PlatformPassRecord, key.platformPasses),
    vipServers: new Table(R.VipServerRecord, key.vipServers),
  };
}

export type Db = ReturnType<typeof createDb>;
export type TableName = keyof Db;

/**
 * The tables that grow with every order and deposit, an account's history: a state file keeps them last, and the
 * offline CLI reads them only for a request that needs them (mocks/state/state-layout.ts).
 */
export const HISTORY_TABLES = ['transactions', 'invoices', 'orders', 'deposits', 'idempotency'] as const satisfies readonly TableName[];

/** Whether a table is one of the history's (HISTORY_TABLES). */
export function isHistoryTable(name: string): boolean {
  return (HISTORY_TABLES as readonly string[]).includes(name);
}
