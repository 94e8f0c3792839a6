import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CreateOrderResult,
  CreditPackageList,
  ErrorEnvelope,
  Health,
  InvoiceData,
  InvoiceStatus,
  OrderList,
  ProfileData,
  TokenValidation,
  successEnvelope,
} from '../../src/contract/index.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { buildOpenApiDocument, type OpenApiOperation, type OpenApiResponse } from '../../src/contract/openapi.js';
import { compileComponents, createContractValidator, type HttpExchange, withContractCheck } from '../support/openapi-validator.js';

const doc = buildOpenApiDocument();
const validator = createContractValidator(doc);

function operations(): Array<{ method: string; path: string; operation: OpenApiOperation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

function resolved(response: OpenApiResponse | { $ref: string }): OpenApiResponse {
  if (!('$ref' in response)) return response;
  const found = doc.components.responses[response.$ref.replace('#/components/responses/', '')];
  if (found === undefined) throw new Error(`${response.$ref} does not resolve`);
  return found;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 describing interface version 1.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    expect(doc.servers[0]?.url).toBe('https://{host}');
  });

  it('has exactly the 17 operations of the interface', () => {
    const expected = [
      ['GET', '/api/v1/health', 'getHealth'],
      ['GET', '/api/v1/catalog/credit-packages', 'listCreditPackages'],
      ['GET', '/api/v1/catalog/payment-methods', 'listPaymentMethods'],
      ['GET', '/api/v1/articles', 'listArticles'],
      ['GET', '/api/v1/articles/{slug}', 'getArticle'],
      ['POST', '/api/v1/auth/token/validate', 'validateToken'],
      ['GET', '/api/v1/me', 'getProfile'],
      ['GET', '/api/v1/me/dashboard-summary', 'getDashboardSummary'],
      ['GET', '/api/v1/me/balance', 'getBalance'],
      ['GET', '/api/v1/me/balance/transactions', 'listBalanceTransactions'],
      ['GET', '/api/v1/me/deposits', 'listDeposits'],
      ['GET', '/api/v1/me/deposits/{invoice}', 'getDeposit'],
      ['POST', '/api/v1/me/orders', 'createOrder'],
      ['GET', '/api/v1/me/orders', 'listOrders'],
      ['GET', '/api/v1/me/orders/{invoice}', 'getOrder'],
      ['GET', '/api/v1/me/invoices/{invoice}', 'getInvoice'],
      ['GET', '/api/v1/me/invoices/{invoice}/status', 'getInvoiceStatus'],
    ];
    const actual = operations().map(({ method, path, operation }) => [method, path, operation.operationId]);
    expect(actual.sort()).toEqual(expected.sort());
  });

  it('asks for the bearer token on exactly the user-only operations', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, operation } of operations()) {
      const userOnly = path.startsWith('/api/v1/me') || operation.operationId === 'validateToken';
      // Public operations declare an empty requirement: no token, said explicitly.
      expect(operation.security, operation.operationId).toEqual(userOnly ? [{ bearerAuth: [] }] : []);
    }
  });

  it('documents createOrder: statuses, Idempotency-Key, X-Chat-User-ID and the body', () => {
    const createOrder = doc.paths['/api/v1/me/orders']?.post;
    expect(Object.keys(createOrder?.responses ?? {})).toEqual(expect.arrayContaining(['201', '200', '401', '409', '422', '429']));
    expect(createOrder?.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 255 }),
        }),
        expect.objectContaining({ name: 'X-Chat-User-ID', in: 'header', required: false }),
      ]),
    );
    expect(createOrder?.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/CreateOrderRequest' },
          example: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
        },
      },
    });
    expect(doc.components.schemas.CreateOrderRequest?.required).toEqual(['platform_username', 'place_id']);
    expect(doc.components.schemas.CreateOrderRequest?.additionalProperties).toBe(false);
  });

  it('lists the rate-limit headers on every answer, and Retry-After on 429 and 503', () => {
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(resolved(response).headers);
        const expected = [
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          ...(['429', '503'].includes(status) ? ['Retry-After'] : []),
        ];
        expect(headers, `${operation.operationId} ${status}`).toEqual(expected);
      }
      expect(Object.keys(operation.responses), operation.operationId).toEqual(expect.arrayContaining(['429', '500', '503']));
      expect(Object.keys(operation.responses), operation.operationId).not.toContain('405');
    }
  });

  it('takes the pagination parameters with their defaults', () => {
    const parameters = doc.paths['/api/v1/me/orders']?.get?.parameters ?? [];
    expect(parameters.find((p) => p.name === 'per_page')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(parameters.find((p) => p.name === 'status')).toMatchObject({ schema: { $ref: '#/components/schemas/OrderStatus' } });
    expect(doc.paths['/api/v1/me/orders/{invoice}']?.get?.parameters).toEqual([
      expect.objectContaining({ name: 'invoice', in: 'path', required: true, schema: { $ref: '#/components/schemas/InvoiceCode' } }),
    ]);
  });

  it.each([
    ['bearer only', 'Bearer'],
    ['token in URL refused', 'TOKEN_IN_URL'],
    ['sandbox token prefix', 'topup_test_'],
    ['production token prefix', 'topup_live_'],
    ['create-order limit', '| `create-order` | 10 | 60 s | token |'],
    ['public reads per address', '| `public-read` | 60 | 60 s | client address |'],
    ['in-flight rule', '4th simultaneous request with 429'],
    ['idempotent replay', '200 with `data.idempotent` = true'],
    ['key lifetime', '24 hours'],
    ['order transition', '| `pending` | `processing`, `cancelled` |'],
    ['payment transition', '| `paid` | `refunded` |'],
    ['invoice expiry', 'expires 3600 s'],
    ['pagination', '`per_page` (1 to 100, default 20)'],
    ['price', 'price = credit_amount × 120'],
    ['discount', '5 % of the price when credit_amount ≥ 1,000, 10 % when credit_amount ≥ 5,000'],
    ['timestamps', '`YYYY-MM-DD HH:MM:SS`'],
    ['error table row', '| 409 | `IDEMPOTENCY_KEY_MISMATCH` |'],
    ['uncoded 401', '| 401 | none |'],
  ])('info.description documents %s', (_name, phrase) => {
    expect(doc.info.description).toContain(phrase);
  });

  it('compiles every component under Ajv strict mode', () => {
    expect(Object.keys(compileComponents(doc)).sort()).toEqual(Object.keys(doc.components.schemas).sort());
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['platform_pass_id', { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }, true],
    ['its alias gamepass_id', { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9001 }, true],
    ['neither pass id', { platform_username: 'BuilderBob', place_id: 5001 }, false],
    ['both pass ids', { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, gamepass_id: 9001 }, false],
    ['an unknown property', { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, a: 1 }, false],
  ])('the order body with %s is %s, in the document as in the sandbox', async (_name, body, valid) => {
    expect(compileComponents(doc).CreateOrderRequest!(body)).toBe(valid);
    const sandbox = await createSandbox({ rateLimit: false });
    const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(valid ? 201 : 422);
  });

  it('describes the order body and the created invoice as the document does', () => {
    const schemas = doc.components.schemas as Record<string, any>;
    expect(schemas.CreateOrderRequest.properties.order_type.default).toBe('gamepass');
    expect(schemas.CreatedInvoice.properties.payment_method.description).toMatch(/empty string right after creation/);
    expect(schemas.CreatedInvoice.properties.invoice_url.pattern).toBe('^https?:\\/\\/.+\\/user\\/invoice\\/INV\\d+$');
    expect(schemas.CreatedInvoice.required).toEqual([
      'invoice_code',
      'type',
      'payment_status',
      'amount',
      'formatted_amount',
      'currency',
      'payment_method',
      'payment_url',
      'invoice_url',
    ]);
    // A code of the sandbox's own control API is no code of the interface.
    expect(JSON.stringify(doc)).not.toContain('INVALID_STATE');
  });

  it('has only references that resolve', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const path = ref.slice('"$ref":"#/'.length, -1).split('/');
      const target = path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(doc));
  });

  const committed = new URL('../../openapi.json', import.meta.url);
  it.skipIf(!existsSync(committed))('matches the committed openapi.json', () => {
    const onDisk: unknown = JSON.parse(readFileSync(committed, 'utf8'));
    expect(onDisk, 'openapi.json is stale: run npm run build to regenerate openapi.json').toEqual(JSON.parse(JSON.stringify(doc)));
  });
});

