import type { z } from 'zod';
import type { Balance, BalanceTransaction, TransactionList, TransactionListQuery } from '../contract/balance.js';
import { itemsOf, PagePromise } from './paginate.js';
import type { QueryParams, Requester, RequestOptions } from './request.js';

export type TransactionListParams = QueryParams<z.infer<typeof TransactionListQuery>>;

export interface BalanceApi {
  /** The current balance. */
  get(options?: RequestOptions): Promise<Balance>;
  /** Balance transactions, newest first. Await for one page, or `for await` over every transaction. */
  transactions(query?: TransactionListParams, options?: RequestOptions): PagePromise<TransactionList, BalanceTransaction>;
}

export function balanceApi(request: Requester): BalanceApi {
  return {
    get: (options) => request('getBalance', { ...options }),
    transactions: (query, options) =>
      new PagePromise(
        (page) => request('listBalanceTransactions', { ...options, query: { ...query, page } }),
        (list) => itemsOf(list, 'transactions'),
        query?.page,
      ),
  };
}
