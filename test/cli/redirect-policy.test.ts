import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { globalAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordingServer, redirect, SOMEONE_ELSES_PROFILE, success, type RecordingServer } from '../support/redirect-servers.js';
import { fakeClock } from '../support/fake-clock.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/**
 * The CLI's own fetch (http-fetch.ts) under the client's one redirect rule, as QA met it: `topup me` must not show
 * another server's answer as the user's profile, whether the redirect leaves https:// for plain http:// or goes to
 * another origin, and `topup orders create` must not read a GET's answer as the order. Real servers on loopback
 * (127.0.0.1 and 127.0.0.2 are two origins); the https one has a certificate made for this run and trusted by this
 * worker's https agent only.
 */

const TOKEN = 'topup_test_cliRedirectPolicy0000000001';

let shop: RecordingServer;
let secureShop: RecordingServer;
let elsewhere: RecordingServer;
let config: { dir: string; cleanup: () => void };
const trustedBefore = globalAgent.options.ca;

/** A self-signed certificate for 127.0.0.1, valid for a day. */
function loopbackCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'topup-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ].concat(['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']),
      { stdio: 'ignore', env: { ...process.env, OPENSSL_CONF: '/dev/null' }, input: '' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  const tls = loopbackCertificate();
  globalAgent.options.ca = tls.cert;
  [shop, secureShop, elsewhere] = await Promise.all([
    recordingServer('127.0.0.1'),
    recordingServer('127.0.0.1', tls),
    recordingServer('127.0.0.2'),
  ]);
});
afterAll(async () => {
  globalAgent.options.ca = trustedBefore;
  await Promise.all([shop, secureShop, elsewhere].map((server) => server.close()));
});
beforeEach(() => {
  config = tempConfigDir();
  for (const server of [shop, secureShop, elsewhere]) {
    server.received.length = 0;
    server.reply = () => success(SOMEONE_ELSES_PROFILE);
  }
});
afterEach(() => config.cleanup());

const topup = (args: string[]) => runCli(config.dir, args, { env: { TOPUP_TOKEN: TOKEN } });

describe('topup me, redirected away from its server', () => {
  it('another origin: exit 1 with one sentence naming it and what to do, and nothing is sent there', async () => {
    shop.reply = (r) => redirect(302, `${elsewhere.url}${r.url}`);
    const result = await topup(['me', '--base-url', shop.url]);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: `Error: ${shop.url} answered 302 with a redirect to ${elsewhere.url}, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.\n`,
    });
    expect(shop.received.map((r) => r.url)).toEqual(['/api/v1/me']);
    expect(elsewhere.received).toEqual([]);
  });

  it('from https:// to plain http://: exit 1, and the plain-http server is never asked', async () => {
    secureShop.reply = (r) => redirect(302, `${shop.url}${r.url}`);
    const result = await topup(['me', '--base-url', secureShop.url]);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: `Error: ${secureShop.url} answered 302 with a redirect to ${shop.url}, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.\n`,
    });
    expect(secureShop.received.map((r) => r.url)).toEqual(['/api/v1/me']);
    expect(shop.received).toEqual([]);
  });
});

describe('topup packages, public, redirected from https://', () => {
  it('to plain http:// beyond loopback: exit 1, refused as such a base URL would be, and nothing is sent there', async () => {
    // 0.0.0.0 is no loopback host by the base URL's rule, yet a connection to it stays on this machine (127.0.0.1).
    secureShop.reply = (r) => redirect(301, `http://0.0.0.0:${shop.port}${r.url}`);
    const result = await topup(['packages', '--base-url', secureShop.url]);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: `Error: ${secureShop.url} answered 301 with a redirect to http://0.0.0.0:${shop.port}, plain http:// to a host that is not loopback; like the base URL, a redirect must use https://, so it was not followed.\n`,
    });
    expect(shop.received).toEqual([]);
  });
});

describe('topup orders create, answered with a redirect that would make it a GET', () => {
  it.each([301, 302, 303])('%i: exit 1, no GET is sent, and the --json error keeps the idempotency key', async (status) => {
    // The GET it would become gets an answer that is no order, as QA saw it ("The server's answer has no invoice").
    shop.reply = (r) => (r.method === 'POST' ? redirect(status, '/api/v1/me/orders/INV-1') : success({ order: { status: 'pending' } }));
    const result = await topup([
      '--json',
      'orders',
      'create',
      ...['--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--idempotency-key', `redirect-run-${status}`],
      '--base-url',
      shop.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(JSON.parse(result.err)).toMatchObject({
      success: false,
      message: `${shop.url} answered ${status} with a redirect to ${shop.url}, which would repeat the POST as a GET; it was not followed, and the POST may have taken effect.`,
      idempotency_key: `redirect-run-${status}`,
    });
    expect(shop.received.map((r) => [r.method, r.url, r.headers['idempotency-key']])).toEqual([
      ['POST', '/api/v1/me/orders', `redirect-run-${status}`],
    ]);
  });
});

describe('the failed hop, and --debug', () => {
  it('a POST answered 303: the text error offers the key to retry safely with (the order may exist)', async () => {
    shop.reply = (r) => (r.method === 'POST' ? redirect(303, '/api/v1/me/orders/INV-1') : success({}));
    const result = await topup([
      'orders',
      'create',
      ...['--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--idempotency-key', 'redirect-run-text'],
      '--base-url',
      shop.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('Retry safely with: --idempotency-key redirect-run-text\n');
  });

  it('a public read redirected to a server that is gone names that server; --debug shows each hop', async () => {
    const gone = await recordingServer('127.0.0.2');
    const goneUrl = gone.url;
    await gone.close();
    shop.reply = (r) => redirect(302, `${goneUrl}${r.url}`);
    // The retries' backoff on a clock that does not wait.
    const result = await runCli(config.dir, ['--debug', 'packages', '--base-url', shop.url], {
      env: { TOPUP_TOKEN: TOKEN },
      clock: fakeClock(),
    });
    expect(result.code).toBe(7);
    expect(result.err).toMatch(new RegExp(`^Error: Could not reach ${goneUrl.replace(/\./g, '\\.')}`, 'm'));
    expect(result.err).toContain(`> GET ${shop.url}/api/v1/catalog/credit-packages `);
    expect(result.err).toContain(`> GET ${goneUrl}/api/v1/catalog/credit-packages `);
  });
});