// ---- samples that zod accepts -------------------------------------------------------------------

const at = '2025-03-04 05:06:07';
const rateHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
  'x-ratelimit-reset': '1741064827',
};
const orderSummary = {
  invoice_code: 'INV1001',
  status: 'pending',
  payment_status: 'pending',
  order_type: 'gamepass',
  platform_username: 'player_one',
  credit_amount: 1000,
  total_amount: 114_000,
  formatted_total_amount: 'Rp 114.000',
  currency: 'IDR',
  created_at: at,
};
const creditPackage = {
  code: 'C1000',
  name: '1,000 credits',
  credit_amount: 1000,
  price: 120_000,
  formatted_price: 'Rp 120.000',
  currency: 'IDR',
  description: 'A thousand.',
  sort_order: 1,
};
const createdInvoice = {
  invoice_code: 'INV1001',
  type: 'order',
  payment_status: 'pending',
  amount: 114_000,
  formatted_amount: 'Rp 114.000',
  currency: 'IDR',
  payment_method: '',
  payment_url: '',
  invoice_url: 'http://sandbox.localhost/user/invoice/INV1001',
};
const createdOrder = (idempotent: boolean) => ({
  invoice: {
    invoice_code: 'INV1001',
    type: 'order',
    payment_status: 'pending',
    amount: 114_000,
    formatted_amount: 'Rp 114.000',
    currency: 'IDR',
    payment_method: 'invoice',
    payment_url: '',
    invoice_url: 'http://sandbox.localhost/user/invoice/INV1001',
    expires_at: at,
    order: {
      status: 'pending',
      order_type: 'gamepass',
      platform_username: 'player_one',
      credit_amount: 1000,
      price: 120_000,
      discount: 6000,
      total_amount: 114_000,
    },
  },
  idempotent,
  gateway: null,
  environment: 'sandbox',
});

