import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/cli/http-fetch.js';
import { nextHop, type Hop } from '../../src/client/redirects.js';
import { createClient, type FetchFunction } from '../../src/index.js';
import { recordingServer, redirect, SOMEONE_ELSES_PROFILE, success, type RecordingServer } from '../support/redirect-servers.js';

/**
 * The one redirect rule (src/client/redirects.ts), as the client applies it with either fetch: no hop gets around
 * the base URL's rule, a request that carries credentials or an Idempotency-Key stays on its origin, and a redirect
 * never turns a POST into a GET. Real servers on loopback: 127.0.0.1 and 127.0.0.2 are two origins.
 */

const TOKEN = 'topup_test_redirectPolicyToken000000001';
const ORDER = { order_type: 'gamepass' as const, platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

let shop: RecordingServer;
let elsewhere: RecordingServer;
/** On 127.0.0.1 too, and reached as http://0.0.0.0: a host the base URL rule does not count as loopback. */
let plain: RecordingServer;

beforeAll(async () => {
  [shop, elsewhere, plain] = await Promise.all([recordingServer('127.0.0.1'), recordingServer('127.0.0.2'), recordingServer('127.0.0.1')]);
});
afterAll(async () => {
  await Promise.all([shop, elsewhere, plain].map((server) => server.close()));
});
beforeEach(() => {
  for (const server of [shop, elsewhere, plain]) {
    server.received.length = 0;
    server.reply = () => success(SOMEONE_ELSES_PROFILE);
  }
});

const fetches: [string, FetchFunction | undefined][] = [
  ['the global fetch', undefined],
  ['the CLI fetch', httpFetch],
];

const clientWith = (fetch: FetchFunction | undefined) =>
  createClient({ baseUrl: shop.url, token: TOKEN, maxRetries: 0, pacing: false, ...(fetch ? { fetch } : {}) });

interface Refusal {
  name: string;
  message: string;
  status?: number;
  idempotencyKey?: string;
}

/** What a refused redirect rejects with, or a sign that it was followed. */
function refusal(call: Promise<unknown>): Promise<Refusal> {
  return call.then(
    () => ({ name: 'followed', message: 'the redirect was followed' }),
    (error: unknown) => error as Refusal,
  );
}

describe.each(fetches)('the client with %s', (_name, fetch) => {
  it("does not take another origin's answer for the profile: the redirect is refused, naming where it pointed; the public catalog still follows it, and a same-origin hop keeps the token", async () => {
    shop.reply = (r) => (r.url === '/api/v1/moved/me' ? success(SOMEONE_ELSES_PROFILE) : redirect(302, `${elsewhere.url}${r.url}`));
    const client = clientWith(fetch);

    const refused = await refusal(client.account.profile());
    expect(refused).toMatchObject({
      name: 'RedirectRefusedError',
      status: 302,
      message: `${shop.url} answered 302 with a redirect to ${elsewhere.url}, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.`,
    });
    expect(elsewhere.received).toEqual([]);

    elsewhere.reply = () => success({ packages: [] });
    const catalog = await client.request({ method: 'GET', path: '/api/v1/catalog/credit-packages' });
    expect(catalog.body).toEqual({ success: true, message: 'ok', data: { packages: [] } });
    expect(elsewhere.received.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['GET', '/api/v1/catalog/credit-packages', undefined],
    ]);

    shop.reply = (r) => (r.url === '/api/v1/moved/me' ? success(SOMEONE_ELSES_PROFILE) : redirect(301, '/api/v1/moved/me'));
    await expect(client.account.profile()).resolves.toEqual(SOMEONE_ELSES_PROFILE);
    expect(shop.received.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it.each([301, 302, 303])(
    'orders.create answered %i is refused, not repeated as a GET, with its Idempotency-Key on the error; a same-origin 307 still resends body and key',
    async (status) => {
      const client = clientWith(fetch);
      for (const [to, location] of [
        ['this origin', '/api/v1/me/orders/INV-1'],
        ['another origin', `${elsewhere.url}/api/v1/me/orders/INV-1`],
      ] as const) {
        shop.received.length = 0;
        shop.reply = (r) => (r.method === 'POST' ? redirect(status, location) : success({ order: { status: 'pending' } }));
        const refused = await refusal(client.orders.create(ORDER, { idempotencyKey: `redirect-${status}` }));
        const target = to === 'this origin' ? shop.url : elsewhere.url;
        expect(refused, to).toMatchObject({
          name: 'RedirectRefusedError',
          status,
          idempotencyKey: `redirect-${status}`,
          message: `${shop.url} answered ${status} with a redirect to ${target}, which would repeat the POST as a GET; it was not followed, and the POST may have taken effect.`,
        });
        expect(shop.received.map((r) => r.method)).toEqual(['POST']);
      }
      expect(elsewhere.received).toEqual([]);

      shop.received.length = 0;
      shop.reply = (r) => (r.url === '/api/v1/moved/orders' ? success({ got: r.body }, 201) : redirect(307, '/api/v1/moved/orders'));
      const moved = await client.request({ method: 'POST', path: '/api/v1/me/orders', body: ORDER, idempotencyKey: 'same-key' });
      expect(moved.status).toBe(201);
      expect(shop.received.map((r) => [r.method, r.url, r.body, r.headers['idempotency-key'], r.headers.authorization])).toEqual([
        ['POST', '/api/v1/me/orders', JSON.stringify(ORDER), 'same-key', `Bearer ${TOKEN}`],
        ['POST', '/api/v1/moved/orders', JSON.stringify(ORDER), 'same-key', `Bearer ${TOKEN}`],
      ]);
    },
  );

  it('refuses a hop to plain http:// beyond loopback, as it would refuse such a base URL, and sends nothing there', async () => {
    shop.reply = (r) => redirect(302, `http://0.0.0.0:${plain.port}${r.url}`);
    const refused = await refusal(clientWith(fetch).request({ method: 'GET', path: '/api/v1/catalog/credit-packages' }));
    expect(refused).toMatchObject({
      name: 'RedirectRefusedError',
      status: 302,
      message: `${shop.url} answered 302 with a redirect to http://0.0.0.0:${plain.port}, plain http:// to a host that is not loopback; like the base URL, a redirect must use https://, so it was not followed.`,
    });
    expect(plain.received).toEqual([]);
  });
});

/** What `decide` throws, or a sign that it returned. */
function thrownBy(decide: () => unknown): { name: string; message: string } {
  try {
    decide();
  } catch (error) {
    return error as Error;
  }
  return { name: 'followed', message: 'the redirect was followed' };
}

describe('nextHop: the redirects it refuses', () => {
  const get = (url: string, headers: Record<string, string> = {}): Hop => ({ url, method: 'GET', headers });
  const post = (url: string, headers: Record<string, string> = {}, body?: string): Hop => ({ url, method: 'POST', headers, body });
  const answer = (status: number, location: string) => ({ status, headers: new Headers({ location }) });
  const SHOP = 'https://shop.example.test';

  it.each<[string, Hop, number, string, string]>([
    [
      'a GET with the token, to another origin',
      get(`${SHOP}/api/v1/me`, { authorization: 'Bearer x' }),
      302,
      'https://mirror.example.test/api/v1/me',
      'https://shop.example.test answered 302 with a redirect to https://mirror.example.test, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
    [
      'a GET with an X-Api-Key, to another origin',
      get(`${SHOP}/api/v1/me`, { 'x-api-key': 'k' }),
      307,
      'https://mirror.example.test/',
      'https://shop.example.test answered 307 with a redirect to https://mirror.example.test, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
    [
      "a control call with the sandbox's control secret, to another origin",
      get('http://127.0.0.1:4010/__sandbox/clock', { 'x-sandbox-control-secret': 's' }),
      302,
      'http://127.0.0.2:4010/__sandbox/clock',
      'http://127.0.0.1:4010 answered 302 with a redirect to http://127.0.0.2:4010, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
    [
      'a POST with an Idempotency-Key and no body, to another origin',
      post(`${SHOP}/api/v1/me/orders`, { 'idempotency-key': 'k' }),
      308,
      'https://mirror.example.test/api/v1/me/orders',
      'https://shop.example.test answered 308 with a redirect to https://mirror.example.test, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
    [
      'a DELETE without body or credentials, to another origin',
      { url: `${SHOP}/api/v1/x`, method: 'DELETE', headers: {} },
      307,
      'https://mirror.example.test/api/v1/x',
      'https://shop.example.test answered 307 with a redirect to https://mirror.example.test, another origin; a DELETE is never repeated at another origin: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
    [
      'a POST answered 302, on its own origin',
      post(`${SHOP}/api/v1/me/orders`, {}, '{}'),
      302,
      '/api/v1/me/orders/INV-1',
      'https://shop.example.test answered 302 with a redirect to https://shop.example.test, which would repeat the POST as a GET; it was not followed, and the POST may have taken effect.',
    ],
    [
      'a DELETE answered 303',
      { url: `${SHOP}/api/v1/x`, method: 'DELETE', headers: {} },
      303,
      '/api/v1/y',
      'https://shop.example.test answered 303 with a redirect to https://shop.example.test, which would repeat the DELETE as a GET; it was not followed, and the DELETE may have taken effect.',
    ],
    [
      'a public GET from https:// to plain http:// beyond loopback',
      get(`${SHOP}/api/v1/catalog/credit-packages`),
      301,
      'http://shop.example.test/api/v1/catalog/credit-packages',
      'https://shop.example.test answered 301 with a redirect to http://shop.example.test, plain http:// to a host that is not loopback; like the base URL, a redirect must use https://, so it was not followed.',
    ],
    [
      'a hop to a URL with credentials in it',
      get(`${SHOP}/api/v1/articles`),
      302,
      'https://user:pass@mirror.example.test/api/v1/articles',
      'https://shop.example.test answered 302 with a redirect to a URL with credentials in it; it was not followed.',
    ],
    [
      'a token echoed into the host: cut from the message',
      get('http://127.0.0.1:4010/api/v1/me', { authorization: 'Bearer x' }),
      302,
      'http://topup_test_echoedSecret0000000000009.localhost:4010/',
      'http://127.0.0.1:4010 answered 302 with a redirect to http://topup_test_…0009.localhost:4010, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.',
    ],
  ])('%s', (_case, previous, status, location, message) => {
    expect(thrownBy(() => nextHop(previous, answer(status, location), 0))).toMatchObject({ name: 'RedirectRefusedError', status, message });
  });

  it('shows at most 100 characters of an origin a stranger chose', () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.example.test`;
    const thrown = thrownBy(() => nextHop(get(`${SHOP}/api/v1/me`, { authorization: 'Bearer x' }), answer(302, `https://${host}/`), 0));
    expect(thrown.message).toBe(
      `https://shop.example.test answered 302 with a redirect to ${`https://${host}`.slice(0, 99)}…, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.`,
    );
  });
});
