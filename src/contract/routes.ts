import type { RateClass } from './rate-limits.js';

/** Where an endpoint lives and how it is limited: what a client needs to send a request. */
export interface EndpointRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly auth: boolean;
  readonly rateClass: RateClass;
  /** Takes query parameters (their schema is the endpoint's `query` in endpoints.ts). */
  readonly queried?: true;
}

/**
 * The route of each of the 17 endpoints, by operationId. Plain data without zod, so that the client can send
 * requests without building a single schema; endpoints.ts adds the schemas for the sandbox and the OpenAPI document.
 */
export const endpointRoutes = {
  getHealth: { method: 'GET', path: '/api/v1/health', auth: false, rateClass: 'public-read' },
  listCreditPackages: { method: 'GET', path: '/api/v1/catalog/credit-packages', auth: false, rateClass: 'public-read' },
  listPaymentMethods: { method: 'GET', path: '/api/v1/catalog/payment-methods', auth: false, rateClass: 'public-read' },
  listArticles: { method: 'GET', path: '/api/v1/articles', auth: false, rateClass: 'public-read', queried: true },
  getArticle: { method: 'GET', path: '/api/v1/articles/{slug}', auth: false, rateClass: 'public-read' },
  validateToken: { method: 'POST', path: '/api/v1/auth/token/validate', auth: true, rateClass: 'token-validate' },
  getProfile: { method: 'GET', path: '/api/v1/me', auth: true, rateClass: 'user-read' },
  getDashboardSummary: { method: 'GET', path: '/api/v1/me/dashboard-summary', auth: true, rateClass: 'user-read' },
  getBalance: { method: 'GET', path: '/api/v1/me/balance', auth: true, rateClass: 'user-read' },
  listBalanceTransactions: { method: 'GET', path: '/api/v1/me/balance/transactions', auth: true, rateClass: 'user-read', queried: true },
  listDeposits: { method: 'GET', path: '/api/v1/me/deposits', auth: true, rateClass: 'user-read', queried: true },
  getDeposit: { method: 'GET', path: '/api/v1/me/deposits/{invoice}', auth: true, rateClass: 'user-read' },
  createOrder: { method: 'POST', path: '/api/v1/me/orders', auth: true, rateClass: 'create-order' },
  listOrders: { method: 'GET', path: '/api/v1/me/orders', auth: true, rateClass: 'user-read', queried: true },
  getOrder: { method: 'GET', path: '/api/v1/me/orders/{invoice}', auth: true, rateClass: 'user-read' },
  getInvoice: { method: 'GET', path: '/api/v1/me/invoices/{invoice}', auth: true, rateClass: 'user-read' },
  getInvoiceStatus: { method: 'GET', path: '/api/v1/me/invoices/{invoice}/status', auth: true, rateClass: 'user-read' },
} as const satisfies Readonly<Record<string, EndpointRoute>>;

const compiledRoutes = Object.values(endpointRoutes).map((route) => ({
  route: route,
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The endpoint a method and path (without its query) reach, or undefined for one the interface does not list. */
export function routeOf(method: string, path: string): EndpointRoute | undefined {
  return compiledRoutes.find((compiled) => compiled.route.method === method && compiled.pattern.test(path))?.route;
}
