import { type Endpoint, endpoints } from '../endpoints.js';
import { pollIntervals } from '../lifecycle.js';
import { FORBIDDEN_ORDER_FIELDS } from '../orders.js';
import { rateClasses } from '../rate-limits.js';

/** The prose of tags and operations: tag descriptions, each operation's notes, its success answers, its query parameters. */

/** The endpoint table widened to its interface, so optional members can be read on every entry. */
const allEndpoints: readonly Endpoint[] = endpoints;

// ---- tags ---------------------------------------------------------------------------------------

const tagDescriptions: Readonly<Record<string, string>> = {
  public: 'Token-free reads: health, catalog and articles.',
  token: 'Checking a User API Token.',
  account: "The token owner's profile and dashboard.",
  balance: 'Balance, balance transactions and deposits.',
  orders: 'Creating and reading orders.',
  invoices: 'Invoices and their payment status.',
};

export function tagList(): Array<{ name: string; description: string }> {
  const untagged = allEndpoints.filter((e) => tagDescriptions[e.tag] === undefined);
  if (untagged.length > 0) throw new Error(`Tags without a description: ${untagged.map((e) => e.tag).join(', ')}.`);
  return Object.entries(tagDescriptions).map(([name, description]) => ({ name, description }));
}

// ---- operations ---------------------------------------------------------------------------------

/** An operation's own notes, if any, then who may call it and its rate class. */
export function operationDescription(endpoint: Endpoint): string {
  const { limit, windowSeconds, scope } = rateClasses[endpoint.rateClass];
  const access = endpoint.auth ? 'Needs a User API Token.' : 'Public: no token.';
  const rate = `Rate class \`${endpoint.rateClass}\`: ${limit} requests per ${windowSeconds} s per ${scope === 'token' ? 'token' : 'client address'}.`;
  return [operationNotes[endpoint.id], `${access} ${rate}`].filter((part) => part !== undefined).join('\n\n');
}

const operationNotes: Readonly<Record<string, string>> = {
  listCreditPackages: 'Active packages in `sort_order`, at most `data.limit` (50).',
  listPaymentMethods: 'Active payment methods. `code` is the value to send as `payment_method`.',
  listArticles: 'Published articles, newest first, `data.limit` (10) per page.',
  getArticle: 'Unknown and unpublished slugs get 404 `NOT_FOUND`.',
  validateToken: 'Send no body. Reports whether the token works and its mode; an invalid token gets 401.',
  getDashboardSummary: `Refresh no more often than every ${pollIntervals.dashboard.min} s (\`refresh_after_seconds\`).`,
  getBalance: `Poll no more often than every ${pollIntervals.balance.min} s.`,
  getDeposit: 'Deposits of other accounts get 404 like unknown ones.',
  createOrder: [
    'Send only user input; the server computes price, discount, total, invoice and status (see Pricing).',
    `These fields, and any other property not in the schema, get 422 \`FORBIDDEN_FIELDS\`: ${FORBIDDEN_ORDER_FIELDS.map((f) => `\`${f}\``).join(', ')}.`,
    'The username, place and pass are checked against the game platform (422 `PLATFORM_VALIDATION_FAILED`).',
    '`payment_method` = `balance` needs X-Chat-User-ID with the chat id linked to the account (422 `CHAT_LINK_REQUIRED`) and enough balance (422 `INSUFFICIENT_BALANCE`).',
    'Sandbox tokens may only use `invoice` (422 `PAYMENT_METHOD_NOT_ALLOWED`).',
    'With an Idempotency-Key, a repeat with the same body answers 200 with the earlier order, and a different body gets 409 `IDEMPOTENCY_KEY_MISMATCH` (see Idempotency).',
  ].join('\n\n'),
  listOrders: `Poll no more often than every ${pollIntervals.orderList.min} s.`,
  getOrder: 'Orders of other accounts get 404 like unknown ones.',
  getInvoice: 'Invoices of other accounts get 404 like unknown ones.',
  getInvoiceStatus: `Poll every ${pollIntervals.invoiceStatus.min} to ${pollIntervals.invoiceStatus.max} s (\`poll_after_seconds\`) until \`is_final\`.`,
};

// ---- success answers ----------------------------------------------------------------------------

/** What a success status of an operation means; by default, the operation's summary. */
export function successDescription(endpoint: Endpoint, status: number): string {
  return successNotes[endpoint.id]?.[status] ?? `${endpoint.summary}.`;
}

const successNotes: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  createOrder: {
    201: 'Order created; `data.idempotent` is false.',
    200: 'The order created earlier with this Idempotency-Key and the same body; `data.idempotent` is true. Nothing new is created.',
  },
};

// ---- query parameters ---------------------------------------------------------------------------

/** Descriptions of query parameters whose schema carries none. */
export const queryParameterNotes: Readonly<Record<string, string>> = {
  page: 'Page number, from 1.',
  per_page: 'Items per page.',
  category: 'Only articles of this category.',
  type: 'Only transactions of this type.',
  status: 'Only orders with this status.',
  payment_status: 'Only items with this payment status.',
  order_type: 'Only orders of this type.',
  client_reference: 'Only orders with this client reference.',
};
