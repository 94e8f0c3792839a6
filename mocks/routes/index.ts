/**
 * The sandbox's routes: one handler per endpoint of the contract (routeHandlers below, with the route context in
 * context.ts and the answer shapes in present.ts), and the control API (control.ts, its moves in control-moves.ts,
 * the calls it lists in control-calls.ts).
 */
import type { EndpointId } from '../../src/contract/index.js';
import type { RouteHandler } from './context.js';
import { getDashboardSummary, getProfile, validateToken } from './account.js';
import { getBalance, getDeposit, listBalanceTransactions, listDeposits } from './balance.js';
import { getInvoice, getInvoiceStatus } from './invoices.js';
import { createOrder, getOrder, listOrders } from './orders.js';
import { getArticle, getHealth, listArticles, listCreditPackages, listPaymentMethods } from './public.js';

/** One handler per endpoint of the contract; the type makes a missing one a compile error. */
export const routeHandlers: Record<EndpointId, RouteHandler> = {
  getHealth,
  listCreditPackages,
  listPaymentMethods,
  listArticles,
  getArticle,
  validateToken,
  getProfile,
  getDashboardSummary,
  getBalance,
  listBalanceTransactions,
  listDeposits,
  getDeposit,
  createOrder,
  listOrders,
  getOrder,
  getInvoice,
  getInvoiceStatus,
};
