import type { z } from 'zod';
import type { CreateOrderRequest, CreateOrderResult, OrderData, OrderList, OrderListQuery, OrderSummary } from '../contract/orders.js';
import { RateLimitError, TopupError } from '../errors.js';
import { createMany, type BatchResult, type BatchRow, type CreateManyOptions } from './batch.js';
import type { Clock } from './clock.js';
import type { Pacer } from './pacing.js';
import { itemsOf, PagePromise } from './paginate.js';
import type { QueryParams, Requester, RequestOptions } from './request.js';

export type OrderListParams = QueryParams<z.infer<typeof OrderListQuery>>;

export interface CreateOrderOptions extends RequestOptions {
  /**
   * Names this order. The same key with the same body returns the first order instead of a second one
   * (`idempotent: true`); with a different body it is ConflictError. Default: a new random UUID per call.
   * Keep the key if you may need to retry the same order later, for example after a crash.
   */
  idempotencyKey?: string | undefined;
  /** The chat user id linked to the account, sent as X-Chat-User-ID; required when `payment_method` is `balance`. */
  chatUserId?: string | undefined;
}

/**
 * The envelope's `data`, plus what this call knows of its own sending: the Idempotency-Key it sent (the caller's, or
 * the generated one), and whether it sent the order again after an attempt whose answer was lost.
 */
export type CreateOrderResponse = CreateOrderResult & {
  idempotencyKey: string;
  /**
   * True when an attempt ended without an answer that refused the order (a dropped connection, a timeout, a 5xx) and
   * the order was sent again under the same key. That attempt may have made the order: an `idempotent: true` answer
   * then most likely returns this call's own order, not an earlier call's (with a key this call generated, certainly).
   */
  resent: boolean;
};

export interface OrdersApi {
  /**
   * Creates an order. Always sends an Idempotency-Key, chosen once per call and reused by every retry,
   * so a retried request never makes a second order. Every TopupError it throws carries `idempotencyKey`:
   * call again with that key to learn whether the order was made.
   */
  create(body: CreateOrderRequest, options?: CreateOrderOptions): Promise<CreateOrderResponse>;
  /**
   * Creates many orders, one at a time and paced, each under a stable Idempotency-Key (the row's own, or one derived
   * from `options.batch` and the row), so running the same rows again never orders twice. A row the server refuses
   * (validation, platform, balance) is reported and the batch goes on; a 401 or a server that stops answering ends it
   * (`stopped`). Record each outcome in `onOutcome`: it is awaited before the next row is sent.
   */
  createMany(rows: Iterable<BatchRow> | AsyncIterable<BatchRow>, options?: CreateManyOptions): Promise<BatchResult>;
  /** Orders, newest first. Await for one page, or `for await` over every order. */
  list(query?: OrderListParams, options?: RequestOptions): PagePromise<OrderList, OrderSummary>;
  /** One order by its invoice code; another account's order is NotFoundError. */
  get(invoiceCode: string, options?: RequestOptions): Promise<OrderData>;
}

export function ordersApi(
  request: Requester,
  batchDeps: { pacer: Pacer | undefined; clock: Clock; onWait?: ((ms: number) => void) | undefined },
): OrdersApi {
  const api: OrdersApi = {
    async create(body, options = {}) {
      const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
      const headers: Record<string, string> = options.chatUserId === undefined ? {} : { 'x-chat-user-id': options.chatUserId };
      let resent = false;
      // A 429 is the server's refusal of that attempt: it made nothing, whatever follows.
      const onRetry = (error: unknown) => {
        resent ||= !(error instanceof RateLimitError);
      };
      try {
        const data = await request('createOrder', { signal: options.signal, body, headers, idempotencyKey, onRetry });
        return { ...data, idempotencyKey, resent };
      } catch (error) {
        if (error instanceof TopupError) error.idempotencyKey = idempotencyKey;
        throw error;
      }
    },
    list: (query, options) =>
      new PagePromise(
        (page) => request('listOrders', { ...options, query: { ...query, page } }),
        (list) => itemsOf(list, 'orders'),
        query?.page,
      ),
    get: (invoiceCode, options) => request('getOrder', { ...options, params: { invoice: invoiceCode } }),
    createMany: (rows, options) => createMany(rows, options, { ...batchDeps, create: (body, keyed) => api.create(body, keyed) }),
  };
  return api;
}
