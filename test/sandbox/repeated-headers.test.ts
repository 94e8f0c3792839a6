import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { accounts, SIMPLE_ORDER } from '../support/sandbox-harness.js';

let sandbox: Sandbox;
let http: HttpSandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ rateLimit: false });
  http = await startHttpSandbox(sandbox, { port: 0 });
});
afterAll(() => http.close());

/** A raw request whose header values may be arrays: node sends one header line per element. */
function send(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string,
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${http.url}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a header the service reads once, sent twice, is 400 INVALID_HEADER, never joined', () => {
  it.each<[string, Record<string, string | string[]>, string, string[]]>([
    [
      'Authorization',
      { authorization: ['Bearer a', 'Bearer b'] },
      'The Authorization header was sent more than once; send it once.',
      ['authorization'],
    ],
    [
      'Idempotency-Key',
      { 'idempotency-key': ['k1', 'k2'] },
      'The Idempotency-Key header was sent more than once; send it once.',
      ['idempotency-key'],
    ],
    [
      'X-Chat-User-ID and Content-Type',
      { 'x-chat-user-id': ['1', '2'], 'content-type': ['application/json', 'application/json'] },
      'The Content-Type and X-Chat-User-Id headers were sent more than once; send each once.',
      ['content-type', 'x-chat-user-id'],
    ],
  ])('%s', async (_name, repeated, message, fields) => {
    const { rich } = await accounts();
    const before = sandbox.snapshot().tables.orders.length;
    const answer = await send(
      'POST',
      '/api/v1/me/orders',
      { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json', ...repeated },
      JSON.stringify(SIMPLE_ORDER),
    );
    expect(answer).toEqual({ status: 400, json: { success: false, message, error: { code: 'INVALID_HEADER', fields } } });
    expect(sandbox.snapshot().tables.orders.length).toBe(before);
  });

  it('headers that may repeat (Accept) are still joined', async () => {
    const answer = await send('GET', '/api/v1/health', { accept: ['application/json', 'text/plain'] });
    expect(answer.status).toBe(200);
  });
});
