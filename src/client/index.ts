export { createClient, type TopupClient } from './client.js';
export {
  defaults,
  type ClientOptions,
  type ClientWait,
  type FetchFunction,
  type OutgoingRequest,
  type ReceivedResponse,
} from './options.js';
export type { Clock } from './clock.js';
export type { RawRequest, RawResponse, RequestOptions } from './request.js';
export { PagePromise, type Page } from './paginate.js';
export type { WaitOptions } from './wait.js';
export type { CatalogApi } from './catalog.js';
export type { ArticleData, ArticleListParams, ArticlesApi } from './articles.js';
export type { TokenApi } from './token.js';
export type { AccountApi } from './account.js';
export type { BalanceApi, TransactionListParams } from './balance.js';
export type { DepositListParams, DepositsApi } from './deposits.js';
export type { CreateOrderOptions, CreateOrderResponse, OrderListParams, OrdersApi } from './orders.js';
export type { InvoicesApi } from './invoices.js';
export type { BatchOutcome, BatchResult, BatchRow, BatchStop, CreateManyOptions } from './batch.js';
export { BatchKeys, batchRowKey, orderDigest, type KeyedRow } from './batch-key.js';
export {
  AuthError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  TopupError,
  UsageError,
  ValidationError,
  WaitTimeoutError,
  errorForStatus,
  errorKind,
  isTopupError,
  type ErrorKind,
  type TopupErrorCode,
  type TopupErrorDetails,
} from '../errors.js';
export { finalFetchError } from './http.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.js';
