import { describe, expect, it } from 'vitest';
import { FORBIDDEN_ORDER_FIELDS } from '../../src/contract/index.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type RequestOptions } from '../support/sandbox-harness.js';

const { rich } = await accounts();
const ORDERS = '/api/v1/me/orders';
const JSON_TYPE = { 'content-type': 'application/json' };

/** The document's list, spelled out so that a shortened list in the contract cannot go unnoticed. */
const documentedForbidden = [
  'user_id',
  'email',
  'price',
  'amount',
  'total_amount',
  'status',
  'payment_status',
  'paid_at',
  'role',
  'balance',
  'order_id',
  'invoice_id',
];

const sneakyValues: Record<string, unknown> = {
  user_id: 2,
  email: 'x@example.com',
  price: 1,
  amount: 1,
  total_amount: 1,
  status: 'completed',
  payment_status: 'paid',
  paid_at: '2026-03-02 10:00:00',
  role: 'admin',
  balance: 99_999_999,
  order_id: 1,
  invoice_id: 'INV1',
};

const validationCases: Array<{ name: string; body: Record<string, unknown>; fields: string[] }> = [
  { name: 'missing platform_username', body: { place_id: 5001, platform_pass_id: 9001 }, fields: ['platform_username'] },
  { name: 'missing place_id', body: { platform_username: 'BuilderBob', platform_pass_id: 9001 }, fields: ['place_id'] },
  { name: 'missing platform_pass_id', body: { platform_username: 'BuilderBob', place_id: 5001 }, fields: ['platform_pass_id'] },
  { name: 'an empty object', body: {}, fields: ['platform_username', 'place_id', 'platform_pass_id'] },
  { name: 'place_id as a string', body: { ...SIMPLE_ORDER, place_id: '5001' }, fields: ['place_id'] },
  { name: 'place_id with a fraction', body: { ...SIMPLE_ORDER, place_id: 5001.5 }, fields: ['place_id'] },
  { name: 'place_id of 0', body: { ...SIMPLE_ORDER, place_id: 0 }, fields: ['place_id'] },
  { name: 'negative platform_pass_id', body: { ...SIMPLE_ORDER, platform_pass_id: -9001 }, fields: ['platform_pass_id'] },
  { name: 'platform_pass_id as a string', body: { ...SIMPLE_ORDER, platform_pass_id: '9001' }, fields: ['platform_pass_id'] },
  { name: 'gamepass_id as a string', body: { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 'x' }, fields: ['gamepass_id'] },
  { name: 'platform_username as a number', body: { ...SIMPLE_ORDER, platform_username: 123 }, fields: ['platform_username'] },
  { name: 'platform_username empty', body: { ...SIMPLE_ORDER, platform_username: '' }, fields: ['platform_username'] },
  { name: 'platform_username with a space', body: { ...SIMPLE_ORDER, platform_username: 'Builder Bob' }, fields: ['platform_username'] },
  { name: 'platform_username null', body: { ...SIMPLE_ORDER, platform_username: null }, fields: ['platform_username'] },
  { name: 'unknown order_type', body: { ...SIMPLE_ORDER, order_type: 'robux' }, fields: ['order_type'] },
  { name: 'payment_method as a number', body: { ...SIMPLE_ORDER, payment_method: 1 }, fields: ['payment_method'] },
  { name: 'client_reference of 65 characters', body: { ...SIMPLE_ORDER, client_reference: 'r'.repeat(65) }, fields: ['client_reference'] },
  { name: 'client_reference null', body: { ...SIMPLE_ORDER, client_reference: null }, fields: ['client_reference'] },
  {
    name: 'two mistyped fields',
    body: { ...SIMPLE_ORDER, place_id: 'x', platform_pass_id: 'y' },
    fields: ['place_id', 'platform_pass_id'],
  },
];

