import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiPath } from '../../src/cli/commands/api/arguments.js';
import { DEFAULT_TIMEOUT_MS } from '../../src/client/options.js';
import { REMOTE_TARGET, useHarness, seedRichHistory, type Harness } from './read-harness.js';
import { LEAN } from '../support/cli-assertions.js';
import { urlOf } from '../support/url-of.js';
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
    {
      args: ['api', 'FETCH', 'me'],
      err: /^Error: 'FETCH' is no METHOD \(GET, POST, PUT, PATCH, DELETE\), so 'me' is one word too many: give one PATH, and a method before it or in -X\.\n$/,
    },
    { args: ['api', 'me/orders', 'extra'], err: /^Error: 'me\/orders' is no METHOD \(.*\), so 'extra' is one word too many/ },
    {
      args: ['api', 'me/orders', '-F', 'client_reference=@'],
      err: /^Error: -F NAME=@ names no file: give @FILE for a file's text, or @- for stdin\.\n$/,
    },
    { args: ['api', 'GET'], err: /^Error: PATH is missing: give it after the method, e\.g\. topup api GET me\/balance\.\n$/ },
    { args: ['api'], err: /missing required argument 'method-or-path'/ },
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

  it('a header given twice is sent with both values, as gh sends both; two different Idempotency-Keys are refused', async () => {
    const { fetch, seen } = recording();
    const result = await h.run(['api', 'GET', 'me', '-H', 'X-Trace: one', '-H', 'x-trace: two', '-H', 'Accept-Language: id'], { fetch });
    expect(result.code).toBe(0);
    expect(seen[0]!.headers['x-trace']).toBe('one, two');
    expect(seen[0]!.headers['accept-language']).toBe('id');
    const body = '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}';
    const twoKeys = await h.run(['api', 'POST', 'me/orders', '--data', body, '-H', 'Idempotency-Key: a', '-H', 'Idempotency-Key: b'], {
      fetch,
    });
    expectUsageError(twoKeys, /two different Idempotency-Key values/);
    expect(seen).toHaveLength(1);
    const sameKey = await h.run(['api', 'POST', 'me/orders', '--data', body, '-H', 'Idempotency-Key: c', '-H', 'Idempotency-Key: c'], {
      fetch,
    });
    expect(sameKey.code).toBe(0);
    expect(seen[1]!.headers['idempotency-key']).toBe('c');
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
    // The server's envelope as it came, with the CLI's kind beside its code.
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: body.message,
      error: { ...body.error, kind: 'validation' },
      target: REMOTE_TARGET,
    });
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
        err: `Error: http://sandbox.localhost began its answer but did not finish it within ${DEFAULT_TIMEOUT_MS / 1000} s (the last of 5 attempts).\n`,
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
    expect(JSON.parse(result.out)).toEqual({ success: true, data: { echo: `Bearer topup_live_…${token.slice(-4)}` } });
  });

  it('--debug logs the request with the Authorization value redacted', async () => {
    const result = await h.run(['--debug', 'api', 'GET', 'me']);
    expect(result.code).toBe(0);
    const tail = h.token('rich').slice(-4);
    expect(result.err).toMatch(
      new RegExp(`^> GET http://sandbox\\.localhost/api/v1/me .*"authorization":"Bearer topup_live_…${tail}"`, 'm'),
    );
    expect(result.err).not.toContain(h.token('rich'));
  });

  it("--debug's stack trace shows a server's escape sequences as escapes, as the error line does", async () => {
    const hostile: typeof fetch = async (input, init) => {
      const answer = await h.sandbox.fetch(input, init);
      const body = (await answer.json()) as { message?: string };
      body.message = 'No such invoice \u001b]0;PWNED\u0007 \u001b[31mred';
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
    // `api` reads answers exactly (no sanitizing fetch): the message reaches the error as the server wrote it.
    const result = await h.run(['--debug', 'api', 'me/orders/INV20991231999999'], { fetch: hostile });
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(/^NotFoundError: No such invoice \\x1b\]0;PWNED\\x07 \\x1b\[31mred/m);
    expect(result.err).not.toContain('\u001b]');
    expect(result.err).not.toContain('\u001b[31m');
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

describe('gh api: method, fields, --input', () => {
  const ORDER = '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}';

  it.each([
    { name: 'no body: GET', args: ['api', 'me/balance'], method: 'GET', url: '/api/v1/me/balance', body: '' },
    {
      name: '-f and -F: POST with a JSON body, -F typed',
      args: ['api', 'me/orders', '-f', 'platform_username=BuilderBob', '-F', 'place_id=5001', '-F', 'platform_pass_id=9001'],
      method: 'POST',
      url: '/api/v1/me/orders',
      body: ORDER,
    },
    {
      name: '-X GET: fields are the query',
      args: ['api', 'me/orders', '-X', 'GET', '-f', 'status=pending', '-F', 'per_page=5'],
      method: 'GET',
      url: '/api/v1/me/orders?status=pending&per_page=5',
      body: '',
    },
    {
      name: 'fields added to a query in the path',
      args: ['api', 'GET', 'me/orders?status=pending', '-F', 'per_page=5'],
      method: 'GET',
      url: '/api/v1/me/orders?status=pending&per_page=5',
      body: '',
    },
    {
      name: '-F types: true, false, null, numbers; 007 and long integers stay strings; -f never types',
      args: [
        'api',
        'PATCH',
        'me/orders',
        '-F',
        'a=true',
        '-F',
        'b=null',
        '-F',
        'c=1.5',
        '-F',
        'd=007',
        '-F',
        'e=-3',
        '-F',
        'f=9007199254740993',
        '-f',
        'g=true',
      ],
      method: 'PATCH',
      url: '/api/v1/me/orders',
      body: '{"g":"true","a":true,"b":null,"c":1.5,"d":"007","e":-3,"f":"9007199254740993"}',
    },
    {
      name: 'nested keys: a[b]=c and a[]=x',
      args: ['api', 'PUT', 'me/orders', '-F', 'meta[source]=bot', '-F', 'meta[tries]=2', '-F', 'tags[]=a', '-F', 'tags[]=1'],
      method: 'PUT',
      url: '/api/v1/me/orders',
      body: '{"meta":{"source":"bot","tries":2},"tags":["a",1]}',
    },
    {
      name: 'nested keys in a GET query',
      args: ['api', 'me/orders', '-X', 'GET', '-F', 'meta[source]=bot', '-F', 'tags[]=a', '-F', 'tags[]=b', '-F', 'none=null'],
      method: 'GET',
      url: '/api/v1/me/orders?meta%5Bsource%5D=bot&tags%5B%5D=a&tags%5B%5D=b&none=',
      body: '',
    },
    {
      name: '--data: POST without -X',
      args: ['api', 'me/orders', '--data', ORDER],
      method: 'POST',
      url: '/api/v1/me/orders',
      body: ORDER,
    },
  ])('$name', async ({ args, method, url, body }) => {
    const { fetch, seen } = recording();
    await h.run(args, { fetch });
    expect(seen).toHaveLength(1);
    const sent = seen[0]!;
    expect(`${method} ${sent.url.replace('http://sandbox.localhost', '')}`).toBe(`${method} ${url}`);
    expect(sent.body).toBe(body);
    expect(sent.headers['content-type']).toBe(body === '' ? undefined : 'application/json');
  });

  it('the method is the one sent', async () => {
    const { fetch } = recording();
    const methods: string[] = [];
    const watching: typeof globalThis.fetch = async (input, init) => {
      methods.push(init?.method ?? 'GET');
      return fetch(input, init);
    };
    await h.run(['api', 'me/balance'], { fetch: watching });
    await h.run(['api', 'me/orders', '-f', 'a=b'], { fetch: watching });
    await h.run(['api', 'me/orders', '-X', 'get', '-f', 'a=b'], { fetch: watching });
    await h.run(['api', 'me/orders', '--paginate', '-f', 'status=pending'], { fetch: watching });
    expect(methods).toEqual(['GET', 'POST', 'GET', 'GET']);
  });

  it('-F key=@file reads the value from the file, @- from stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-api-'));
    try {
      writeFileSync(join(dir, 'name.txt'), 'BuilderBob');
      const { fetch, seen } = recording();
      const result = await h.run(
        [
          'api',
          'me/orders',
          '-F',
          `platform_username=@${join(dir, 'name.txt')}`,
          '-F',
          'client_reference=@-',
          '-F',
          'place_id=5001',
          '-F',
          'platform_pass_id=9001',
        ],
        { fetch, stdin: 'ref-from-stdin' },
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(seen[0]!.body)).toEqual({
        platform_username: 'BuilderBob',
        client_reference: 'ref-from-stdin',
        place_id: 5001,
        platform_pass_id: 9001,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--input FILE is the body exactly as written; fields then go in the query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-api-'));
    try {
      const text = `{ "platform_username": "BuilderBob",\n  "place_id": 5001, "platform_pass_id": 9001 }\n`;
      writeFileSync(join(dir, 'order.json'), text);
      const { fetch, seen } = recording();
      const result = await h.run(
        ['api', 'me/orders', '--input', join(dir, 'order.json'), '-f', 'x=1', '--jq', '.data.invoice.payment_status'],
        {
          fetch,
        },
      );
      expect(result).toEqual({ code: 0, out: 'pending\n', err: '' });
      expect(seen[0]!.url).toBe('http://sandbox.localhost/api/v1/me/orders?x=1');
      expect(seen[0]!.body).toBe(text);
      expect(seen[0]!.headers['content-type']).toBe('application/json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['--input', '/dev/zero'],
    ['-F', 'client_reference=@/dev/zero'],
  ])('%s %s: an endless file stops at 64 MiB with one sentence, and nothing is sent', async (flag, value) => {
    const { fetch, seen } = recording();
    const result = await h.run(['api', 'me/orders', flag, value], { fetch });
    expectUsageError(result, /^Error: \/dev\/zero is more than 64 MiB, the most a request body or field read from a file can be\.\n$/);
    expect(seen).toHaveLength(0);
  });

  it('--input: a larger regular file is refused by its size, before it is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-api-'));
    try {
      const file = join(dir, 'huge.json');
      writeFileSync(file, '');
      truncateSync(file, 64 * 2 ** 20 + 1);
      const { fetch, seen } = recording();
      const result = await h.run(['api', 'me/orders', '--input', file], { fetch });
      expectUsageError(result, /is more than 64 MiB, the most a request body or field read from a file can be\.\n$/);
      expect(seen).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['--input', ''],
    ['-F', 'client_reference='],
  ])('%s of a file that is not UTF-8 text: one sentence, nothing sent (never U+FFFD in its place)', async (flag, prefix) => {
    const dir = mkdtempSync(join(tmpdir(), 'topup-api-'));
    try {
      const file = join(dir, 'bytes.bin');
      writeFileSync(file, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
      const { fetch, seen } = recording();
      const result = await h.run(['api', 'me/orders', flag, `${prefix}${prefix === '' ? '' : '@'}${file}`], { fetch });
      expectUsageError(result, /is not UTF-8 text, as a request body or field read from a file must be\.\n$/);
      expect(seen).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a 429 says the wait the server asked for, as every other command does (retry_after with --json)', async () => {
    h.sandbox.faults.configure({ rules: [{ kind: 'rate_limit', retry_after: 7, rate: 1, routes: ['getProfile'] }] });
    const text = await h.run(['api', 'me']);
    expect(text.code).toBe(6);
    expect(text.err).toMatch(/^Error: .*\nThe server asked to wait 7 seconds before the next request \(Retry-After\)\.\n$/);
    const json = await h.run(['--json', 'api', 'me']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.err).error).toMatchObject({ kind: 'rate_limited', retry_after: 7 });
    expect(await h.run(['me'], {}).then((shown) => shown.err)).toBe(text.err);
  });

  describe('Ctrl-C while the body is being read', () => {
    it('--input - on a pipe whose writer never ends: exit 130 at once, nothing sent', { timeout: 5_000 }, async () => {
      const { fetch, seen } = recording();
      const pipe = new PassThrough();
      pipe.write('{"platform_username": ');
      const controller = new AbortController();
      const running = h.run(['api', '-X', 'POST', 'me/orders', '--input', '-'], { fetch, stdin: pipe, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      expect(await running).toEqual({ code: 130, out: '', err: '' });
      expect(seen).toHaveLength(0);
    });

    it(
      '--input FIFO that no writer opens: exit 130 at once, nothing sent; with a writer, its text is the body',
      { timeout: 10_000 },
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'topup-fifo-'));
        try {
          const fifo = join(dir, 'body');
          execFileSync('mkfifo', [fifo]);
          const { fetch, seen } = recording();
          const controller = new AbortController();
          const running = h.run(['api', '-X', 'POST', 'me/orders', '--input', fifo], { fetch, signal: controller.signal });
          await new Promise((resolve) => setTimeout(resolve, 100));
          controller.abort();
          expect(await running).toEqual({ code: 130, out: '', err: '' });
          expect(seen).toHaveLength(0);
          // A writer that comes: the pipe is read whole (another process, as `<(make-body)` would be).
          const writer = spawn('sh', ['-c', `sleep 0.2; printf '{"platform_username":"BuilderBob"}' > "$0"`, fifo]);
          const written = new Promise((resolve) => writer.on('exit', resolve));
          const sent = await h.run(['api', '-X', 'POST', 'me/orders', '--input', fifo], { fetch });
          await written;
          expect(sent.code).toBe(5);
          expect(seen.map((request) => request.body)).toEqual(['{"platform_username":"BuilderBob"}']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });

  it('--input - reads the body from stdin; -H Content-Type replaces the default', async () => {
    const { fetch, seen } = recording();
    const result = await h.run(['api', 'me/orders', '--input', '-', '-H', 'Content-Type: text/plain'], { fetch, stdin: 'not json' });
    expect(result.code).not.toBe(0);
    expect(seen[0]!.body).toBe('not json');
    expect(seen[0]!.headers['content-type']).toBe('text/plain');
  });

  it.each([
    { args: ['api', 'me', '--slurp'], err: '--slurp needs --paginate.' },
    { args: ['api', 'me/orders', '--paginate', '-X', 'POST'], err: '--paginate follows the pages of a GET; this request is a POST.' },
    { args: ['api', 'me/orders', '--paginate', '--input', 'x.json'], err: '--paginate cannot be combined with --input.' },
    { args: ['api', 'me/orders', '--paginate', '--slurp', '-i'], err: '--slurp cannot be combined with --include.' },
    {
      args: ['api', 'me/orders', '--data', '{}', '-f', 'a=b'],
      err: '--data is the whole body: it cannot be combined with -f, -F or --input.',
    },
    { args: ['api', 'me', '-X', 'GET', '--input', 'x.json'], err: '--input cannot be sent with GET; use -X POST, PUT, PATCH or DELETE.' },
    { args: ['api', 'GET', 'me', '-X', 'POST'], err: 'Two methods given: GET and -X POST; give one.' },
    { args: ['api', 'me/orders', '-f', 'novalue'], err: "A field is key=value; 'novalue' has no = sign." },
    { args: ['api', 'me/orders', '-f', '=value'], err: "A field is key=value; '=value' has no key." },
    { args: ['api', 'me/orders', '-F', 'a[]b=1'], err: "The field name 'a[]b' is not valid: use name, name[key] or name[]." },
    { args: ['api', 'me/orders', '-F', 'a[][b]=1'], err: "The field name 'a[][b]' is not valid: [] can only come last." },
    { args: ['api', 'me/orders', '-F', 'a=1', '-F', 'a[b]=2'], err: "The field 'a[b]' conflicts with another field of the same name." },
    { args: ['api', 'me/orders', '-F', 'x=@/nonexistent/topup-file'], err: 'Cannot read /nonexistent/topup-file: no such file.' },
    { args: ['api', 'me/orders', '--input', '/nonexistent/topup-file'], err: 'Cannot read /nonexistent/topup-file: no such file.' },
  ])('$args → exit 2, nothing sent', async ({ args, err }) => {
    const { fetch, seen } = recording();
    const result = await h.run(args, { fetch });
    expect(result).toEqual({ code: 2, out: '', err: `Error: ${err}\n` });
    expect(seen).toEqual([]);
  });

  it.each([
    { args: ['api', 'me', '--silent', '--jq', '.'], message: '--silent prints no body, so it cannot be combined with --jq.' },
    {
      args: ['api', 'me/orders', '--paginate', '--slurp', '--jq', '.'],
      message: '--slurp cannot be combined with --jq; filter each page with --jq alone.',
    },
    { args: ['api', 'me', '--jq', '.data |'], message: 'Invalid --jq expression: syntax error, unexpected end of file at line 1.' },
  ])('$args → exit 2 as the JSON envelope (--jq asks for JSON), nothing sent', async ({ args, message }) => {
    const { fetch, seen } = recording();
    const result = await h.run(args, { fetch });
    expect(result).toEqual({
      code: 2,
      out: '',
      err: `${JSON.stringify({ success: false, message, error: { code: 'USAGE', kind: 'usage' } })}\n`,
    });
    expect(seen).toEqual([]);
  });
});

describe('gh api: output', () => {
  it('prints the answer as the server wrote it: numbers past 2^53, 1.10 and 1e400, a key sent twice', async () => {
    const sent = '{"success":true,"data":{"n":12345678901234567890,"f":1.10,"d":1e400,"k":1,"k":2,"e":{},"l":[],"s":"a\\u0041\\u202e"}}';
    const result = await h.run(['api', 'me'], { fetch: answering(200, sent) });
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        '{',
        '  "success": true,',
        '  "data": {',
        '    "n": 12345678901234567890,',
        '    "f": 1.10,',
        '    "d": 1e400,',
        '    "k": 1,',
        '    "k": 2,',
        '    "e": {},',
        '    "l": [],',
        '    "s": "a\\u0041\\u202e"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('the layout of an answer without such numbers is JSON.stringify(value, null, 2), a terminal-active character escaped', async () => {
    const value = { success: true, data: { list: [1, { a: [true, null, 'x\u202ey'] }], empty: [], o: {}, t: 'tab\there' } };
    const result = await h.run(['api', 'me'], { fetch: answering(200, JSON.stringify(value, null, 3)) });
    expect(result.out).toBe(`${JSON.stringify(value, null, 2).replace('\u202e', '\\u202e')}\n`);
    expect(JSON.parse(result.out)).toEqual(value);
  });

  it('--paginate --slurp keeps each page as written too', async () => {
    const page = '{"success":true,"data":{"orders":[{"id":12345678901234567890}]}}';
    const result = await h.run(['api', 'me/orders', '--paginate', '--slurp'], { fetch: answering(200, page) });
    expect(result.out).toContain('"id": 12345678901234567890');
  });
  /** The header every answer of the in-process sandbox names it with (X-Topup-Sandbox-Instance), as a line of -i. */
  const instanceLine = async () =>
    `x-topup-sandbox-instance: ${(await h.sandbox.fetch(`${h.sandbox.baseUrl}/api/v1/health`)).headers.get('x-topup-sandbox-instance')}`;

  it.each([true, false])('-i: the status line and the headers, a blank line, then the body (tty: %s)', async (tty) => {
    const result = await h.run(['api', '-i', 'health'], { tty });
    const body = (await direct('/api/v1/health')).body;
    expect(result).toEqual({
      code: 0,
      out: `HTTP/1.1 200 OK\ncache-control: no-store\ncontent-type: application/json; charset=utf-8\n${await instanceLine()}\n\n${JSON.stringify(body, null, 2)}\n`,
      err: '',
    });
  });

  it('--silent prints no body; with -i the headers still, and a 404 still exits 1', async () => {
    expect(await h.run(['api', '--silent', 'me/balance'])).toEqual({ code: 0, out: '', err: '' });
    expect(await h.run(['api', '-i', '--silent', 'me/orders/INV20260302009999'])).toEqual({
      code: 1,
      out: `HTTP/1.1 404 Not Found\ncache-control: no-store\ncontent-type: application/json; charset=utf-8\n${await instanceLine()}\n\n`,
      err: 'Error: Order INV20260302009999 was not found.\n',
    });
  });

  it('--verbose: the request (token redacted) and the response headers on stderr, the body on stdout', async () => {
    const result = await h.run(['api', '--verbose', 'me/orders', '-X', 'GET', '-F', 'per_page=1', '--jq', '.data.orders[0].invoice_code']);
    expect(result).toEqual({
      code: 0,
      out: 'INV20260302000005\n',
      err: [
        '> GET /api/v1/me/orders?per_page=1 HTTP/1.1',
        '> host: sandbox.localhost',
        '> accept: application/json',
        `> authorization: Bearer topup_live_…${h.token('rich').slice(-4)}`,
        '> user-agent: topup-client',
        '>',
        '< HTTP/1.1 200 OK',
        '< cache-control: no-store',
        '< content-type: application/json; charset=utf-8',
        `< ${await instanceLine()}`,
        '<',
        '',
      ].join('\n'),
    });
  });

  it('--verbose shows the body sent', async () => {
    const result = await h.run([
      'api',
      '--verbose',
      '--silent',
      'me/orders',
      '-f',
      'platform_username=ghost_user_404',
      '-F',
      'place_id=5001',
    ]);
    expect(result.code).toBe(5);
    expect(result.err).toContain('> content-type: application/json\n> user-agent: topup-client\n>\n');
    expect(result.err).toContain('>\n{"platform_username":"ghost_user_404","place_id":5001}\n< HTTP/1.1 422 Unprocessable Entity\n');
  });

  it('header values from the server are made safe and never show the token', async () => {
    const token = h.token('rich');
    const echoing: typeof globalThis.fetch = async () =>
      new Response('{"success":true,"data":{}}', {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-echo': `Bearer ${token}`, 'x-evil': 'a\u0007b' },
      });
    const result = await h.run(['api', '-i', 'me'], { fetch: echoing });
    expect(result.out).toContain(`x-echo: Bearer topup_live_…${token.slice(-4)}\nx-evil: a\\x07b\n`);
    expect(result.out).not.toContain(token);
  });

  it('--jq on a body that is not JSON: exit 1 with one sentence', async () => {
    const result = await h.run(['api', 'me', '--jq', '.'], { fetch: answering(200, '<html>hello</html>') });
    expect(result).toEqual({
      code: 1,
      out: '',
      err: `{"success":false,"message":"The answer is not JSON, so --jq has nothing to filter.","error":{"code":"FAILED","kind":"failed"},"target":${JSON.stringify(REMOTE_TARGET)}}\n`,
    });
  });

  it('--jq runs on an error answer too, and the status still decides the exit code', async () => {
    const result = await h.run(['api', 'me/orders/INV20260302009999', '--jq', '.success']);
    expect(result.code).toBe(1);
    expect(result.out).toBe('false\n');
    expect(JSON.parse(result.err)).toMatchObject({ success: false, message: 'Order INV20260302009999 was not found.' });
  });
});

describe('gh api: --paginate', () => {
  const CODES = ['INV20260302000005', 'INV20260302000004', 'INV20260302000003', 'INV20260302000002'];
  const NO_PAGINATION =
    "The server's answer has no pagination, so topup cannot tell whether more pages follow; no further page was fetched.\n";

  /** The sandbox's answers with `change` applied to each JSON body: a server that paginates differently. */
  const changing =
    (change: (body: { data?: Record<string, unknown> }) => void, seen: string[] = []): typeof globalThis.fetch =>
    async (input, init) => {
      seen.push(urlOf(input).replace('http://sandbox.localhost', ''));
      const answer = await h.sandbox.fetch(input, init);
      const body = JSON.parse(await answer.text()) as { data?: Record<string, unknown> };
      change(body);
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };

  it.each([true, false])('follows has_more page by page, in order, one jq run per page (tty: %s)', async (tty) => {
    const seen: string[] = [];
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--jq', '.data.orders[].invoice_code'], {
      tty,
      fetch: changing(() => {}, seen),
    });
    if (LEAN) {
      expect(result).toEqual({ code: 0, out: `${CODES[0]}\n`, err: NO_PAGINATION });
      expect(seen).toEqual(['/api/v1/me/orders?per_page=1']);
      return;
    }
    expect(result).toEqual({ code: 0, out: CODES.map((code) => `${code}\n`).join(''), err: '' });
    expect(seen).toEqual([
      '/api/v1/me/orders?per_page=1',
      '/api/v1/me/orders?per_page=1&page=2',
      '/api/v1/me/orders?per_page=1&page=3',
      '/api/v1/me/orders?per_page=1&page=4',
    ]);
  });

  it('a person watching stderr of a piped run sees which page is being fetched (not with --jq, which asks for JSON)', async () => {
    const watched = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--silent'], { stderrTTY: true });
    expect(watched.code).toBe(0);
    expect(watched.out).toBe('');
    expect(watched.err).toContain(LEAN ? 'Fetching pages: page 1…' : 'Fetching pages: page 4…');
    const filtered = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--jq', '.data.orders[].invoice_code'], {
      stderrTTY: true,
    });
    expect(filtered).toEqual({
      code: 0,
      out: LEAN ? `${CODES[0]}\n` : CODES.map((code) => `${code}\n`).join(''),
      err: LEAN ? NO_PAGINATION : '',
    });
  });

  it('one pretty document per page; --slurp: one array of the pages', async () => {
    const pages = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=3']);
    const slurped = await h.run(['api', 'me/orders', '--paginate', '--slurp', '-F', 'per_page=3']);
    const first = (await direct('/api/v1/me/orders?per_page=3')).body;
    const second = (await direct('/api/v1/me/orders?per_page=3&page=2')).body;
    const documents = LEAN ? [first] : [first, second];
    expect(pages).toEqual({
      code: 0,
      out: documents.map((document) => `${JSON.stringify(document, null, 2)}\n`).join(''),
      err: LEAN ? NO_PAGINATION : '',
    });
    expect(slurped).toEqual({ code: 0, out: `${JSON.stringify(documents, null, 2)}\n`, err: LEAN ? NO_PAGINATION : '' });
  });

  it('starts at the page the path names', async () => {
    const seen: string[] = [];
    const result = await h.run(['api', 'me/orders?page=3&per_page=1', '--paginate', '--jq', '.data.orders[].invoice_code'], {
      fetch: changing(() => {}, seen),
    });
    expect(result.out).toBe(LEAN ? `${CODES[2]}\n` : `${CODES[2]}\n${CODES[3]}\n`);
    expect(seen).toEqual(
      LEAN ? ['/api/v1/me/orders?page=3&per_page=1'] : ['/api/v1/me/orders?page=3&per_page=1', '/api/v1/me/orders?page=4&per_page=1'],
    );
  });

  it('a server that sends no pagination: that one page, and stderr says so; no page is invented', async () => {
    const seen: string[] = [];
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--jq', '.data.orders[].invoice_code'], {
      fetch: changing((body) => delete body.data?.pagination, seen),
    });
    expect(result).toEqual({ code: 0, out: `${CODES[0]}\n`, err: NO_PAGINATION });
    expect(seen).toHaveLength(1);
  });

  it('a server that says has_more forever stops at its first empty page', async () => {
    const seen: string[] = [];
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=2', '--jq', '.data.orders[].invoice_code'], {
      fetch: changing((body) => {
        if (body.data) body.data.pagination = { ...(body.data.pagination as object), has_more: true };
      }, seen),
    });
    expect(result).toEqual({
      code: 0,
      out: CODES.map((code) => `${code}\n`).join(''),
      err: 'The server says more pages follow page 3, but that page is empty; stopped there.\n',
    });
    expect(seen).toHaveLength(3);
  });

  it('a server that answers page 1 with has_more to every request: an error after the first page, not an endless walk', async () => {
    const seen: string[] = [];
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--jq', '.data.orders[].invoice_code'], {
      fetch: changing((body) => {
        if (body.data) body.data.pagination = { ...(body.data.pagination as object), page: 1, has_more: true };
        if (body.data) body.data.orders = (body.data.orders as unknown[]).slice(0, 1);
      }, seen),
    });
    expect(result.code).toBe(1);
    // A page is printed once its number is checked: the second, which names the wrong page, never reaches stdout.
    expect(result.out).toBe(`${CODES[0]}\n`);
    expect(JSON.parse(result.err)).toMatchObject({
      message: 'Asked for page 2, the server answered page 1 and says more follow; stopped rather than read pages again.',
      error: { code: 'PAGE_OUT_OF_ORDER' },
    });
    expect(seen).toHaveLength(2);
  });

  it('a server that ignores ?page and names no page: an error at the first page answered twice, printed once', async () => {
    const seen: string[] = [];
    const pageless = changing((body) => {
      if (body.data) body.data.pagination = { has_more: true };
    }, seen);
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=1', '--jq', '.data.orders[].invoice_code'], {
      // The first page, whatever page was asked for.
      fetch: (input, init) => pageless(urlOf(input).replace(/&page=\d+/, ''), init),
    });
    expect(result.code).toBe(1);
    expect(result.out).toBe(`${CODES[0]}\n`);
    expect(JSON.parse(result.err)).toMatchObject({
      message:
        'The server answered page 2 as it answered the page before, and says more follow; stopped rather than read it again (it may not page with ?page=N).',
    });
    expect(seen).toHaveLength(2);
  });

  it(
    'a server that says more follow on every page, each one new: stopped after 5,000 pages, as --all is',
    { timeout: 120_000 },
    async () => {
      let served = 0;
      const endless: typeof globalThis.fetch = async (input, init) => {
        const answer = await h.sandbox.fetch(input, init);
        const body = JSON.parse(await answer.text()) as { data: Record<string, unknown> };
        served += 1;
        body.data.pagination = { has_more: true };
        body.data.orders = [{ invoice_code: `INV${served}` }];
        return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
      };
      const result = await h.run(['api', 'me/orders', '--paginate', '--silent'], { fetch: endless });
      expect(result.code).toBe(1);
      expect(result.err).toBe(
        'Error: Stopped after 5000 pages: the server says more follow on every one, and --paginate follows at most 5000; ask for a later page with ?page=N.\n',
      );
      expect(served).toBe(5001);
    },
  );

  it('--slurp of a page that is not JSON: an error, never a null passed off as the page', async () => {
    const html: typeof globalThis.fetch = async () =>
      new Response('<html>hi</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const result = await h.run(['api', 'me/orders', '--paginate', '--slurp'], { fetch: html });
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain('Page 1 of the answer is not JSON, so --slurp cannot gather it into one list.');
  });

  it('an error on a later page: the pages before it, its body, and its exit code', async () => {
    const failing: typeof globalThis.fetch = async (input, init) =>
      urlOf(input).includes('&page=2') ? answering(404, { success: false, message: 'Gone.' })(input, init) : h.sandbox.fetch(input, init);
    const result = await h.run(['api', 'me/orders', '--paginate', '-F', 'per_page=2', '--jq', '.data.orders[]?.invoice_code // .message'], {
      fetch: failing,
    });
    if (LEAN) {
      expect(result).toEqual({ code: 0, out: `${CODES[0]}\n${CODES[1]}\n`, err: NO_PAGINATION });
      return;
    }
    expect(result.code).toBe(1);
    expect(result.out).toBe(`${CODES[0]}\n${CODES[1]}\nGone.\n`);
    // The server sent no code: none is invented, the CLI's kind says what it was.
    expect(JSON.parse(result.err)).toEqual({ success: false, message: 'Gone.', error: { kind: 'not_found' }, target: REMOTE_TARGET });
  });
});
