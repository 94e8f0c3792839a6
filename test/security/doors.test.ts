import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/cli/http-fetch.js';
import { parseBaseUrl } from '../../src/client/base-url.js';
import { createClient } from '../../src/client/index.js';
import { isTopupError } from '../../src/errors.js';
import { runCli, type RunResult } from '../cli/run-cli.js';
import { expectUsageError } from '../support/cli-assertions.js';
import { tempConfigDir } from '../support/fake-io.js';
import { recordingServer, redirect, type RecordingServer } from '../support/redirect-servers.js';

/**
 * The doors of issue 20 §5–7, tried as an attacker would: field names that walk into Object.prototype, control
 * commands aimed at a server that is no sandbox, completion steered to a typed URL, and redirects that would carry a
 * body (and the token) to another origin. The counterparts are loopback servers we did not write: they record
 * everything they receive, so each test can say exactly what left the client.
 */

/** A loopback server that records every request whole, and answers a real shop's 404 unless `reply` says otherwise. */
async function recorder(reply?: RecordingServer['reply']): Promise<RecordingServer> {
  const server = await recordingServer('127.0.0.1');
  if (reply !== undefined) server.reply = reply;
  return server;
}

/** A 200 with exactly this JSON body. */
const json = (body: unknown) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const TOKEN = 'topup_test_doorsSecretToken0000000000001';
const SECRET_NOTE = 'the note nobody else may read';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const topup = (args: string[], env: Record<string, string> = {}): Promise<RunResult> => runCli(config.dir, args, { env });

/** A profile logged in to `url` with TOKEN, as `auth login` leaves it. */
function loggedInTo(url: string): void {
  writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ current_profile: 'shop', profiles: { shop: { base_url: url } } }));
  writeFileSync(join(config.dir, 'credentials.json'), JSON.stringify({ tokens: { shop: TOKEN } }), { mode: 0o600 });
}

