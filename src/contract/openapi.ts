import { z } from 'zod';
import { components } from './common.js';
import { type Endpoint, endpoints } from './endpoints.js';
import { type ErrorCode, errorCodeCatalog } from './errors.js';
import { INVOICE_TTL_SECONDS, orderTransitions, paymentTransitions, pollIntervals } from './lifecycle.js';
import { formatMoney } from './money.js';
import { FORBIDDEN_ORDER_FIELDS } from './orders.js';
import { MAX_IN_FLIGHT_CLIENT, MAX_IN_FLIGHT_SERVER, RATE_LIMIT_HEADERS, type RateClass, rateClasses } from './rate-limits.js';

/** Version of the interface description, as the interface document publishes it. */
import { INTERFACE_VERSION } from './version.js';

export { INTERFACE_VERSION };

export type JsonSchema = { [keyword: string]: unknown };
export type OpenApiReference = { $ref: string };
export interface OpenApiHeader { description: string; schema: JsonSchema }
export interface OpenApiMediaType { schema: JsonSchema }
export interface OpenApiResponse {
  description: string;
  headers: Record<string, OpenApiHeader | OpenApiReference>;
  content: Record<string, OpenApiMediaType>;
}
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}
export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: Array<Record<string, string[]>>;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse | OpenApiReference>;
}
export type OpenApiPathItem = Partial<Record<'get' | 'post', OpenApiOperation>>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: Array<{ url: string; description: string; variables: Record<string, { default: string; description: string }> }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    headers: Record<string, OpenApiHeader>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

const JSON_MEDIA_TYPE = 'application/json';
const SECURITY_SCHEME = 'bearerAuth';
/** Statuses every operation may answer with, besides its own. 405 is left out: it belongs to no operation. */
const STATUSES_OF_EVERY_OPERATION = [429, 500, 502, 503, 504] as const;
const STATUSES_WITH_RETRY_AFTER: ReadonlySet<number> = new Set([429, 503]);
/** The endpoint table widened to its interface, so optional members can be read on every entry. */
const allEndpoints: readonly Endpoint[] = endpoints;

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'Credit top-up shop API', version: INTERFACE_VERSION, description: infoDescription(), license: { name: 'MIT', identifier: 'MIT' } },
    servers: [
      {
        url: 'https://{host}',
        description: 'The service. The sandbox (`topup mock serve` or the in-process sandbox) serves the same paths at its own base URL.',
        variables: { host: { default: 'topup.example', description: 'Host name of the service.' } },
      },
    ],
    tags: tagList(),
    paths: pathItems(),
    components: {
      schemas: componentSchemas(),
      responses: errorResponses(),
      headers: rateLimitHeaderComponents(),
      securitySchemes: {
        [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'A User API Token: `topup_test_…` (sandbox) or `topup_live_…` (production).' },
      },
    },
  };
}

// ---- components.schemas -------------------------------------------------------------------------

function schemaPointer(id: string): string {
  return `#/components/schemas/${id}`;
}

function schemaRef(id: string): OpenApiReference {
  return { $ref: schemaPointer(id) };
}

/** The component id of a registered schema; an unregistered one is a contract bug. */
function componentId(schema: z.ZodType, usedAs: string): string {
  const id = components.get(schema)?.id;
  if (id === undefined) throw new Error(`${usedAs} is not registered in the components registry (src/contract/common.ts).`);
  return id;
}

/** Request bodies are read as input (defaults and optional fields are not required); answers as output. */
function componentSchemas(): Record<string, JsonSchema> {
  const output = registrySchemas('output');
  const input = registrySchemas('input');
  const bodyIds = new Set(allEndpoints.flatMap((e) => (e.body ? [componentId(e.body, `Request body of ${e.id}`)] : [])));
  const schemas: Record<string, JsonSchema> = {};
  for (const id of Object.keys(output).sort()) {
    schemas[id] = withoutIdentity((bodyIds.has(id) ? input : output)[id] ?? {});
  }
  // The pass id is required under one of its two names, which zod cannot say: the document's "one of the two".
  schemas.CreateOrderRequest = { ...schemas.CreateOrderRequest, anyOf: ['platform_pass_id', 'gamepass_id'].map((name) => ({ properties: { [name]: {} }, required: [name] })) };
  return schemas;
}