/** Each sample is first parsed by zod, so a passing check proves zod and the document agree on it. */
const goodAnswers: Array<{
  name: string;
  schema: z.ZodType;
  method: string;
  path: string;
  status: number;
  data: unknown;
  headers?: Record<string, string>;
}> = [
  {
    name: 'health',
    schema: Health,
    method: 'GET',
    path: '/api/v1/health',
    status: 200,
    data: { status: 'ok', version: '1.1.0', api: 'v1', time: at },
  },
  {
    name: 'credit packages',
    schema: CreditPackageList,
    method: 'GET',
    path: '/api/v1/catalog/credit-packages',
    status: 200,
    data: {
      packages: [
        {
          code: 'C1000',
          name: '1,000 credits',
          credit_amount: 1000,
          price: 120_000,
          formatted_price: 'Rp 120.000',
          currency: 'IDR',
          description: 'A thousand.',
          sort_order: 1,
        },
      ],
      limit: 50,
    },
  },
  {
    name: 'token check',
    schema: TokenValidation,
    method: 'POST',
    path: '/api/v1/auth/token/validate',
    status: 200,
    data: { valid: true, mode: 'sandbox', user: { id: 1, username: 'demo' }, token_name: 'bot', last_used_at: null },
  },
  {
    name: 'profile with a null chat id',
    schema: ProfileData,
    method: 'GET',
    path: '/api/v1/me',
    status: 200,
    data: {
      user: {
        id: 1,
        username: 'demo',
        name: 'Demo',
        email: 'demo@example.com',
        chat_linked: false,
        chat_user_id: null,
        token_mode: 'sandbox',
        created_at: at,
      },
    },
  },
  { name: 'new order', schema: CreateOrderResult, method: 'POST', path: '/api/v1/me/orders', status: 201, data: createdOrder(false) },
  { name: 'replayed order', schema: CreateOrderResult, method: 'POST', path: '/api/v1/me/orders', status: 200, data: createdOrder(true) },
  {
    name: 'order list',
    schema: OrderList,
    method: 'GET',
    path: '/api/v1/me/orders?page=2&per_page=1',
    status: 200,
    data: { orders: [orderSummary], pagination: { page: 2, per_page: 1, total: 3, total_pages: 3, has_more: true } },
  },
  {
    name: 'deposit invoice',
    schema: InvoiceData,
    method: 'GET',
    path: '/api/v1/me/invoices/INV2002',
    status: 200,
    data: {
      invoice: {
        invoice_code: 'INV2002',
        type: 'deposit',
        payment_status: 'paid',
        amount: 50_000,
        formatted_amount: 'Rp 50.000',
        currency: 'IDR',
        payment_method: 'invoice',
        payment_url: '',
        invoice_url: 'http://sandbox.localhost/user/invoice/INV2002',
        created_at: at,
        expires_at: at,
        paid_at: at,
        order: null,
      },
    },
  },
  {
    name: 'invoice status',
    schema: InvoiceStatus,
    method: 'GET',
    path: '/api/v1/me/invoices/INV1001/status',
    status: 200,
    data: {
      invoice_code: 'INV1001',
      type: 'order',
      payment_status: 'pending',
      order_status: 'pending',
      is_final: false,
      amount: 114_000,
      formatted_amount: 'Rp 114.000',
      expires_at: at,
      paid_at: null,
      poll_after_seconds: 15,
    },
  },
];

