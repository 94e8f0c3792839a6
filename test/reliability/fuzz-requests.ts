import fc from 'fast-check';
import { endpointById, endpoints, FORBIDDEN_ORDER_FIELDS, ORDER_BODY_FIELDS } from '../../src/contract/index.js';

/** A request as a fuzzer imagines it: anything a confused or hostile client could send. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body: string | null;
}

const TOKENS = [
  'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d',
  'topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc',
  'topup_live_revoked_P0oI9uY8tR7eW6qA5sD4fG3h',
  'topup_live_nope',
];
const KNOWN_PATHS = [
  '/api/v1/health',
  '/api/v1/catalog/credit-packages',
  '/api/v1/catalog/payment-methods',
  '/api/v1/articles',
  '/api/v1/articles/{slug}',
  '/api/v1/auth/token/validate',
  '/api/v1/me',
  '/api/v1/me/dashboard-summary',
  '/api/v1/me/balance',
  '/api/v1/me/balance/transactions',
  '/api/v1/me/deposits',
  '/api/v1/me/deposits/{invoice}',
  '/api/v1/me/orders',
  '/api/v1/me/orders/{invoice}',
  '/api/v1/me/invoices/{invoice}',
  '/api/v1/me/invoices/{invoice}/status',
];

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '..', '%', '%ZZ', '\u0000', 'INV1', 'INV20260101000001', 'a'.repeat(5_000), '😀'.repeat(100), 'ﬀ', '\ud800'),
);

/** encodeURIComponent, but a lone surrogate becomes raw percent bytes instead of an exception. */
const encodeLoose = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

const segment = fc.oneof(oddText.map(encodeLoose), fc.constantFrom('..', '.', '', '%2e%2e', '%2F', 'api', 'v1', 'me'));

const path = fc.oneof(
  fc.tuple(fc.constantFrom(...KNOWN_PATHS), segment).map(([p, s]) => p.replace(/\{\w+\}/, s)),
  fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join('/')}`),
  fc.tuple(fc.constantFrom(...KNOWN_PATHS), fc.constantFrom('/', '//', '/x', '?')).map(([p, tail]) => p.replace(/\{\w+\}/, 'INV1') + tail),
  fc.constant(`/api/v1/${'a/'.repeat(2_000)}`),
);

const queryPairs = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('page', 'per_page', 'status', 'type', 'token', 'api_token', 'access_token', 'category', 'payment_status'),
        fc.string({ maxLength: 10 }),
      ),
      oddText,
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&')}`));

const query = fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryPairs });

/** Orders that pass every check, so that creation, replays and key conflicts are exercised too. */
const validOrder = fc
  .record({
    order: fc.constantFrom(
      { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
      { platform_username: 'builderbob', place_id: 5001, gamepass_id: 9002 },
      { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7001 },
      { order_type: 'gamepass', platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101, payment_method: 'qris' },
    ),
    reference: fc.option(fc.string({ maxLength: 64 }), { nil: undefined }),
  })
  .map(({ order, reference }) => JSON.stringify(reference === undefined ? order : { ...order, client_reference: reference }));

const header = fc.oneof(
  fc.tuple(
    fc.constant('authorization'),
    fc.oneof(
      fc.constantFrom(...TOKENS).map((t) => `Bearer ${t}`),
      oddText,
      fc.constantFrom(...TOKENS).map((t) => `bearer  ${t} `),
      fc.constantFrom(...TOKENS),
    ),
  ),
  fc.tuple(
    fc.constant('content-type'),
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        '',
      ),
      oddText,
    ),
  ),
  fc.tuple(fc.constant('idempotency-key'), oddText),
  fc.tuple(fc.constant('x-chat-user-id'), fc.oneof(fc.constantFrom('700000001', '700000002'), oddText)),
  fc.tuple(fc.constantFrom('accept', 'x-forwarded-for', 'user-agent', 'x-odd'), oddText),
);

