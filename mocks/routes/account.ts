import { formatMoney, formatTimestamp } from '../../src/contract/money.js';
import { pollIntervals } from '../../src/contract/timing.js';
import type { OrderStatus } from '../../src/contract/values.js';
import * as present from './present.js';
import { CURRENCY } from '../rules/pricing.js';
import { principalOf, type RouteHandler } from './context.js';
import { profileAccount } from '../rules/worlds.js';

export const validateToken: RouteHandler = async (ctx) => {
  const { account: world, token } = principalOf(ctx);
  // One account whatever the key's mode: a test world answers with its live account's id (rules/worlds.ts).
  const account = profileAccount(ctx.store, world);
  const lastUsed = token.last_used_at;
  ctx.store.db.tokens.update(token, { last_used_at: ctx.now });
  // Kept like any change: a state file's sandbox (the offline CLI's) would otherwise forget it with the process, and
  // the next check would say the token was never used.
  await ctx.commit();
  return {
    message: 'Token is valid.',
    data: {
      valid: true,
      mode: token.mode,
      user: { id: account.id, username: account.username },
      token_name: token.name,
      last_used_at: lastUsed === null ? null : formatTimestamp(lastUsed),
    },
  };
};

export const getProfile: RouteHandler = (ctx) => {
  const { account: world, token } = principalOf(ctx);
  const account = profileAccount(ctx.store, world);
  const link = ctx.store.db.chatLinks.get(String(account.id));
  return {
    message: 'Profile retrieved.',
    data: {
      user: {
        id: account.id,
        username: account.username,
        name: account.display_name,
        email: account.email,
        chat_linked: link !== undefined,
        chat_user_id: link?.chat_user_id ?? null,
        token_mode: token.mode,
        created_at: formatTimestamp(account.created_at),
      },
    },
  };
};

export const getDashboardSummary: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const { orders, invoices } = ctx.store.db;
  const counts: Record<OrderStatus | 'total', number> = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, cancelled: 0 };
  let totalSpent = 0;
  for (const order of orders.ownedBy(account.id)) {
    counts.total += 1;
    counts[order.status] += 1;
    if (order.status === 'processing' || order.status === 'completed') totalSpent += order.total_amount;
  }
  const pendingInvoices = invoices.ownedBy(account.id).filter((i) => i.payment_status === 'pending').length;
  const owned = orders.ownedBy(account.id);
  const recent = owned
    .slice(-5)
    .reverse()
    .map((o) => present.orderSummary(o, invoices.get(o.invoice_code)!));
  return {
    message: 'Dashboard summary retrieved.',
    data: {
      balance: account.balance,
      formatted_balance: formatMoney(account.balance, CURRENCY),
      currency: CURRENCY,
      orders: counts,
      pending_invoices: pendingInvoices,
      total_spent: totalSpent,
      formatted_total_spent: formatMoney(totalSpent, CURRENCY),
      recent_orders: recent,
      refresh_after_seconds: pollIntervals.dashboard.recommended,
    },
  };
};
