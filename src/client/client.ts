import type { Health } from '../contract/account.js';
import { accountApi, healthApi, type AccountApi } from './account.js';
import { articlesApi, type ArticlesApi } from './articles.js';
import { balanceApi, type BalanceApi } from './balance.js';
import { catalogApi, type CatalogApi } from './catalog.js';
import { depositsApi, type DepositsApi } from './deposits.js';
import { invoicesApi, type InvoicesApi } from './invoices.js';
import { resolveOptions, type ClientOptions } from './options.js';
import { ordersApi, type OrdersApi } from './orders.js';
import { createRequester, type RawRequest, type RawResponse, type RequestOptions } from './request.js';
import { tokenApi, type TokenApi } from './token.js';

export interface TopupClient {
  /**
   * One raw request to the client's server, with the same auth, pacing, retries, timeout and errors as the methods
   * below: for an endpoint the client has no method for yet, or to read an answer's status and headers.
   * `await client.request({ method: 'GET', path: '/api/v1/me/balance' })`.
   */
  request(request: RawRequest): Promise<RawResponse>;
  /** API health. Public. */
  health(options?: RequestOptions): Promise<Health>;
  catalog: CatalogApi;
  articles: ArticlesApi;
  token: TokenApi;
  account: AccountApi;
  balance: BalanceApi;
  deposits: DepositsApi;
  orders: OrdersApi;
  invoices: InvoicesApi;
}

/**
 * A client for the v1 interface. Options are checked here, so a refused base URL or token throws
 * UsageError before anything is sent. Every method returns the envelope's `data`.
 */
export function createClient(options: ClientOptions): TopupClient {
  const resolved = resolveOptions(options);
  const { request, raw, pacer, reportWait } = createRequester(resolved);
  return {
    request: raw,
    health: healthApi(request),
    catalog: catalogApi(request),
    articles: articlesApi(request),
    token: tokenApi(request),
    account: accountApi(request),
    balance: balanceApi(request),
    deposits: depositsApi(request),
    orders: ordersApi(request, { pacer, clock: resolved.clock, onWait: (ms) => reportWait('pacing', ms, 'POST /api/v1/me/orders') }),
    invoices: invoicesApi(request, resolved.clock),
  };
}