function registrySchemas(io: 'input' | 'output'): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    uri: schemaPointer,
    target: 'draft-2020-12',
    io,
    // The component descriptions live in our registry, not the global one that toJSONSchema reads.
    override: ({ zodSchema, jsonSchema }) => {
      const description = components.get(zodSchema)?.description;
      if (description !== undefined) jsonSchema.description = description;
    },
  });
  if ('__shared' in schemas) {
    throw new Error('A schema is shared without a component id (toJSONSchema emitted __shared); register it in src/contract.');
  }
  return schemas as Record<string, JsonSchema>;
}

/** `$schema` and `$id` belong to standalone schemas, not to components of one document. */
function withoutIdentity(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

// ---- components.headers and components.responses ------------------------------------------------

/** The rate-limit headers, under their component names. */
const rateLimitHeaders = {
  XRateLimitLimit: { name: RATE_LIMIT_HEADERS.limit, minimum: 1, description: 'Requests allowed per window in the rate class of the operation.' },
  XRateLimitRemaining: { name: RATE_LIMIT_HEADERS.remaining, minimum: 0, description: 'Requests left in the current window.' },
  XRateLimitReset: { name: RATE_LIMIT_HEADERS.reset, minimum: 0, description: 'Unix time, in seconds, at which the current window ends.' },
  RetryAfter: { name: RATE_LIMIT_HEADERS.retryAfter, minimum: 0, description: 'Seconds to wait before retrying.' },
} as const;

function rateLimitHeaderComponents(): Record<string, OpenApiHeader> {
  return Object.fromEntries(
    Object.entries(rateLimitHeaders).map(([id, { minimum, description }]) => [id, { description, schema: { type: 'integer', minimum } }]),
  );
}

function responseHeaders(status: number): Record<string, OpenApiHeader | OpenApiReference> {
  const ids: Array<keyof typeof rateLimitHeaders> = ['XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset'];
  if (STATUSES_WITH_RETRY_AFTER.has(status)) ids.push('RetryAfter');
  return Object.fromEntries(ids.map((id) => [rateLimitHeaders[id].name, { $ref: `#/components/headers/${id}` }]));
}

/** Shared error answers, by status: the component name and what the status means. */
const errorStatuses: Readonly<Record<number, { name: string; meaning: string }>> = {
  400: { name: 'BadRequest', meaning: 'The request is malformed.' },
  401: { name: 'Unauthorized', meaning: 'The token is missing, invalid or revoked. No `error.code`.' },
  404: { name: 'NotFound', meaning: 'No such resource for this account, or no such path.' },
  409: { name: 'Conflict', meaning: 'The request conflicts with an earlier one.' },
  413: { name: 'PayloadTooLarge', meaning: 'The body is too large.' },
  415: { name: 'UnsupportedMediaType', meaning: 'The body is not sent as application/json.' },
  422: { name: 'UnprocessableEntity', meaning: 'The request was understood but refused.' },
  429: {
    name: 'TooManyRequests',
    meaning: `The rate class limit is used up, or ${MAX_IN_FLIGHT_SERVER} requests of this token are already in flight. No \`error.code\`; retry after Retry-After seconds.`,
  },
  500: { name: 'InternalServerError', meaning: 'Unexpected server error.' },
  502: { name: 'BadGateway', meaning: 'A gateway in front of the service got no valid answer from it.' },
  503: { name: 'ServiceUnavailable', meaning: 'The service is briefly unavailable; retry after Retry-After seconds.' },
  504: { name: 'GatewayTimeout', meaning: 'A gateway in front of the service gave up waiting for it.' },
};

function errorResponseName(status: number): string {
  const entry = errorStatuses[status];
  if (entry === undefined) throw new Error(`No shared error response for status ${status}; add it to errorStatuses in openapi.ts.`);
  return entry.name;
}

function errorResponses(): Record<string, OpenApiResponse> {
  return Object.fromEntries(
    Object.entries(errorStatuses).map(([key, { name, meaning }]) => [name, errorResponse(Number(key), meaning)]),
  );
}

function errorResponse(status: number, meaning: string): OpenApiResponse {
  const codes = codesOfStatus(status).map((code) => `\`${code}\``);
  const headers = responseHeaders(status);
  return {
    description: codes.length === 0 ? meaning : `${meaning} error.code: ${codes.join(', ')}.`,
    headers,
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef('ErrorEnvelope') } },
  };
}

function codesOfStatus(status: number): ErrorCode[] {
  return (Object.keys(errorCodeCatalog) as ErrorCode[]).filter((code) => errorCodeCatalog[code].status === status);
}

// ---- paths --------------------------------------------------------------------------------------

