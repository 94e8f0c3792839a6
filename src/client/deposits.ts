import type { z } from 'zod';
import type { Deposit, DepositData, DepositList, DepositListQuery } from '../contract/balance.js';
import { itemsOf, PagePromise } from './paginate.js';
import type { QueryParams, Requester, RequestOptions } from './request.js';

export type DepositListParams = QueryParams<z.infer<typeof DepositListQuery>>;

export interface DepositsApi {
  /** Deposits, newest first. Await for one page, or `for await` over every deposit. */
  list(query?: DepositListParams, options?: RequestOptions): PagePromise<DepositList, Deposit>;
  /** One deposit by its invoice code; another account's deposit is NotFoundError. */
  get(invoiceCode: string, options?: RequestOptions): Promise<DepositData>;
}

export function depositsApi(request: Requester): DepositsApi {
  return {
    list: (query, options) =>
      new PagePromise(
        (page) => request('listDeposits', { ...options, query: { ...query, page } }),
        (list) => itemsOf(list, 'deposits'),
        query?.page,
      ),
    get: (invoiceCode, options) => request('getDeposit', { ...options, params: { invoice: invoiceCode } }),
  };
}
