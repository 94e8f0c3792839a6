import { urlOf } from '../support/url-of.js';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/index.js';
import { createClient, NotFoundError, UsageError, ValidationError, type ClientWait, type FetchFunction } from '../../src/index.js';
import { LEAN } from '../support/cli-assertions.js';
import { recordingFetch } from './helpers.js';

const ORDER = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

async function setup(options: { rateLimit?: boolean } = {}) {
  const sandbox = await createSandbox({ rateLimit: options.rateLimit ?? true });
  const { fetch, exchanges } = recordingFetch(sandbox.fetch);
  const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch, clock: { random: () => 0 } });
  return { sandbox, client, exchanges, fetch };
}

describe('client.request: one raw request, sent as the methods send theirs', () => {
  it('answers with status, headers, the text and the parsed body', async () => {
    const { client, exchanges } = await setup();
    const answer = await client.request({ method: 'get', path: '/api/v1/me/balance' });
    expect(answer.status).toBe(200);
    expect(answer.ok).toBe(true);
    expect(answer.body).toMatchObject({ success: true, data: LEAN ? {} : { balance: 10_000_000 } });
    expect(JSON.parse(answer.text)).toEqual(answer.body);
    expect(answer.headers.get('X-RateLimit-Limit')).toBe('60');
    expect(exchanges.map((e) => [e.method, e.url])).toEqual([['GET', 'http://sandbox.localhost/api/v1/me/balance']]);
    expect(exchanges[0]!.headers.authorization).toMatch(/^Bearer topup_live_rich_/);
  });

  it('sends the token to user endpoints and to paths the interface does not list, never to public ones', async () => {
    const { client, exchanges } = await setup();
    await client.request({ method: 'GET', path: '/api/v1/catalog/credit-packages' });
    await client.request({ method: 'GET', path: '/api/v1/me/orders', query: { status: 'pending', per_page: 5, page: undefined } });
    await client.request({ method: 'GET', path: '/api/v1/me/something-new', throwOnError: false });
    expect(exchanges.map((e) => [e.url, e.headers.authorization !== undefined])).toEqual([
      ['http://sandbox.localhost/api/v1/catalog/credit-packages', false],
      ['http://sandbox.localhost/api/v1/me/orders?status=pending&per_page=5', true],
      ['http://sandbox.localhost/api/v1/me/something-new', true],
    ]);
  });

  it('rejects with the error class of the status, or resolves with the answer when throwOnError is false', async () => {
    const { client } = await setup();
    await expect(client.request({ method: 'GET', path: '/api/v1/me/orders/INV20260101999999' })).rejects.toBeInstanceOf(NotFoundError);
    const refused = client.request({ method: 'POST', path: '/api/v1/me/orders', body: { ...ORDER, price: 1 } });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ status: 422, code: 'FORBIDDEN_FIELDS', fields: ['price'] });
    const answer = await client.request({ method: 'GET', path: '/api/v1/me/orders/INV20260101999999', throwOnError: false });
    expect(answer).toMatchObject({ status: 404, ok: false, body: { success: false, error: { code: 'NOT_FOUND' } } });
  });

  it('retries a POST only under an Idempotency-Key, with the same key', async () => {
    const { sandbox } = await setup();
    const { fetch: recording, exchanges } = recordingFetch(sandbox.fetch);
    let drops = 1;
    // The first answer is lost on the way back, after the sandbox made the order.
    const lossy: FetchFunction = async (input, init) => {
      const response = await recording(input, init);
      if (drops-- > 0) throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      return response;
    };
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      fetch: lossy,
      clock: { random: () => 0, sleep: async () => undefined },
    });
    const answer = await client.request({ method: 'POST', path: '/api/v1/me/orders', body: ORDER, idempotencyKey: 'raw-1' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { idempotent: true } });
    expect(exchanges.map((e) => e.headers['idempotency-key'])).toEqual(['raw-1', 'raw-1']);
    expect(sandbox.store.db.orders.all()).toHaveLength(1);

    drops = 1;
    await expect(client.request({ method: 'POST', path: '/api/v1/me/orders', body: ORDER })).rejects.toMatchObject({ kind: 'connection' });
    expect(exchanges).toHaveLength(3);
  });

  /** A client of a sandbox without limits, on a fake clock: only the client's own pacing is seen, as its waits. */
  async function pacedClient() {
    const sandbox = await createSandbox({ rateLimit: false });
    let now = 0;
    const waits: ClientWait[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      fetch: sandbox.fetch,
      clock: { now: () => now, sleep: async (ms: number) => void (now += ms), random: () => 0 },
      onWait: (wait) => waits.push(wait),
      pacing: true,
    });
    return { client, waits };
  }

  it('paces by the route it reaches: the 11th order within a minute waits', async () => {
    const { client, waits } = await pacedClient();
    for (let i = 0; i < 11; i++)
      await client.request({ method: 'POST', path: '/api/v1/me/orders', body: ORDER, idempotencyKey: `pace-${i}` });
    expect(waits.map((w) => [w.reason, w.request])).toEqual([['pacing', 'POST /api/v1/me/orders']]);
    expect(waits[0]!.ms).toBeGreaterThan(50_000);
  });

  it.each([
    ['the path as listed', '/api/v1/me/orders', 'GET /api/v1/me/orders'],
    ['a trailing slash', '/api/v1/me/orders/', 'GET /api/v1/me/orders'],
    ['a doubled slash', '/api/v1//me/orders', 'GET /api/v1/me/orders'],
    ['another case', '/API/v1/Me/Orders', 'GET /api/v1/me/orders'],
    // Outside the interface: a read is still a read, paced under the published limit on them.
    ['a path the document does not list', '/api/v1/me/loyalty-points', 'GET /api/v1/me/loyalty-points'],
  ])('paces a read spelt as %s: the 61st within a minute waits', async (_name, path, label) => {
    const { client, waits } = await pacedClient();
    for (let i = 0; i < 61; i++) await client.request({ method: 'GET', path, throwOnError: false });
    expect(waits.map((w) => [w.reason, w.request])).toEqual([['pacing', label]]);
    expect(waits[0]!.ms).toBeGreaterThan(50_000);
  });

  it("keeps a base URL's own path prefix", async () => {
    const seen: string[] = [];
    const fetch: FetchFunction = async (input) => {
      seen.push(urlOf(input));
      return new Response('{"success":true,"message":"ok","data":{}}', { status: 200 });
    };
    const client = createClient({ baseUrl: 'https://shop.example.com/store/', fetch });
    await client.request({ method: 'GET', path: '/api/v1/health?x=1' });
    expect(seen).toEqual(['https://shop.example.com/store/api/v1/health?x=1']);
  });

  it.each([
    [{ method: 'GET', path: 'api/v1/me' }, /starts with a single \//],
    [{ method: 'GET', path: '//evil.example/api/v1/me' }, /starts with a single \//],
    [{ method: 'GET', path: '/api/v1/../../admin' }, /\. or \.\. segments/],
    [{ method: 'GET', path: '/api/v1/me/%2e%2e/x' }, /\. or \.\. segments/],
    [{ method: 'GET', path: '/api/v1/me#x' }, /#fragment/],
    [{ method: 'GET /x', path: '/api/v1/me' }, /not an HTTP method/],
    [{ method: 'GET', path: '/api/v1/me', headers: { Authorization: 'Bearer other' } }, /Authorization header is the client's own/],
  ])('refuses %j before sending anything', async (request, message) => {
    const { client, exchanges } = await setup();
    const sent = client.request(request);
    await expect(sent).rejects.toBeInstanceOf(UsageError);
    await expect(sent).rejects.toThrow(message);
    expect(exchanges).toEqual([]);
  });

  it('refuses the token in the path however it is percent-encoded, before sending anything', async () => {
    const { client, exchanges, sandbox } = await setup();
    const token = sandbox.account('rich').token;
    const every = [...Buffer.from(token)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    for (const shown of [token, token.replaceAll('_', '%5F'), token.replaceAll('_', '%5f'), every, encodeURIComponent(token)]) {
      const sent = client.request({ method: 'GET', path: `/api/v1/me/${shown}` });
      await expect(sent).rejects.toBeInstanceOf(UsageError);
      await expect(sent).rejects.toThrow('The token must never be put in a URL');
    }
    expect(exchanges).toEqual([]);
  });
});