describe('§5 no prototype walks', () => {
  let shop: RecordingServer;
  beforeAll(async () => {
    shop = await recorder();
  });
  afterAll(() => shop.close());

  it.each([
    ['__proto__[allowInsecureHttp]=true'],
    ['__proto__=x'],
    ['constructor[prototype][allowInsecureHttp]=true'],
    ['a[__proto__][b]=1'],
    ['a[constructor]=1'],
    ['a[b][prototype]=1'],
  ])('-F %s is refused with exit 2 naming the field, and nothing is sent', async (field) => {
    for (const flag of ['-F', '-f']) {
      const result = await topup(['api', 'me', flag, field, '--base-url', shop.url], { TOPUP_TOKEN: TOKEN });
      const name = field.slice(0, field.indexOf('='));
      expectUsageError(
        result,
        new RegExp(
          `^Error: The field name '${name.replace(/[[\]]/g, '\\$&')}' is not allowed: __proto__, constructor and prototype cannot be field names\\.\\n$`,
        ),
      );
    }
    expect(shop.received).toEqual([]);
    expect(Object.prototype).not.toHaveProperty('allowInsecureHttp');
  });

  it('names that merely contain those words are fields like any other', async () => {
    const result = await topup(['api', 'me', '-X', 'POST', '-F', 'my__proto__=1', '-F', 'a[constructors]=2', '--base-url', shop.url], {
      TOPUP_TOKEN: TOKEN,
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(shop.received.at(-1)!.body)).toEqual({ my__proto__: 1, a: { constructors: 2 } });
  });

  it('a polluted Object.prototype does not switch off the plain-http guard or change any other option', () => {
    const polluted = Object.prototype as Record<string, unknown>;
    try {
      polluted.allowInsecureHttp = true;
      polluted.insecureAdvice = 'go ahead';
      polluted.token = TOKEN;
      polluted.timeout = -1;
      expect(() => createClient({ baseUrl: 'http://shop.example.test' })).toThrow(
        /plain http:\/\/ to a host that is not loopback, so the token would travel unencrypted; use https:\/\/, or set allowInsecureHttp/,
      );
      expect(() => parseBaseUrl('http://shop.example.test')).toThrow(/unencrypted; use https:\/\/\.$/);
      // The inherited timeout (-1) would be refused if it were read; the inherited token would be sent.
      expect(() => createClient({ baseUrl: 'https://shop.example.test' })).not.toThrow();
    } finally {
      delete polluted.allowInsecureHttp;
      delete polluted.insecureAdvice;
      delete polluted.token;
      delete polluted.timeout;
    }
  });

  it('a polluted Object.prototype sends no inherited token', async () => {
    const polluted = Object.prototype as Record<string, unknown>;
    try {
      polluted.token = TOKEN;
      const client = createClient({ baseUrl: shop.url, fetch: httpFetch, maxRetries: 0 });
      await client.request({ method: 'GET', path: '/api/v1/me', throwOnError: false });
    } finally {
      delete polluted.token;
    }
    expect(shop.received.at(-1)!.url).toBe('/api/v1/me');
    expect(shop.received.at(-1)!.headers.authorization).toBeUndefined();
  });
});

describe('§6 control commands check the target first', () => {
  let shop: RecordingServer;
  beforeEach(async () => {
    shop = await recorder();
  });
  afterEach(() => shop.close());

  it.each([
    ['deposit', ['mock', 'deposit', '50000']],
    ['pay', ['mock', 'pay', 'INV1']],
    ['reset', ['mock', 'reset']],
    ['state load', ['mock', 'state', 'load', '-']],
  ])(
    'a profile logged in to a real server: mock %s sends one token-less GET, no token and no change, and says why',
    async (_name, args) => {
      loggedInTo(shop.url);
      const result = await runCli(config.dir, args, { stdin: '{}' });
      expectUsageError(
        result,
        /^Error: http:\/\/127\.0\.0\.1:\d+ is not a topup sandbox \(no \/__sandbox control API answers there\); `topup mock` commands act only on a sandbox, so no token and no change were sent to it: pass --mock/,
      );
      expect(shop.received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /__sandbox/clock']);
      expect(shop.received[0]!.headers.authorization).toBeUndefined();
      expect(JSON.stringify(shop.received)).not.toContain(TOKEN);
    },
  );

  it.each([
    ['userinfo', (url: string) => url.replace('http://', 'http://u:p@'), /must not contain credentials/],
    ['a query', (url: string) => `${url}/?a=1`, /must not have a query or fragment/],
    ['a fragment', (url: string) => `${url}/#x`, /must not have a query or fragment/],
  ])('a base URL with %s is refused for mock commands as for every other, and nothing is sent', async (_what, shape, message) => {
    for (const args of [['mock', 'pay', 'INV1'], ['mock', 'deposit', '50000'], ['mock', 'fixtures'], ['mock', 'logs'], ['balance']]) {
      const result = await topup([...args, '--base-url', shape(shop.url)], { TOPUP_TOKEN: TOKEN });
      expectUsageError(result, message);
    }
    expect(shop.received).toEqual([]);
  });
});

describe('§6 completion talks only to the configured target', () => {
  let typed: RecordingServer;
  let configured: RecordingServer;
  beforeEach(async () => {
    typed = await recorder();
    configured = await recorder(() => json({ success: true, data: { orders: [], articles: [] } }));
  });
  afterEach(async () => {
    await typed.close();
    await configured.close();
  });

  const complete = async (words: string[], env: Record<string, string> = {}) => {
    const result = await topup(['__complete', ...words], env);
    expect(result).toMatchObject({ code: 0, err: '' });
    return result.out;
  };

  it.each([
    [['orders', 'show', '']],
    [['deposits', 'show', '']],
    [['articles', 'show', '']],
    [['orders', 'create', '--payment-method', '']],
  ])('%j with --base-url typed: no request reaches the typed URL, with TOPUP_TOKEN set or a profile logged in', async (words) => {
    loggedInTo(configured.url);
    expect(await complete(['--base-url', typed.url, ...words], { TOPUP_TOKEN: TOKEN })).toBe(':4\n');
    expect(await complete([`--base-url=${typed.url}`, ...words])).toBe(':4\n');
    expect(typed.received).toEqual([]);
    expect(configured.received).toEqual([]);
  });

  it("the logged-in profile's own server gets its token; TOPUP_BASE_URL of no profile gets no token", async () => {
    loggedInTo(configured.url);
    await complete(['orders', 'show', '']);
    expect(configured.received.map((r) => [r.url.split('?')[0], r.headers.authorization])).toEqual([
      ['/api/v1/me/orders', `Bearer ${TOKEN}`],
    ]);
    await complete(['orders', 'show', ''], { TOPUP_BASE_URL: typed.url, TOPUP_TOKEN: TOKEN });
    await complete(['articles', 'show', ''], { TOPUP_BASE_URL: typed.url, TOPUP_TOKEN: TOKEN });
    expect(typed.received.map((r) => r.url.split('?')[0])).toEqual(['/api/v1/articles']);
    expect(JSON.stringify(typed.received)).not.toContain(TOKEN);
  });
});

describe('§7 redirects carry no body across origins', () => {
  let elsewhere: RecordingServer;
  let shop: RecordingServer;
  beforeAll(async () => {
    elsewhere = await recorder(() => json({ success: true, data: {} }));
    // Sends every /api/v1/me/orders POST on with the status the path's `via` names: to another origin, or to itself.
    shop = await recorder((req) => {
      const via = new URL(req.url, 'http://x').searchParams;
      if (req.url.startsWith('/api/v1/landed')) return json({ success: true, data: { got: req.body } });
      const target = via.get('to') === 'self' ? '/api/v1/landed' : `${elsewhere.url}/api/v1/landed`;
      return redirect(Number(via.get('status') ?? 307), target);
    });
  });
  afterAll(async () => {
    await shop.close();
    await elsewhere.close();
  });
  beforeEach(() => {
    elsewhere.received.length = 0;
    shop.received.length = 0;
  });

  const refusal =
    /answered 30[78] with a redirect to http:\/\/127\.0\.0\.1:\d+, another origin; the request body is never sent to another origin/;

  it.each([
    ['the global fetch', undefined],
    ['the CLI fetch', httpFetch],
  ])('the client (%s): a 307 and a 308 to another origin are refused, and neither body nor token arrives there', async (_name, fetch) => {
    const client = createClient({ baseUrl: shop.url, token: TOKEN, maxRetries: 0, ...(fetch ? { fetch } : {}) });
    for (const status of [307, 308]) {
      const error = await client
        .request({ method: 'POST', path: `/api/v1/me/orders?status=${status}`, body: { note: SECRET_NOTE } })
        .catch((e: unknown) => e);
      expect(isTopupError(error)).toBe(true);
      expect((error as Error).message).toMatch(refusal);
      expect((error as { status?: number }).status).toBe(status);
    }
    expect(shop.received).toHaveLength(2);
    expect(elsewhere.received).toEqual([]);
  });

  it.each([
    ['the global fetch', undefined],
    ['the CLI fetch', httpFetch],
  ])(
    'the client (%s): a same-origin 307 still resends body and token; a 303 elsewhere is refused (it would make the POST a GET)',
    async (_name, fetch) => {
      const client = createClient({ baseUrl: shop.url, token: TOKEN, maxRetries: 0, ...(fetch ? { fetch } : {}) });
      const same = await client.request({ method: 'POST', path: '/api/v1/me/orders?to=self', body: { note: SECRET_NOTE } });
      expect(same.body).toEqual({ success: true, data: { got: JSON.stringify({ note: SECRET_NOTE }) } });
      expect(shop.received.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
      await expect(
        client.request({ method: 'POST', path: '/api/v1/me/orders?status=303', body: { note: SECRET_NOTE } }),
      ).rejects.toMatchObject({ name: 'RedirectRefusedError', status: 303 });
      expect(elsewhere.received).toEqual([]);
    },
  );

  it('httpFetch on its own, following redirects, does not resend a body to another origin', async () => {
    const error = await httpFetch(`${shop.url}/api/v1/me/orders?status=307`, { method: 'POST', body: SECRET_NOTE }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(((error as TypeError).cause as Error).message).toMatch(refusal);
    expect(elsewhere.received).toEqual([]);
  });

  it.each([
    ['--input FILE', (file: string) => ['--input', file]],
    ['-F note=@FILE', (file: string) => ['-F', `note=@${file}`]],
  ])('topup api %s: a 307 to another origin is refused with one sentence (exit 1), and the file stays home', async (_name, flags) => {
    const file = join(config.dir, 'note.json');
    writeFileSync(file, JSON.stringify({ note: SECRET_NOTE }));
    const result = await topup(['api', '-X', 'POST', 'me/orders?status=307', ...flags(file), '--base-url', shop.url], {
      TOPUP_TOKEN: TOKEN,
    });
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toMatch(new RegExp(`^Error: http://127\\.0\\.0\\.1:\\d+ ${refusal.source}[^\\n]*\\n$`));
    expect(shop.received).toHaveLength(1);
    expect(elsewhere.received).toEqual([]);
  });
});