function pathItems(): Record<string, OpenApiPathItem> {
  const paths: Record<string, OpenApiPathItem> = {};
  for (const endpoint of allEndpoints) {
    const item = (paths[endpoint.path] ??= {});
    item[endpoint.method === 'GET' ? 'get' : 'post'] = operation(endpoint);
  }
  return paths;
}

function operation(endpoint: Endpoint): OpenApiOperation {
  const parameters = [...pathParameters(endpoint.path), ...queryParameters(endpoint), ...headerParameters(endpoint)];
  return {
    operationId: endpoint.id,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: operationDescription(endpoint),
    // Public operations say so: no security requirement at all, rather than none given.
    security: endpoint.auth ? [{ [SECURITY_SCHEME]: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.body ? { requestBody: requestBody(endpoint, endpoint.body) } : {}),
    responses: { ...successResponses(endpoint), ...operationErrorResponses(endpoint) },
  };
}

function operationDescription(endpoint: Endpoint): string {
  const { limit, windowSeconds, scope } = rateClasses[endpoint.rateClass];
  const access = endpoint.auth ? 'Needs a User API Token.' : 'Public: no token.';
  const rate = `Rate class \`${endpoint.rateClass}\`: ${limit} requests per ${windowSeconds} s per ${scope === 'token' ? 'token' : 'client address'}.`;
  return [operationNotes[endpoint.id], `${access} ${rate}`].filter((part) => part !== undefined).join('\n\n');
}

const pathParameterSchemas: Readonly<Record<string, { description: string; schema: JsonSchema }>> = {
  invoice: { description: 'An invoice code of this account.', schema: schemaRef('InvoiceCode') },
  slug: { description: 'The slug of a published article.', schema: { type: 'string' } },
};

function pathParameters(path: string): OpenApiParameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const known = pathParameterSchemas[name];
    if (known === undefined) throw new Error(`Path parameter {${name}} of ${path} has no schema in openapi.ts.`);
    return { name, in: 'path', required: true, ...known };
  });
}

function queryParameters(endpoint: Endpoint): OpenApiParameter[] {
  if (endpoint.query === undefined) return [];
  return Object.entries(endpoint.query.shape).map(([name, schema]) => {
    const property = schema as z.ZodType;
    const description = property.description ?? queryParameterNotes[name];
    return {
      name,
      in: 'query',
      required: !property.safeParse(undefined).success,
      ...(description === undefined ? {} : { description }),
      schema: queryParameterSchema(property),
    };
  });
}

const queryParameterNotes: Readonly<Record<string, string>> = {
  page: 'Page number, from 1.',
  per_page: 'Items per page.',
  category: 'Only articles of this category.',
  type: 'Only transactions of this type.',
  status: 'Only orders with this status.',
  payment_status: 'Only items with this payment status.',
  order_type: 'Only orders of this type.',
  client_reference: 'Only orders with this client reference.',
};

/** Enumerations that are components stay references; everything else is written out as the server reads it. */
function queryParameterSchema(property: z.ZodType): JsonSchema {
  const inner = property instanceof z.ZodOptional ? (property.unwrap() as z.ZodType) : property;
  const id = components.get(inner)?.id;
  if (id !== undefined) return schemaRef(id);
  return withoutIdentity(z.toJSONSchema(property, { io: 'input', target: 'draft-2020-12' }) as JsonSchema);
}

function headerParameters(endpoint: Endpoint): OpenApiParameter[] {
  if (endpoint.id !== 'createOrder') return [];
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'One key per intended order, reused on every retry of it. Keys are kept per account for 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    },
    {
      name: 'X-Chat-User-ID',
      in: 'header',
      required: false,
      description: 'Required when `payment_method` is `balance`: the chat-platform user id linked to the account that owns the token.',
      schema: { type: 'string', minLength: 1 },
    },
  ];
}

function requestBody(endpoint: Endpoint, body: z.ZodType): NonNullable<OpenApiOperation['requestBody']> {
  return {
    required: true,
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(componentId(body, `Request body of ${endpoint.id}`)) } },
  };
}

function successResponses(endpoint: Endpoint): Record<string, OpenApiResponse> {
  const dataId = componentId(endpoint.data, `Data schema of ${endpoint.id}`);
  return Object.fromEntries(
    endpoint.success.map((status) => [
      String(status),
      {
        description: successNotes[endpoint.id]?.[status] ?? `${endpoint.summary}.`,
        headers: responseHeaders(status),
        content: { [JSON_MEDIA_TYPE]: { schema: successEnvelopeSchema(dataId) } },
      },
    ]),
  );
}

