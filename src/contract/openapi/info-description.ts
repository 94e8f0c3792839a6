import { type Endpoint, endpoints } from '../endpoints.js';
import { type ErrorCode, errorCodeCatalog } from '../errors.js';
import { INVOICE_TTL_SECONDS, orderTransitions, paymentTransitions, pollIntervals } from '../lifecycle.js';
import { formatMoney } from '../money.js';
import { MAX_IN_FLIGHT_CLIENT, MAX_IN_FLIGHT_SERVER, RATE_LIMIT_HEADERS, type RateClass, rateClasses } from '../rate-limits.js';
import { rateLimitHeaders } from './responses.js';

/**
 * info.description: the guide at the top of the document (envelopes, authentication, rate limits, idempotency,
 * lifecycles, pagination, pricing, money and time, errors), in Markdown, its tables computed from the contract.
 */

/** The endpoint table widened to its interface, so optional members can be read on every entry. */
const allEndpoints: readonly Endpoint[] = endpoints;

export function infoDescription(): string {
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
    "**Test and live data are apart.** Data belongs to the mode of the token that made it. An account that holds both a sandbox and a production token has two separate sets of orders, invoices, deposits, balance, balance transactions and idempotency keys, as test and live mode are kept apart by payment providers: a sandbox token never reads or changes production data, and a production token never reads or changes sandbox data (another mode's invoice code is 404, as another account's is). The profile (`getProfile`) and the token check (`validateToken`) describe the same account under either token; only `token_mode`/`mode` differ. (The interface document does not show this rule; this description designs it.)",
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
    markdownTable(
      ['Header', 'Meaning'],
      Object.values(rateLimitHeaders).map(({ name, description }) => [name, description]),
    ),
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
    markdownTable(
      ['Status', 'error.code', 'Meaning'],
      [...uncoded, ...coded].sort((a, b) => Number(a[0]) - Number(b[0])),
    ),
  ].join('\n\n');
}
