import { formatMoney, formatTimestamp } from '../../src/contract/money.js';
import { ApiError, SerializedData } from '../core/exchange.js';
import type { AccountRecord } from '../store/records.js';
import * as present from './present.js';
import { CURRENCY } from '../rules/pricing.js';
import { principalOf, type RouteHandler } from './context.js';
import { pageNewestFirst } from './paging.js';

/**
 * A bot polls its balance far more often than it changes: the answer's data, which depends on nothing but the
 * balance and when it last changed, is serialised once per account and kept until either moves.
 */
const balanceCache = new WeakMap<AccountRecord, { balance: number; updatedAt: number; data: SerializedData }>();

export const getBalance: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  let cached = balanceCache.get(account);
  if (cached?.balance !== account.balance || cached.updatedAt !== account.balance_updated_at) {
    const data = {
      balance: account.balance,
      formatted_balance: formatMoney(account.balance, CURRENCY),
      currency: CURRENCY,
      updated_at: formatTimestamp(account.balance_updated_at),
    };
    cached = { balance: account.balance, updatedAt: account.balance_updated_at, data: new SerializedData(JSON.stringify(data)) };
    balanceCache.set(account, cached);
  }
  return { message: 'Balance retrieved.', data: cached.data };
};

export const listBalanceTransactions: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const type = ctx.query.type as string | undefined;
  const { items, pagination } = pageNewestFirst(
    ctx.store.db.transactions.ownedBy(account.id),
    ctx.query.page as number,
    ctx.query.per_page as number,
    type === undefined ? undefined : (t) => t.type === type,
  );
  return {
    message: 'Balance transactions retrieved.',
    data: { transactions: items.map((t) => present.transaction(t, CURRENCY)), pagination },
  };
};

export const listDeposits: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const { invoices, deposits } = ctx.store.db;
  const status = ctx.query.payment_status as string | undefined;
  const { items, pagination } = pageNewestFirst(
    deposits.ownedBy(account.id),
    ctx.query.page as number,
    ctx.query.per_page as number,
    status === undefined ? undefined : (d) => invoices.get(d.invoice_code)!.payment_status === status,
  );
  return {
    message: 'Deposits retrieved.',
    data: { deposits: items.map((d) => present.deposit(d, invoices.get(d.invoice_code)!, ctx.base)), pagination },
  };
};

export const getDeposit: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const code = ctx.params.invoice!;
  const found = ctx.store.db.deposits.get(code);
  // Another account's deposit is not found, never forbidden: its existence is not ours to confirm.
  if (found === undefined || found.account_id !== account.id) throw new ApiError(404, `Deposit ${code} was not found.`, 'NOT_FOUND');
  return { message: 'Deposit retrieved.', data: { deposit: present.deposit(found, ctx.store.db.invoices.get(code)!, ctx.base) } };
};