function successEnvelopeSchema(dataId: string): JsonSchema {
  return {
    type: 'object',
    properties: { success: { type: 'boolean', const: true }, message: { type: 'string' }, data: schemaRef(dataId) },
    required: ['success', 'message', 'data'],
    additionalProperties: false,
  };
}

function operationErrorResponses(endpoint: Endpoint): Record<string, OpenApiReference> {
  const statuses = [...new Set([...endpoint.errors, ...STATUSES_OF_EVERY_OPERATION])].sort((a, b) => a - b);
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
}

const successNotes: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  createOrder: {
    201: 'Order created; `data.idempotent` is false.',
    200: 'The order created earlier with this Idempotency-Key and the same body; `data.idempotent` is true. Nothing new is created.',
  },
};

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

// ---- tags ---------------------------------------------------------------------------------------

const tagDescriptions: Readonly<Record<string, string>> = {
  public: 'Token-free reads: health, catalog and articles.',
  token: 'Checking a User API Token.',
  account: "The token owner's profile and dashboard.",
  balance: 'Balance, balance transactions and deposits.',
  orders: 'Creating and reading orders.',
  invoices: 'Invoices and their payment status.',
};

function tagList(): Array<{ name: string; description: string }> {
  const untagged = allEndpoints.filter((e) => tagDescriptions[e.tag] === undefined);
  if (untagged.length > 0) throw new Error(`Tags without a description: ${untagged.map((e) => e.tag).join(', ')}.`);
  return Object.entries(tagDescriptions).map(([name, description]) => ({ name, description }));
}

// ---- info.description ---------------------------------------------------------------------------

function infoDescription(): string {
  return [
    'The v1 interface of the credit top-up shop: public catalog and article reads, a token check, and the user-only area under `/api/v1/me` where an account reads its own data and creates orders. The server computes every price, discount, total, invoice and status; clients only pass user input.',
    envelopeSection(),
    authenticationSection(),
    rateLimitSection(),
    idempotencySection(),
    lifecycleSection(),
    paginationSection(),
    pricingSection(),
    moneyAndTimeSection(),
    errorSection(),
  ].join('\n\n');
}

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function envelopeSection(): string {
  return [
    '## Envelopes',
    'Every answer is JSON. A success is `{ "success": true, "message": string, "data": object }`; each operation gives the shape of its `data`.',
    'An error is `{ "success": false, "message": string, "error"?: { "code"?: string, "fields"?: string[] } }` (schema `ErrorEnvelope`). `error.fields` names the request fields at fault. 401 and 429 carry no `error.code`; tell them apart by status.',
  ].join('\n\n');
}

function authenticationSection(): string {
  return [
    '## Authentication',
    'User-only operations (every path under `/api/v1/me`, and `POST /api/v1/auth/token/validate`) need `Authorization: Bearer <token>`. Bearer in that header is the only way to send a token: a token in the URL (a `token` query parameter, for example) is refused with 400 `TOKEN_IN_URL`. A missing, invalid or revoked token gets 401. Public operations need no token.',
    'Tokens start with `topup_test_` (sandbox mode) or `topup_live_` (production mode). Sandbox tokens may only create orders with `payment_method` = `invoice`. Keep tokens server-side, never in pages, scripts, repositories or URLs.',
  ].join('\n\n');
}

function rateLimitSection(): string {
  const rows = (Object.keys(rateClasses) as RateClass[]).map((rateClass) => {
    const { limit, windowSeconds, scope } = rateClasses[rateClass];
    const operations = allEndpoints.filter((e) => e.rateClass === rateClass).map((e) => `\`${e.id}\``);
    return [`\`${rateClass}\``, String(limit), `${windowSeconds} s`, scope === 'token' ? 'token' : 'client address', operations.join(', ')];
  });
  return [
    '## Rate limits',
    markdownTable(['Class', 'Limit', 'Window', 'Counted per', 'Operations'], rows),
    `Public reads are counted per client address, everything else per token. Besides, at most ${MAX_IN_FLIGHT_SERVER} requests of one token may be in flight at once: the server answers a token's ${MAX_IN_FLIGHT_SERVER + 1}th simultaneous request with 429. Clients should keep to ${MAX_IN_FLIGHT_CLIENT}.`,
    'A refused request gets 429 with the error envelope. Wait `Retry-After` seconds, then retry.',
    markdownTable(['Header', 'Meaning'], Object.values(rateLimitHeaders).map(({ name, description }) => [name, description])),
    `Every counted request is answered with the three X-RateLimit-* headers. A 400 given before the request is counted (a token in the URL, a malformed header) and 500, 502, 503 or 504 faults may come without them. 429 and 503 answers carry ${RATE_LIMIT_HEADERS.retryAfter}.`,
  ].join('\n\n');
}