/** Requests whose body is not a JSON object, or not JSON, or not sent as JSON. */
const malformedBodies: Array<{ name: string; options: RequestOptions; status: number; code: string }> = [
  ...['{"platform_username":', 'hello', "{'place_id': 5001}", '{"a":1}}', '\u0000'].map((raw) => ({
    name: `not JSON: ${JSON.stringify(raw)}`,
    options: { rawBody: raw, headers: JSON_TYPE },
    status: 400,
    code: 'INVALID_JSON',
  })),
  ...['[]', JSON.stringify([SIMPLE_ORDER]), '"an order"', '42', 'null', 'true'].map((raw) => ({
    name: `JSON that is not an object: ${raw.slice(0, 20)}`,
    options: { rawBody: raw, headers: JSON_TYPE },
    status: 400,
    code: 'INVALID_BODY',
  })),
  { name: 'an empty body', options: { rawBody: '', headers: JSON_TYPE }, status: 400, code: 'INVALID_BODY' },
  {
    name: 'JSON sent as text/plain',
    options: { rawBody: JSON.stringify(SIMPLE_ORDER), headers: { 'content-type': 'text/plain' } },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a form body',
    options: {
      rawBody: 'platform_username=BuilderBob&place_id=5001&platform_pass_id=9001',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'JSON with no Content-Type',
    options: { rawBody: new TextEncoder().encode(JSON.stringify(SIMPLE_ORDER)) },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'JSON as application/jsonp',
    options: { rawBody: JSON.stringify(SIMPLE_ORDER), headers: { 'content-type': 'application/jsonp' } },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a body of 64 KiB + 1 byte',
    options: { rawBody: paddedOrder(64 * 1024 + 1), headers: JSON_TYPE },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  { name: 'a body of 1 MiB', options: { rawBody: paddedOrder(1024 * 1024), headers: JSON_TYPE }, status: 413, code: 'PAYLOAD_TOO_LARGE' },
];

/** A JSON order of exactly `bytes` bytes, padded with spaces (which keep it valid JSON). */
function paddedOrder(bytes: number): string {
  const json = JSON.stringify(SIMPLE_ORDER);
  return `${json.slice(0, -1)}${' '.repeat(bytes - json.length)}}`;
}

describe.each(transports)('order body rules (%s)', (transport) => {
  const sandbox = useSandboxes();

  async function refused(options: RequestOptions) {
    const t = await sandbox(transport);
    const before = t.state();
    const answer = await t.request('POST', ORDERS, { token: rich.token, ...options });
    expect(t.state(), 'a refused order changes no state').toEqual(before);
    return answer;
  }

  it('the contract forbids every field the document lists', () => {
    expect([...FORBIDDEN_ORDER_FIELDS].sort()).toEqual([...documentedForbidden].sort());
  });

  it.each(documentedForbidden)('%s gets 422 FORBIDDEN_FIELDS naming it', async (field) => {
    expectError(await refused({ body: { ...SIMPLE_ORDER, [field]: sneakyValues[field] } }), 422, 'FORBIDDEN_FIELDS', [field]);
  });

  it.each(['foo', 'gateway_payload', 'callback_url', 'Price', 'discount', 'credit_amount'])(
    'the unknown property %s gets 422 FORBIDDEN_FIELDS naming it',
    async (field) => {
      expectError(await refused({ body: { ...SIMPLE_ORDER, [field]: 1 } }), 422, 'FORBIDDEN_FIELDS', [field]);
    },
  );

  it.each([
    [
      { a: 1 },
      'Unknown field: a. An order takes only order_type, platform_username, place_id, platform_pass_id, gamepass_id, payment_method, client_reference.',
    ],
    [{ price: 1 }, 'These fields may not be sent: price. The server sets prices, amounts and statuses itself.'],
    [
      { a: 1, b: 2, status: 'paid' },
      'These fields may not be sent: status. The server sets prices, amounts and statuses itself. Unknown fields: a, b. An order takes only order_type, platform_username, place_id, platform_pass_id, gamepass_id, payment_method, client_reference.',
    ],
  ])('the message says why each field is refused: %j', async (extra, message) => {
    const answer = await refused({ body: { ...SIMPLE_ORDER, ...extra } });
    expect(answer.json.message).toBe(message);
  });

  it('names every offending property at once', async () => {
    const body = { ...SIMPLE_ORDER, ...sneakyValues, foo: 1, provider_payload: { paid: true } };
    const answer = await refused({ body });
    expectError(answer, 422, 'FORBIDDEN_FIELDS');
    expect([...answer.json.error.fields].sort()).toEqual([...documentedForbidden, 'foo', 'provider_payload'].sort());
  });

  it('reports forbidden fields even when the allowed ones are also wrong', async () => {
    expectError(await refused({ body: { place_id: 'x', price: 1 } }), 422, 'FORBIDDEN_FIELDS', ['price']);
  });

  it.each(validationCases)('$name gets 422 VALIDATION_FAILED naming $fields', async ({ body, fields }) => {
    const answer = await refused({ body });
    expectError(answer, 422, 'VALIDATION_FAILED');
    expect([...answer.json.error.fields].sort()).toEqual([...fields].sort());
    for (const field of fields) expect(answer.json.message).toContain(field);
  });

  it.each(malformedBodies)('$name gets $status $code', async ({ options, status, code }) => {
    expectError(await refused(options), status, code);
  });

  it.each([
    { name: 'application/json; charset=utf-8', type: 'application/json; charset=utf-8' },
    { name: 'upper case', type: 'APPLICATION/JSON' },
  ])('accepts the content type $name', async ({ type }) => {
    const t = await sandbox(transport);
    const answer = await t.request('POST', ORDERS, {
      token: rich.token,
      rawBody: JSON.stringify(SIMPLE_ORDER),
      headers: { 'content-type': type },
    });
    expect(dataOf(answer, 201).idempotent).toBe(false);
  });

  it('reads a body of exactly 64 KiB (refusing it for its content, not its size)', async () => {
    const raw = JSON.stringify({ ...SIMPLE_ORDER, client_reference: 'r' });
    const exact = `${raw.slice(0, -1)}${' '.repeat(64 * 1024 - raw.length)}}`;
    expect(Buffer.byteLength(exact)).toBe(64 * 1024);
    const t = await sandbox(transport);
    const answer = await t.request('POST', ORDERS, { token: rich.token, rawBody: exact, headers: JSON_TYPE });
    expect(dataOf(answer, 201).invoice.amount).toBe(12_000);
  });
});
