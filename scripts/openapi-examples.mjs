// @ts-check
/**
 * The OpenAPI document's examples, taken from the sandbox: its seed, and one scripted session of the `rich` account
 * at a fixed clock (an order, its replay, a paid deposit, every read, and one answer of each error status). Nothing
 * comes from the real clock, so the examples, and openapi.json with them, are the same on every build.
 *
 * `npm run openapi:examples` (scripts/gen-openapi-examples.mjs, on the built sandbox) writes them to src/contract/openapi/example-data.ts (the contract imports nothing of the
 * sandbox, so they are kept there as data); test/contract/openapi-examples.test.ts fails when that file is no longer
 * what the sandbox answers.
 */

/** 2026-03-02 10:00:00 UTC: every time in the examples. */
export const EXAMPLE_CLOCK = Date.UTC(2026, 2, 2, 10, 0, 0);
/** The document's server (`https://{host}` with its default host): the base of every URL in the examples. */
export const EXAMPLE_BASE_URL = 'https://topup.example';
/** The order every example body and answer is about: BuilderBob's 100-credit Speed Coil from the platform seed. */
export const EXAMPLE_ORDER = { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
const IDEMPOTENCY_KEY = 'bot-order-0001';

/**
 * @typedef {import('../src/contract/openapi/examples.js').ExampleData} ExampleData
 * @typedef {(options: { now: () => number, baseUrl: string, rateLimit: boolean, maxInvoices?: number }) => Promise<ExampleSandbox>} CreateSandbox
 * @typedef {{ account(name: 'rich'): { token: string }, fetch: typeof globalThis.fetch,
 *   control: { deposit(request: { account: string, amount: number, paid: boolean }): Promise<{ invoice_code: string }> },
 *   faults: { configure(config: import('../mocks/core/fault-config.js').FaultConfig): void } }} ExampleSandbox
 * @typedef {import('../mocks/core/fault-config.js').FaultRule} FaultRule
 * @typedef {{ token?: string, body?: unknown, rawBody?: string, contentType?: string, headers?: Record<string, string> }} CallOptions
 */

/** A string at this path of an answer, or a clear error when the session went another way. */
function stringAt(/** @type {unknown} */ value, /** @type {(string | number)[]} */ ...path) {
  /** @type {unknown} */
  let at = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? /** @type {Record<string, unknown>} */ (at)[key] : undefined;
  if (typeof at !== 'string') throw new Error(`The example session found no string at ${path.join('.')}.`);
  return at;
}

/**
 * @param {CreateSandbox} createSandbox `createSandbox` of topup/mocks (built or source)
 * @returns {Promise<ExampleData>}
 */
export async function collectExamples(createSandbox) {
  const sandbox = await createSandbox({ now: () => EXAMPLE_CLOCK, baseUrl: EXAMPLE_BASE_URL, rateLimit: false });
  const token = sandbox.account('rich').token;
  /** @param {string} method @param {string} path @param {CallOptions} [options] */
  const call = async (method, path, options = {}) => {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json', ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const answer = await sandbox.fetch(`${EXAMPLE_BASE_URL}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    return { status: answer.status, json: /** @type {unknown} */ (await answer.json()) };
  };
  /** @param {{ status: number, json: unknown }} answer @param {number} status */
  const expectStatus = (answer, status) => {
    if (answer.status !== status)
      throw new Error(`The example session expected ${status}, got ${answer.status}: ${JSON.stringify(answer.json)}`);
    return answer.json;
  };

  const orderHeaders = { 'idempotency-key': IDEMPOTENCY_KEY };
  const created = expectStatus(await call('POST', '/api/v1/me/orders', { token, body: EXAMPLE_ORDER, headers: orderHeaders }), 201);
  const replayed = expectStatus(await call('POST', '/api/v1/me/orders', { token, body: EXAMPLE_ORDER, headers: orderHeaders }), 200);
  const invoice = stringAt(created, 'data', 'invoice', 'invoice_code');
  const deposit = (await sandbox.control.deposit({ account: 'rich', amount: 50_000, paid: true })).invoice_code;
  const slug = stringAt(expectStatus(await call('GET', '/api/v1/articles'), 200), 'data', 'articles', 0, 'slug');

  /** @type {Record<string, Record<string, unknown>>} */
  const responses = { createOrder: { 201: created, 200: replayed } };
  /** @type {[string, string, string, boolean][]} */
  const reads = [
    ['getHealth', 'GET', '/api/v1/health', false],
    ['listCreditPackages', 'GET', '/api/v1/catalog/credit-packages', false],
    ['listPaymentMethods', 'GET', '/api/v1/catalog/payment-methods', false],
    ['listArticles', 'GET', '/api/v1/articles', false],
    ['getArticle', 'GET', `/api/v1/articles/${slug}`, false],
    ['validateToken', 'POST', '/api/v1/auth/token/validate', true],
    ['getProfile', 'GET', '/api/v1/me', true],
    ['getDashboardSummary', 'GET', '/api/v1/me/dashboard-summary', true],
    ['getBalance', 'GET', '/api/v1/me/balance', true],
    ['listBalanceTransactions', 'GET', '/api/v1/me/balance/transactions', true],
    ['listDeposits', 'GET', '/api/v1/me/deposits', true],
    ['getDeposit', 'GET', `/api/v1/me/deposits/${deposit}`, true],
    ['listOrders', 'GET', '/api/v1/me/orders', true],
    ['getOrder', 'GET', `/api/v1/me/orders/${invoice}`, true],
    ['getInvoice', 'GET', `/api/v1/me/invoices/${invoice}`, true],
    ['getInvoiceStatus', 'GET', `/api/v1/me/invoices/${invoice}/status`, true],
  ];
  for (const [id, method, path, needsToken] of reads)
    responses[id] = { 200: expectStatus(await call(method, path, needsToken ? { token } : {}), 200) };

  /** @type {Record<string, unknown>} */
  const errors = {
    400: expectStatus(await call('GET', '/api/v1/health?token=abc'), 400),
    401: expectStatus(await call('GET', '/api/v1/me'), 401),
    404: expectStatus(await call('GET', '/api/v1/me/orders/INV20260302999999', { token }), 404),
    409: expectStatus(
      await call('POST', '/api/v1/me/orders', { token, body: { ...EXAMPLE_ORDER, platform_pass_id: 9002 }, headers: orderHeaders }),
      409,
    ),
    413: expectStatus(await call('POST', '/api/v1/me/orders', { token, rawBody: `{"a":"${'x'.repeat(70_000)}"}` }), 413),
    415: expectStatus(await call('POST', '/api/v1/me/orders', { token, rawBody: 'BuilderBob', contentType: 'text/plain' }), 415),
    422: expectStatus(await call('POST', '/api/v1/me/orders', { token, body: { ...EXAMPLE_ORDER, price: 1 } }), 422),
  };
  // The statuses a server gives when it is overwhelmed or failing: the sandbox's injected faults answer them.
  for (const [status, rule] of /** @type {[number, FaultRule][]} */ ([
    [429, { kind: 'rate_limit', retry_after: 2 }],
    [500, { kind: 'error', status: 500 }],
    [502, { kind: 'error', status: 502 }],
    [503, { kind: 'error', status: 503, retry_after: 2 }],
    [504, { kind: 'error', status: 504 }],
  ])) {
    sandbox.faults.configure({ rules: [{ ...rule, routes: ['getHealth'], times: 1 }] });
    errors[status] = expectStatus(await call('GET', '/api/v1/health'), status);
  }
  sandbox.faults.configure({ rules: [] });
  // The sandbox's own refusal when it keeps no more invoices: one started to keep two, asked for a third.
  const full = await createSandbox({ now: () => EXAMPLE_CLOCK, baseUrl: EXAMPLE_BASE_URL, rateLimit: false, maxInvoices: 2 });
  const orderOfFull = async () => {
    const headers = { authorization: `Bearer ${full.account('rich').token}`, 'content-type': 'application/json' };
    const answer = await full.fetch(`${EXAMPLE_BASE_URL}/api/v1/me/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify(EXAMPLE_ORDER),
    });
    return { status: answer.status, json: /** @type {unknown} */ (await answer.json()) };
  };
  expectStatus(await orderOfFull(), 201);
  expectStatus(await orderOfFull(), 201);
  errors[507] = expectStatus(await orderOfFull(), 507);

  return {
    pathParameters: { invoice, slug },
    requestBodies: { createOrder: EXAMPLE_ORDER },
    responses,
    errors,
  };
}

export const EXAMPLE_DATA_FILE = new URL('../src/contract/openapi/example-data.ts', import.meta.url);

/** The data file's text: a typed constant, formatted as the repository formats its files. */
export async function exampleDataText(/** @type {ExampleData} */ data) {
  const prettier = await import('prettier');
  const text = [
    '// Generated by scripts/openapi-examples.mjs (npm run openapi:examples) from the sandbox at a fixed clock; do not edit.',
    "import type { ExampleData } from './examples.js';",
    '',
    `export const exampleData: ExampleData = ${JSON.stringify(data)};`,
    '',
  ].join('\n');
  const options = (await prettier.resolveConfig(EXAMPLE_DATA_FILE)) ?? {};
  return prettier.format(text, { ...options, filepath: EXAMPLE_DATA_FILE.pathname });
}