const goodErrors: Array<{ name: string; method: string; path: string; status: number; body: unknown; headers: Record<string, string> }> = [
  {
    name: 'forbidden fields',
    method: 'POST',
    path: '/api/v1/me/orders',
    status: 422,
    body: { success: false, message: 'No.', error: { code: 'FORBIDDEN_FIELDS', fields: ['price'] } },
    headers: rateHeaders,
  },
  {
    name: 'uncoded 401',
    method: 'GET',
    path: '/api/v1/me',
    status: 401,
    body: { success: false, message: 'Unauthorized.' },
    headers: rateHeaders,
  },
  {
    name: '429 with Retry-After',
    method: 'GET',
    path: '/api/v1/me/balance',
    status: 429,
    body: { success: false, message: 'Slow down.' },
    headers: { ...rateHeaders, 'retry-after': '12' },
  },
  {
    name: 'token in URL, refused before counting',
    method: 'GET',
    path: '/api/v1/me?token=x',
    status: 400,
    body: { success: false, message: 'No.', error: { code: 'TOKEN_IN_URL', fields: ['token'] } },
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'unknown path',
    method: 'GET',
    path: '/api/v1/nope',
    status: 404,
    body: { success: false, message: 'No.', error: { code: 'ROUTE_NOT_FOUND' } },
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'wrong method',
    method: 'DELETE',
    path: '/api/v1/me/orders',
    status: 405,
    body: { success: false, message: 'No.', error: { code: 'METHOD_NOT_ALLOWED' } },
    headers: { 'content-type': 'application/json', allow: 'POST, GET' },
  },
  {
    name: 'not an API path',
    method: 'POST',
    path: '/__sandbox/pay/INV1',
    status: 200,
    body: 'ok',
    headers: { 'content-type': 'text/plain' },
  },
];