const orderish = fc.record(
  // Each field is mostly valid, so that many bodies get as far as platform checks and creation.
  {
    order_type: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('gamepass', 'vip_server') }, { weight: 1, arbitrary: fc.jsonValue() }),
    platform_username: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('BuilderBob', 'builderbob', 'PixelPiper', 'ghost_user') },
      { weight: 1, arbitrary: fc.jsonValue() },
      { weight: 1, arbitrary: oddText },
    ),
    place_id: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(5001, 5002) },
      { weight: 1, arbitrary: fc.jsonValue() },
      { weight: 1, arbitrary: fc.double() },
    ),
    platform_pass_id: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(9001, 9002, 9003, 9101, 7001, 7002) },
      { weight: 1, arbitrary: fc.jsonValue() },
    ),
    gamepass_id: fc.oneof(fc.constantFrom(9001), fc.jsonValue()),
    payment_method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('invoice', 'balance', 'qris', 'card', 'nope') },
      { weight: 1, arbitrary: fc.jsonValue() },
    ),
    client_reference: fc.oneof(fc.string({ maxLength: 80 }), fc.jsonValue()),
  },
  { requiredKeys: ['platform_username', 'place_id'] },
);

const body = fc.oneof(
  { weight: 4, arbitrary: validOrder },
  { weight: 6, arbitrary: orderish.map((o) => JSON.stringify(o)) },
  fc.constant(null),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
  orderish.map((o) => JSON.stringify(o)),
  fc
    .tuple(
      orderish,
      fc.subarray([...FORBIDDEN_ORDER_FIELDS], { minLength: 1 }),
      fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue(), { maxKeys: 3 }),
    )
    .map(([o, forbidden, extra]) => JSON.stringify({ ...o, ...extra, ...Object.fromEntries(forbidden.map((f) => [f, 1])) })),
  // Duplicate keys: JSON.parse keeps the last; the server must not be confused by it.
  fc
    .constantFrom(...ORDER_BODY_FIELDS)
    .map((k) => `{"${k}": 1, "${k}": "BuilderBob", "platform_username": "BuilderBob", "place_id": 5001, "platform_pass_id": 9001}`),
  oddText.map((s) => `{"broken": ${s}`),
  fc.constantFrom(
    '{',
    '}',
    '[]',
    '"x"',
    '1',
    'true',
    'null',
    '{"a":}',
    '\u0000',
    'x'.repeat(70_000),
    `{"platform_username":"${'B'.repeat(70_000)}"}`,
  ),
);

/** Anything at all: odd methods, odd paths, any headers. */
const chaotic: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.oneof(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'),
    fc.stringMatching(/^[A-Z]{1,12}$/),
  ),
  path: fc.tuple(path, query).map(([p, q]) => p + q),
  headers: fc.array(header, { maxLength: 6 }),
  body,
});

/** Almost right: a real endpoint with its own method, mostly a good token and JSON, and a body that is nearly valid. */
const plausible: fc.Arbitrary<FuzzRequest> = fc
  .record({
    // Order creation is where state changes, so it gets the most cases.
    endpoint: fc.oneof(
      { weight: 3, arbitrary: fc.constant(endpointById.createOrder) },
      { weight: 2, arbitrary: fc.constantFrom(...endpoints) },
    ),
    id: fc.oneof(
      fc.constantFrom('INV20260501000001', 'INV20260501000002', 'draft-upcoming-features', 'paying-an-invoice-step-by-step'),
      segment,
    ),
    query,
    auth: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...TOKENS.slice(0, 2)).map((t) => `Bearer ${t}`) },
      { weight: 1, arbitrary: oddText },
    ),
    contentType: fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: oddText }),
    extra: fc.array(header, { maxLength: 2 }),
    body,
  })
  .map(({ endpoint, id, query: q, auth, contentType, extra, body: b }) => ({
    method: endpoint.method,
    path: endpoint.path.replace(/\{\w+\}/, encodeLoose(id)) + q,
    headers: [['authorization', auth], ['content-type', contentType], ...extra] as [string, string][],
    body: endpoint.method === 'POST' ? b : null,
  }));

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 1, arbitrary: chaotic }, { weight: 2, arbitrary: plausible });
