import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/contract/index.js';
import { accounts, expectError, open, transports, useSandboxes, type Answer } from '../support/sandbox-harness.js';

const { demo } = await accounts();
const NO_SUCH_INVOICE = 'INV20260302999999';

/** One request per endpoint of the contract, with the token where one is needed. */
const everyEndpoint = endpoints.map((e) => ({
  name: `${e.method} ${e.path}`,
  method: e.method,
  path: e.path.replace('{invoice}', NO_SUCH_INVOICE).replace('{slug}', 'paying-an-invoice-step-by-step'),
  token: e.auth ? demo.token : undefined,
  body: e.id === 'createOrder' ? { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 } : undefined,
}));

const unknownPaths = [
  ['GET', '/api/v1/nope'],
  ['GET', '/api/v2/health'],
  ['GET', '/api/v1/health/'],
  ['GET', '/api/v1/me/orders/INV1/extra'],
  ['POST', '/api/v1/me/order'],
  ['GET', '/'],
  ['GET', '/index.html'],
  ['GET', '/__sandbox/nope'],
] as const;

const wrongMethods = [
  { method: 'PUT', path: '/api/v1/health', allow: ['GET'] },
  { method: 'POST', path: '/api/v1/catalog/credit-packages', allow: ['GET'] },
  { method: 'OPTIONS', path: '/api/v1/catalog/payment-methods', allow: ['GET'] },
  { method: 'PATCH', path: '/api/v1/articles/paying-an-invoice-step-by-step', allow: ['GET'] },
  { method: 'GET', path: '/api/v1/auth/token/validate', allow: ['POST'] },
  { method: 'DELETE', path: '/api/v1/me/orders', allow: ['GET', 'POST'] },
  { method: 'POST', path: `/api/v1/me/orders/${NO_SUCH_INVOICE}`, allow: ['GET'] },
  { method: 'DELETE', path: `/api/v1/me/invoices/${NO_SUCH_INVOICE}/status`, allow: ['GET'] },
  { method: 'GET', path: `/__sandbox/invoices/${NO_SUCH_INVOICE}/pay`, allow: ['POST'] },
] as const;

function expectEnvelope(answer: Answer): void {
  expect(answer.headers['content-type']).toMatch(/^application\/json(;|$)/);
  expect(answer.text).not.toBe('');
  expect(answer.text).not.toMatch(/^\s*</);
  expect(answer.json, answer.text).toEqual(expect.objectContaining({ success: expect.any(Boolean), message: expect.any(String) }));
  expect(answer.json.message.length).toBeGreaterThan(0);
  if (answer.json.success) {
    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);
    expect(answer.json.data).toEqual(expect.any(Object));
  } else {
    expect(answer.status).toBeGreaterThanOrEqual(400);
  }
}

describe.each(transports)('envelopes (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each(everyEndpoint)('$name answers with an envelope', async ({ method, path, token, body }) => {
    const t = await sandbox(transport);
    const answer = await t.request(method, path, { token, body });
    expectEnvelope(answer);
    expect(answer.status).toBeLessThan(500);
  });

  it.each(unknownPaths)('%s %s is 404 ROUTE_NOT_FOUND', async (method, path) => {
    const t = await sandbox(transport);
    const answer = await t.request(method, path, { token: demo.token });
    expectEnvelope(answer);
    expectError(answer, 404, 'ROUTE_NOT_FOUND');
  });

  it.each(wrongMethods)('$method $path is 405 METHOD_NOT_ALLOWED with Allow: $allow', async ({ method, path, allow }) => {
    const t = await sandbox(transport);
    const answer = await t.request(method, path, { token: demo.token });
    expectEnvelope(answer);
    expectError(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(
      answer.headers.allow
        ?.split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual([...allow].sort());
  });

  it('serves the OpenAPI document at /openapi.json', async () => {
    const t = await sandbox(transport);
    const answer = await t.request('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json).toMatchObject({ openapi: '3.1.0', info: { version: '1.1.0' } });
    const operations = Object.values(answer.json.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(17);
  });
});

describe('envelopes over HTTP only', () => {
  it('answers a request node:http cannot parse with an error envelope, not an empty body', async () => {
    const t = await open('http');
    try {
      const { port, hostname } = new URL(t.baseUrl);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () =>
          socket.end('GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n'),
        );
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('utf8')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head.toLowerCase()).toMatch(/content-type: application\/json/);
      // The JSON object, whether it is sent with Content-Length or as one chunk.
      const json = body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1);
      expect(json).not.toBe('');
      expect(JSON.parse(json)).toMatchObject({ success: false, message: expect.any(String), error: { code: expect.any(String) } });
    } finally {
      await t.close();
    }
  });
});