function exchange(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = rateHeaders,
): HttpExchange {
  return { method, url: `http://sandbox.localhost${path}`, status, headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

function withoutHeader(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(rateHeaders).filter(([key]) => key !== name));
}

describe('the contract validator', () => {
  it.each(goodAnswers)('accepts a zod-valid $name answer', ({ schema, method, path, status, data, headers }) => {
    const body = { success: true, message: 'OK', data };
    expect(() => successEnvelope(schema).parse(body)).not.toThrow();
    expect(validator.check(exchange(method, path, status, body, headers))).toEqual([]);
  });

  it.each(goodErrors)('accepts a $name answer', ({ method, path, status, body, headers }) => {
    if (typeof body !== 'string') expect(() => ErrorEnvelope.parse(body)).not.toThrow();
    expect(validator.check(exchange(method, path, status, body, headers))).toEqual([]);
  });

  it('accepts answers without rate-limit headers when rate limiting is off', () => {
    const health = { success: true, message: 'OK', data: goodAnswers[0]?.data };
    const bare = exchange('GET', '/api/v1/health', 200, health, { 'content-type': 'application/json' });
    expect(validator.check(bare, { requireRateLimitHeaders: false })).toEqual([]);
    expect(createContractValidator(doc, { requireRateLimitHeaders: false }).check(bare)).toEqual([]);
    expect(validator.check(bare)).toEqual([
      'GET /api/v1/health → 200: header X-RateLimit-Limit is missing',
      'GET /api/v1/health → 200: header X-RateLimit-Remaining is missing',
      'GET /api/v1/health → 200: header X-RateLimit-Reset is missing',
    ]);
  });

  const health = { status: 'ok', version: '1.1.0', api: 'v1', time: at };
  const ok = (data: unknown) => ({ success: true, message: 'OK', data });
  it.each([
    {
      name: 'wrong envelope',
      exchange: exchange('GET', '/api/v1/health', 200, { success: false, message: 'OK', data: health }),
      problem: 'body at /success must be equal to constant',
    },
    {
      name: 'envelope without message',
      exchange: exchange('GET', '/api/v1/health', 200, { success: true, data: health }),
      problem: "body must have required property 'message'",
    },
    {
      name: 'missing guaranteed field',
      exchange: exchange(
        'GET',
        '/api/v1/catalog/credit-packages',
        200,
        ok({ packages: [{ ...creditPackage, price: undefined }], limit: 50 }),
      ),
      problem: "body at /data/packages/0 must have required property 'price'",
    },
    {
      name: 'missing guaranteed list',
      exchange: exchange('GET', '/api/v1/articles', 200, ok({ limit: 10 })),
      problem: "body at /data must have required property 'articles'",
    },
    {
      name: 'missing guaranteed field of a created order',
      exchange: exchange(
        'POST',
        '/api/v1/me/orders',
        201,
        ok({ idempotent: false, invoice: { ...createdInvoice, invoice_url: undefined } }),
      ),
      problem: "body at /data/invoice must have required property 'invoice_url'",
    },
    {
      name: 'bad timestamp',
      exchange: exchange('GET', '/api/v1/health', 200, ok({ ...health, time: '2025-03-04T05:06:07Z' })),
      problem: 'body at /data/time must match pattern',
    },
    {
      name: 'unknown error code',
      exchange: exchange('GET', '/api/v1/me', 401, { success: false, message: 'x', error: { code: 'NOPE' } }),
      problem: 'body at /error/code must be equal to one of the allowed values',
    },
    {
      name: 'undocumented status',
      exchange: exchange('GET', '/api/v1/health', 404, { success: false, message: 'x' }),
      problem: 'status 404 is not documented for getHealth',
    },
    { name: 'non-JSON body', exchange: exchange('GET', '/api/v1/health', 200, '<html>'), problem: 'body is not JSON: "<html>"' },
    {
      name: 'wrong content type',
      exchange: exchange('GET', '/api/v1/health', 200, ok(health), { ...rateHeaders, 'content-type': 'text/html' }),
      problem: 'Content-Type is text/html, not application/json',
    },
    {
      name: 'missing rate-limit header',
      exchange: exchange('GET', '/api/v1/health', 200, ok(health), withoutHeader('x-ratelimit-reset')),
      problem: 'header X-RateLimit-Reset is missing',
    },
    {
      name: 'non-integer rate-limit header',
      exchange: exchange('GET', '/api/v1/health', 200, ok(health), { ...rateHeaders, 'x-ratelimit-reset': 'soon' }),
      problem: 'header X-RateLimit-Reset is "soon"',
    },
    {
      name: '429 without Retry-After',
      exchange: exchange('GET', '/api/v1/me', 429, { success: false, message: 'x' }),
      problem: 'header Retry-After is missing',
    },
    {
      name: 'unknown path answered 200',
      exchange: exchange('GET', '/api/v1/nope', 200, ok({})),
      problem: 'expected status 404 for a request that matches no operation',
    },
    {
      name: 'unknown path without an error envelope',
      exchange: exchange('GET', '/api/v1/nope', 404, { error: 'nope' }),
      problem: "body must have required property 'success'",
    },
    {
      name: '405 without Allow',
      exchange: exchange('DELETE', '/api/v1/me/orders', 405, { success: false, message: 'x' }),
      problem: 'Allow header null lacks POST, GET',
    },
  ])('rejects $name', ({ exchange: bad, problem }) => {
    const problems = validator.check(bad);
    expect(
      problems.some((p) => p.includes(problem)),
      problems.join('\n'),
    ).toBe(true);
  });

  it.each([
    {
      name: 'a field the document does not guarantee is missing',
      exchange: exchange('GET', '/api/v1/health', 200, ok({ ...health, time: undefined })),
    },
    { name: 'a record the document does not show is empty', exchange: exchange('GET', '/api/v1/me/balance', 200, ok({})) },
    {
      name: 'a field nobody knows is there',
      exchange: exchange('GET', '/api/v1/me/orders', 200, ok({ orders: [{ ...orderSummary, secret: 1 }] })),
    },
    {
      name: 'a status the contract does not know',
      exchange: exchange('GET', '/api/v1/me/orders', 200, ok({ orders: [{ ...orderSummary, status: 'on_hold' }] })),
    },
    {
      name: 'a created order without the order, gateway and environment of one published shape',
      exchange: exchange(
        'POST',
        '/api/v1/me/orders',
        201,
        ok({ idempotent: false, invoice: { ...createdInvoice, order: undefined, expires_at: undefined } }),
      ),
    },
  ])('tolerates what a reader must: $name', ({ exchange: answer }) => {
    expect(validator.check(answer)).toEqual([]);
  });

  it('names the request and status in every problem', () => {
    expect(validator.check(exchange('GET', '/api/v1/health', 200, '<html>'))).toEqual([
      'GET /api/v1/health → 200: body is not JSON: "<html>"',
    ]);
  });
});

describe('withContractCheck', () => {
  it('collects the problems of every answer and passes answers through untouched', async () => {
    const answers = [
      {
        status: 200,
        headers: rateHeaders,
        body: JSON.stringify({ success: true, message: 'OK', data: { status: 'ok', version: '1.1.0', api: 'v1', time: at } }),
      },
      { status: 200, headers: rateHeaders, body: 'nope' },
      { drop: true as const },
    ];
    let next = 0;
    const fake = async (_request: { method: string; url: string; headers: Record<string, string>; body: string | null }) =>
      answers[next++]!;
    const { handle, problems } = withContractCheck(fake);
    const request = { method: 'GET', url: 'http://sandbox.localhost/api/v1/health', headers: {}, body: null };
    for (const answer of answers) expect(await handle(request)).toBe(answer);
    expect(problems).toEqual(['GET /api/v1/health → 200: body is not JSON: "nope"']);
  });
});
