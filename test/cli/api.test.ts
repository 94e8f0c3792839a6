import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiPath } from '../../src/cli/commands/api.js';
import { DEFAULT_TIMEOUT_MS } from '../../src/client/options.js';
import { useHarness, seedRichHistory, type Harness } from './read-harness.js';
import { LEAN } from '../support/cli-assertions.js';
import { expectUsageError } from '../support/cli-assertions.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

/** The sandbox's own answer, for comparing the printed envelope. */
async function direct(path: string, init: RequestInit = {}) {
  const response = await h.sandbox.fetch(`${h.sandbox.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${h.token('rich')}`, ...init.headers },
  });
  return { status: response.status, body: await response.json() };
}

interface Seen {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The sandbox's fetch, recording what was sent. */
function recording(): { fetch: typeof globalThis.fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    seen.push({ url: request.url, headers, body: await request.clone().text() });
    return h.sandbox.fetch(request);
  };
  return { fetch, seen };
}

const answering =
  (status: number, body: unknown): typeof globalThis.fetch =>
  async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('apiPath', () => {
  it.each([
    ['me/balance', '/api/v1/me/balance'],
    ['/me/balance', '/api/v1/me/balance'],
    ['/api/v1/me/balance', '/api/v1/me/balance'],
    ['api/v1/me/balance', '/api/v1/me/balance'],
    ['/api/v1/me/orders?status=pending&per_page=5', '/api/v1/me/orders?status=pending&per_page=5'],
    ['/api/v1x', '/api/v1/api/v1x'],
  ])('%s → %s', (path, expected) => {
    expect(apiPath(path)).toBe(expected);
  });

  it.each([
    ['https://evil.example/api/v1/me', /not a URL/],
    ['HTTP://evil.example/api/v1/me', /not a URL/],
    ['//evil.example/api/v1/me', /not a URL/],
    ['javascript:alert(1)', /not a URL/],
    ['../health', /\. and \.\. segments/],
    ['/api/v1/../../admin', /\. and \.\. segments/],
    ['me/%2e%2e/%2E%2E/admin', /\. and \.\. segments/],
    ['me/./balance', /\. and \.\. segments/],
    ['me\\..\\..\\admin', /backslashes/],
    ['me#x', /#fragment/],
    ['me/%zz', /malformed %-escape/],
  ])('refuses %s', (path, message) => {
    expect(() => apiPath(path)).toThrow(message);
  });
});

describe('argument parsing (exit 2, one line, nothing sent)', () => {
  it.each([
    { args: ['api', 'FETCH', 'me'], err: /METHOD must be one of GET, POST, PUT, PATCH, DELETE\./ },
    { args: ['api', 'GET'], err: /missing required argument 'path'/ },
    { args: ['api', 'GET', 'https://evil.example/api/v1/me'], err: /^Error: PATH must be a path under \/api\/v1, not a URL/ },
    { args: ['api', 'GET', '../../etc'], err: /^Error: PATH must stay under \/api\/v1/ },
    { args: ['api', 'POST', 'me/orders', '--data', '{"platform_username": '], err: /^Error: --data is not valid JSON: / },
    { args: ['api', 'GET', 'me', '--data', '{}'], err: /^Error: --data cannot be sent with GET; use POST\./ },
    {
      args: ['api', 'GET', 'me', '-H', 'Authorization: Bearer other'],
      err: /The authorization header is set by topup and cannot be given\./,
    },
    { args: ['api', 'GET', 'me', '-H', 'no colon'], err: /A header is `Name: value` in visible ASCII\./ },
  ])('$args', async ({ args, err }) => {
    const { fetch, seen } = recording();
    const result = await h.run(args, { fetch });
    expectUsageError(result, err);
    expect(seen).toEqual([]);
  });
});

describe('topup api', () => {
  it.each(['me/balance', '/me/balance', '/api/v1/me/balance', 'get'])('GET %s prints the whole envelope, pretty, exit 0', async (path) => {
    const args = path === 'get' ? ['api', 'get', 'me/balance'] : ['api', 'GET', path];
    const result = await h.run(args);
    const expected = await direct('/api/v1/me/balance');
    expect(result.code).toBe(0);
    expect(result.out).toBe(`${JSON.stringify(expected.body, null, 2)}\n`);
    expect(expected.body.success).toBe(true);
    expect(result.err).toBe('');
  });

  it('--json does not change the output: still the whole envelope', async () => {
    const result = await h.run(['--json', 'api', 'GET', 'me']);
    expect(JSON.parse(result.out)).toEqual((await direct('/api/v1/me')).body);
  });

  it('a query string is passed on', async () => {
    const result = await h.run(['api', 'GET', '/api/v1/me/orders?status=pending']);
    expect(JSON.parse(result.out).data.orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual(['INV20260302000002']);
  });

  it('sends the token only in the Authorization header, and --data as a JSON body with extra headers', async () => {
    const { fetch, seen } = recording();
    const body = '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}';
    const first = await h.run(['api', 'POST', 'me/orders', '--data', body, '-H', 'Idempotency-Key: api-test-1'], { fetch });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({
      success: true,
      data: { idempotent: false, invoice: { invoice_code: 'INV20260302000006' } },
    });
    const again = await h.run(['api', 'POST', 'me/orders', '--data', body, '-H', 'Idempotency-Key: api-test-1'], { fetch });
    expect(JSON.parse(again.out)).toMatchObject({
      success: true,
      data: { idempotent: true, invoice: { invoice_code: 'INV20260302000006' } },
    });

    expect(seen).toHaveLength(2);
    const token = h.token('rich');
    for (const request of seen) {
      expect(request.url).toBe('http://sandbox.localhost/api/v1/me/orders');
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(request.headers['idempotency-key']).toBe('api-test-1');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toBe(body);
      for (const [name, value] of Object.entries(request.headers)) if (name !== 'authorization') expect(value).not.toContain(token);
    }
  });

  it.each([
    {
      name: '401',
      run: (hh: Harness) => hh.run(['api', 'GET', 'me'], { env: { TOPUP_TOKEN: hh.sandbox.fixtures().revoked_tokens[0]! } }),
      code: 4,
    },
    {
      name: '422',
      run: (hh: Harness) =>
        hh.run(['api', 'POST', 'me/orders', '--data', '{"platform_username":"ghost_user_404","place_id":5001,"platform_pass_id":9001}']),
      code: 5,
    },
    {
      name: '409',
      run: async (hh: Harness) => {
        await hh.run([
          'api',
          'POST',
          'me/orders',
          '-H',
          'Idempotency-Key: k-409',
          '--data',
          '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}',
        ]);
        return hh.run([
          'api',
          'POST',
          'me/orders',
          '-H',
          'Idempotency-Key: k-409',
          '--data',
          '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9002}',
        ]);
      },
      code: 5,
    },
    { name: '404', run: (hh: Harness) => hh.run(['api', 'GET', 'me/orders/INV20260302009999']), code: 1 },
    { name: '405 (another 4xx)', run: (hh: Harness) => hh.run(['api', 'DELETE', 'me/orders']), code: 1 },
    {
      name: '429',
      run: (hh: Harness) => hh.run(['api', 'GET', 'me'], { fetch: answering(429, { success: false, message: 'Too many requests.' }) }),
      code: 6,
    },
    {
      name: '503',
      run: (hh: Harness) => hh.run(['api', 'GET', 'me'], { fetch: answering(503, { success: false, message: 'Down for maintenance.' }) }),
      code: 7,
    },
    {
      name: '500 without JSON',
      run: (hh: Harness) => hh.run(['api', 'GET', 'me'], { fetch: answering(500, '<html>oops</html>') }),
      code: 7,
    },
  ])('status $name → exit $code, the body on stdout and one sentence on stderr', async ({ run, code }) => {
    const result = await run(h);
    expect(result.code).toBe(code);
    expect(result.out).not.toBe('');
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toMatch(/^Error: \S.*[.!?]\n$/);
  });

  it('retries as the client does: a POST only with an Idempotency-Key, a GET always', async () => {
    const counted = () => {
      let calls = 0;
      const fetch: typeof globalThis.fetch = async (...args) => {
        calls += 1;
        return answering(503, { success: false, message: 'Down for maintenance.' })(...args);
      };
      return { fetch, calls: () => calls };
    };
    const order = '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}';
    const unkeyed = counted();
    expect((await h.run(['api', 'POST', 'me/orders', '--data', order], { fetch: unkeyed.fetch })).code).toBe(7);
    expect(unkeyed.calls()).toBe(1);
    const keyed = counted();
    expect(
      (await h.run(['api', 'POST', 'me/orders', '--data', order, '-H', 'Idempotency-Key: k-retry'], { fetch: keyed.fetch })).code,
    ).toBe(7);
    expect(keyed.calls()).toBe(5);
    const read = counted();
    expect((await h.run(['api', 'GET', 'me'], { fetch: read.fetch })).code).toBe(7);
    expect(read.calls()).toBe(5);
  });

  it('a 422 with --json: the body on stdout, the error envelope on stderr', async () => {
    const result = await h.run([
      '--json',
      'api',
      'POST',
      'me/orders',
      '--data',
      '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001,"price":1}',
    ]);
    expect(result.code).toBe(5);
    const body = JSON.parse(result.out);
    expect(body).toMatchObject({ success: false, error: { code: 'FORBIDDEN_FIELDS' } });
    expect(JSON.parse(result.err)).toEqual({ success: false, message: body.message, error: body.error });
  });

  it('no answer → exit 7, naming only the origin and the cause', async () => {
    const refused: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    };
    const result = await h.run(['api', 'GET', 'me?x=1'], { fetch: refused });
    expect(result).toEqual({
      code: 7,
      out: '',
      err: 'Error: Could not reach http://sandbox.localhost: connection refused: nothing is listening there (ECONNREFUSED).\n',
    });
  });

  describe('an answer that never finishes', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Headers, then half a body and nothing more; it ignores its signal, so only the CLI's own race ends the wait. */
    function stalling(): { fetch: typeof globalThis.fetch; answered: Promise<void> } {
      let answered!: () => void;
      const fetch: typeof globalThis.fetch = async () => {
        answered();
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new TextEncoder().encode('{"success":true,')),
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
      };
      return { fetch, answered: new Promise((resolve) => (answered = resolve)) };
    }

    it("a GET that times out is retried like the client's own, then exit 7 with one sentence", { timeout: 5_000 }, async () => {
      let calls = 0;
      const stalled: typeof globalThis.fetch = async (...args) => {
        calls += 1;
        return stalling().fetch(...args);
      };
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let done = false;
      const running = h.run(['api', 'GET', 'me'], { fetch: stalled }).finally(() => (done = true));
      const settle = async () => {
        for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      // The client's default: the first attempt and 4 retries, each ended by the per-attempt timeout.
      for (let attempt = 1; attempt <= 5; attempt++) {
        await settle();
        expect(calls).toBe(attempt);
        vi.advanceTimersByTime(DEFAULT_TIMEOUT_MS - 1);
        await settle();
        expect(done).toBe(false);
        vi.advanceTimersByTime(1);
      }
      expect(await running).toEqual({
        code: 7,
        out: '',
        err: `Error: http://sandbox.localhost did not answer within ${DEFAULT_TIMEOUT_MS / 1000} s.\n`,
      });
      expect(calls).toBe(5);
    });

    it('Ctrl-C ends the wait at once → exit 130', { timeout: 5_000 }, async () => {
      const { fetch, answered } = stalling();
      const controller = new AbortController();
      const running = h.run(['api', 'GET', 'me'], { fetch, signal: controller.signal });
      await answered;
      controller.abort();
      expect(await running).toEqual({ code: 130, out: '', err: '' });
    });
  });

  it('a body that echoes the token is printed with the token redacted', async () => {
    const token = h.token('rich');
    const result = await h.run(['api', 'GET', 'me'], { fetch: answering(200, { success: true, data: { echo: `Bearer ${token}` } }) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ success: true, data: { echo: 'Bearer [REDACTED]' } });
  });

  it('--debug logs the request with the Authorization value redacted', async () => {
    const result = await h.run(['--debug', 'api', 'GET', 'me']);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/^> GET http:\/\/sandbox\.localhost\/api\/v1\/me .*"authorization":"Bearer \[REDACTED\]"/m);
  });

  it('embedded sandbox: the demo account, with the notice on stderr', async () => {
    const result = await h.runEmbedded(['api', 'GET', 'me']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).data.user.username).toBe(LEAN ? undefined : 'demo');
    expect(result.err).toMatch(/embedded offline sandbox/);
  });

  it('refuses plain http to a host that is not loopback before sending the token', async () => {
    const { fetch, seen } = recording();
    const result = await h.run(['api', 'GET', 'me'], { fetch, baseUrl: 'http://shop.example.com' });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/plain http:\/\//);
    expect(seen).toEqual([]);
  });
});