function idempotencySection(): string {
  return [
    '## Idempotency',
    '`POST /api/v1/me/orders` takes an optional `Idempotency-Key` header (1 to 255 visible ASCII characters). Keys belong to the account that sent them and are kept for 24 hours.',
    '- The first request with a key creates the order: 201 with `data.idempotent` = false.\n- The same key with the same body returns the earlier order: 200 with `data.idempotent` = true; nothing new is created.\n- The same key with a different body gets 409 `IDEMPOTENCY_KEY_MISMATCH`.\n- Concurrent requests with the same key create one order between them.',
    'Choose one key per intended order and reuse it on every retry of that order.',
  ].join('\n\n');
}

function transitionTable(transitions: Readonly<Record<string, readonly string[]>>): string {
  const rows = Object.entries(transitions).map(([status, next]) => [
    `\`${status}\``,
    next.length === 0 ? 'final' : next.map((s) => `\`${s}\``).join(', '),
  ]);
  return markdownTable(['Status', 'Can become'], rows);
}

function lifecycleSection(): string {
  const ttlMinutes = INVOICE_TTL_SECONDS / 60;
  return [
    '## Order and payment lifecycles',
    'Orders carry `status` (schema `OrderStatus`), invoices `payment_status` (schema `PaymentStatus`). Only the server moves them, and only along these transitions.',
    '### Order status',
    transitionTable(orderTransitions),
    '### Payment status',
    transitionTable(paymentTransitions),
    `An unpaid invoice (of an order or a deposit) expires ${INVOICE_TTL_SECONDS} s (${ttlMinutes} minutes) after creation, at its \`expires_at\`: its \`payment_status\` becomes \`expired\` and the order \`cancelled\`. Paying moves the order to \`processing\`; a failed delivery refunds the total to the balance.`,
    `Poll an invoice status every ${pollIntervals.invoiceStatus.min} to ${pollIntervals.invoiceStatus.max} s, the order list every ${pollIntervals.orderList.min} to ${pollIntervals.orderList.max} s, the balance every ${pollIntervals.balance.min} to ${pollIntervals.balance.max} s.`,
  ].join('\n\n');
}

function paginationSection(): string {
  return [
    '## Pagination',
    'Lists take `page` (from 1, default 1) and `per_page` (1 to 100, default 20) and answer with `data.pagination` (`page`, `per_page`, `total`, `total_pages`, `has_more`). Ask for the next page while `has_more` is true. The `per_page` of the article list is 1 to `data.limit` (10), default 10. A value out of range gets 422 `VALIDATION_FAILED`. Pagination is this sandbox design, not part of the interface document: a client must also work with a server that sends no `pagination`.',
  ].join('\n\n');
}

function pricingSection(): string {
  return [
    '## Pricing',
    'The server prices every order from the credit amount of the pass:',
    '- price = credit_amount × 120 (IDR per credit)\n- discount = 5 % of the price when credit_amount ≥ 1,000, 10 % when credit_amount ≥ 5,000, otherwise 0; rounded down to whole rupiah\n- total = price − discount',
    'The invoice amount is the total. Clients never send any of these.',
  ].join('\n\n');
}

function moneyAndTimeSection(): string {
  return [
    '## Money and time',
    `Amounts are integers in IDR, without decimals. Each has a \`formatted_*\` companion for display, such as \`${formatMoney(15_000, 'IDR')}\`. Timestamps are UTC and written \`YYYY-MM-DD HH:MM:SS\`.`,
  ].join('\n\n');
}

function errorSection(): string {
  const coded = (Object.keys(errorCodeCatalog) as ErrorCode[]).map((code) => {
    const { status, meaning } = errorCodeCatalog[code];
    return [String(status), `\`${code}\``, meaning];
  });
  const uncoded = [
    ['401', 'none', 'The token is missing, invalid or revoked.'],
    ['429', 'none', 'Too many requests; see Rate limits.'],
  ];
  return [
    '## Errors',
    'Every error uses the error envelope. Codes are stable; messages are for people.',
    markdownTable(['Status', 'error.code', 'Meaning'], [...uncoded, ...coded].sort((a, b) => Number(a[0]) - Number(b[0]))),
  ].join('\n\n');
}
