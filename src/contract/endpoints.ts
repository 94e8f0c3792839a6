import { z } from 'zod';
import { ArticleEnvelopeData, ArticleList, ArticleListQuery } from './articles.js';
import { DashboardSummary, Health, ProfileData, TokenValidation } from './account.js';
import { Balance, DepositData, DepositList, DepositListQuery, TransactionList, TransactionListQuery } from './balance.js';
import { CreditPackageList, PaymentMethodList } from './catalog.js';
import { InvoiceData, InvoiceStatus } from './invoices.js';
import { CreateOrderRequest, CreateOrderResult, OrderData, OrderList, OrderListQuery } from './orders.js';
import type { RateClass } from './rate-limits.js';
import { endpointRoutes } from './routes.js';

export interface Endpoint {
  /** operationId in the OpenAPI document, and the route's name in the sandbox. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly auth: boolean;
  readonly rateClass: RateClass;
  readonly tag: string;
  readonly summary: string;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly data: z.ZodType;
  /** Statuses of success answers; the first is the usual one. */
  readonly success: readonly number[];
  /** Statuses of error answers this endpoint may give besides 429 and 5xx, which every endpoint may give. */
  readonly errors: readonly number[];
}

const userErrors = [400, 401] as const;
/** Every endpoint refuses a token in the URL with 400 TOKEN_IN_URL, public ones included. */
const publicErrors = [400] as const;

/** The 17 endpoints of the interface, in the document's order. */
export const endpoints = [
  {
    id: 'getHealth',
    ...endpointRoutes.getHealth,
    tag: 'public',
    summary: 'API health',
    data: Health,
    success: [200],
    errors: [...publicErrors],
  },
  {
    id: 'listCreditPackages',
    ...endpointRoutes.listCreditPackages,
    tag: 'public',
    summary: 'Active credit packages',
    data: CreditPackageList,
    success: [200],
    errors: [...publicErrors],
  },
  {
    id: 'listPaymentMethods',
    ...endpointRoutes.listPaymentMethods,
    tag: 'public',
    summary: 'Active payment methods',
    data: PaymentMethodList,
    success: [200],
    errors: [...publicErrors],
  },
  {
    id: 'listArticles',
    ...endpointRoutes.listArticles,
    tag: 'public',
    summary: 'Published articles, newest first',
    query: ArticleListQuery,
    data: ArticleList,
    success: [200],
    errors: [...publicErrors, 422],
  },
  {
    id: 'getArticle',
    ...endpointRoutes.getArticle,
    tag: 'public',
    summary: 'A published article',
    data: ArticleEnvelopeData,
    success: [200],
    errors: [...publicErrors, 404],
  },
  {
    id: 'validateToken',
    ...endpointRoutes.validateToken,
    tag: 'token',
    summary: 'Check a token and report its mode',
    data: TokenValidation,
    success: [200],
    errors: [...userErrors],
  },
  {
    id: 'getProfile',
    ...endpointRoutes.getProfile,
    tag: 'account',
    summary: "Profile of the token's owner",
    data: ProfileData,
    success: [200],
    errors: [...userErrors],
  },
  {
    id: 'getDashboardSummary',
    ...endpointRoutes.getDashboardSummary,
    tag: 'account',
    summary: 'Dashboard summary',
    data: DashboardSummary,
    success: [200],
    errors: [...userErrors],
  },
  {
    id: 'getBalance',
    ...endpointRoutes.getBalance,
    tag: 'balance',
    summary: 'Current balance',
    data: Balance,
    success: [200],
    errors: [...userErrors],
  },
  {
    id: 'listBalanceTransactions',
    ...endpointRoutes.listBalanceTransactions,
    tag: 'balance',
    summary: 'Balance transactions, newest first',
    query: TransactionListQuery,
    data: TransactionList,
    success: [200],
    errors: [...userErrors, 422],
  },
  {
    id: 'listDeposits',
    ...endpointRoutes.listDeposits,
    tag: 'balance',
    summary: 'Deposits, newest first',
    query: DepositListQuery,
    data: DepositList,
    success: [200],
    errors: [...userErrors, 422],
  },
  {
    id: 'getDeposit',
    ...endpointRoutes.getDeposit,
    tag: 'balance',
    summary: 'A deposit',
    data: DepositData,
    success: [200],
    errors: [...userErrors, 404],
  },
  {
    id: 'createOrder',
    ...endpointRoutes.createOrder,
    tag: 'orders',
    summary: 'Create an order',
    body: CreateOrderRequest,
    data: CreateOrderResult,
    success: [201, 200],
    errors: [...userErrors, 409, 413, 415, 422, 507],
  },
  {
    id: 'listOrders',
    ...endpointRoutes.listOrders,
    tag: 'orders',
    summary: 'Orders, newest first',
    query: OrderListQuery,
    data: OrderList,
    success: [200],
    errors: [...userErrors, 422],
  },
  {
    id: 'getOrder',
    ...endpointRoutes.getOrder,
    tag: 'orders',
    summary: 'An order',
    data: OrderData,
    success: [200],
    errors: [...userErrors, 404],
  },
  {
    id: 'getInvoice',
    ...endpointRoutes.getInvoice,
    tag: 'invoices',
    summary: 'An invoice',
    data: InvoiceData,
    success: [200],
    errors: [...userErrors, 404],
  },
  {
    id: 'getInvoiceStatus',
    ...endpointRoutes.getInvoiceStatus,
    tag: 'invoices',
    summary: 'Payment status of an invoice',
    data: InvoiceStatus,
    success: [200],
    errors: [...userErrors, 404],
  },
] as const satisfies readonly Endpoint[];

export type EndpointId = (typeof endpoints)[number]['id'];

export const endpointById: { readonly [K in EndpointId]: Extract<(typeof endpoints)[number], { id: K }> } = Object.fromEntries(
  endpoints.map((e) => [e.id, e]),
) as never;

/** The success envelope around an endpoint's `data`. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}
