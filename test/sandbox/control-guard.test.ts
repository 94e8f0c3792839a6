import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { isLoopbackHost } from '../../mocks/rules/control-guard.js';

let served: HttpSandbox | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function serve(allowedHosts: string[] = []) {
  const sandbox = await createSandbox();
  served = await startHttpSandbox(sandbox, { port: 0, allowedHosts });
  return { sandbox, url: new URL(served.url) };
}

/** A raw request, so that Host, Origin and Sec-Fetch-Site are exactly what a browser or an attacker would send. */
function send(url: URL, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a web page cannot drive a served sandbox', () => {
  it('refuses control calls under a Host that is not loopback (DNS rebinding), and changes nothing', async () => {
    const { sandbox, url } = await serve();
    const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    for (const [method, path] of [
      ['POST', '/__sandbox/reset'],
      ['POST', `/__sandbox/invoices/${code}/pay`],
      ['GET', '/__sandbox/fixtures'],
    ] as const) {
      const refused = await send(url, method, path, { host: 'evil.example:4010', 'x-topup-sandbox': '1' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'HOST_NOT_ALLOWED' } });
      expect(refused.body.message).toContain('--allow-host evil.example');
      // Still says it is a sandbox, so `topup mock` shows this sentence rather than "not a sandbox".
      expect(refused.headers['x-topup-sandbox']).toBe('1');
    }
    expect(sandbox.store.db.invoices.get(code)?.payment_status).toBe('pending');
    // The interface itself answers under any name, as a real server behind a proxy would.
    expect((await send(url, 'GET', '/api/v1/health', { host: 'evil.example' })).status).toBe(200);
  });

  it.each(['localhost:4010@evil.example', 'evil.example#.localhost', 'evil.example/.localhost', 'localhost evil.example', '127.0.0.1:1:2'])(
    'refuses a Host header that names no host (%s), however loopback it looks',
    async (host) => {
      const { url } = await serve();
      const refused = await send(url, 'GET', '/__sandbox/fixtures', { host, 'x-topup-sandbox': '1' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'HOST_NOT_ALLOWED' } });
    },
  );

  it.each(['localhost', 'localhost.', 'LOCALHOST:4010', 'app.localhost:1', '127.0.0.1', '[::1]:4010'])(
    'answers under a loopback Host header: %s',
    async (host) => {
      const { url } = await serve();
      expect((await send(url, 'GET', '/__sandbox/fixtures', { host })).status).toBe(200);
    },
  );

  it.each([
    { name: "another site's Origin", headers: { origin: 'http://evil.example', 'content-type': 'application/json' } },
    { name: 'Origin: null (a sandboxed frame or a file)', headers: { origin: 'null', 'content-type': 'application/json' } },
    { name: 'Sec-Fetch-Site: cross-site', headers: { 'sec-fetch-site': 'cross-site', 'x-topup-sandbox': '1' } },
    { name: 'a simple request: no JSON type, no custom header', headers: { 'content-type': 'text/plain' } },
    { name: 'a body-less POST with neither', headers: {} },
  ])('refuses a change with $name (403 CROSS_SITE_REQUEST), and changes nothing', async ({ headers }) => {
    const { sandbox, url } = await serve();
    const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    const refused = await send(url, 'POST', `/__sandbox/invoices/${code}/pay`, { host: url.host, ...headers });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'CROSS_SITE_REQUEST' } });
    expect(sandbox.store.db.invoices.get(code)?.payment_status).toBe('pending');
  });

  it.each([
    { name: 'the X-Topup-Sandbox header (what topup sends)', headers: { 'x-topup-sandbox': '1' } },
    { name: 'Content-Type: application/json', headers: { 'content-type': 'application/json' } },
    {
      name: 'its own Origin and Sec-Fetch-Site: same-origin',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    },
  ])('lets a change through with $name', async ({ headers }) => {
    const { sandbox, url } = await serve();
    const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    const same = 'sec-fetch-site' in headers ? { origin: `http://${url.host}` } : {};
    const paid = await send(url, 'POST', `/__sandbox/invoices/${code}/pay`, { host: url.host, ...same, ...headers });
    expect(paid.status).toBe(200);
    expect(sandbox.store.db.invoices.get(code)?.payment_status).toBe('paid');
  });

  it('answers to a name given with allowedHosts (a container name), and to localhost', async () => {
    const { url } = await serve(['sandbox']);
    expect((await send(url, 'GET', '/__sandbox/fixtures', { host: `sandbox:${url.port}` })).status).toBe(200);
    expect((await send(url, 'GET', '/__sandbox/fixtures', { host: `localhost:${url.port}` })).status).toBe(200);
    expect((await send(url, 'GET', '/__sandbox/fixtures', { host: `sandbox.evil.example:${url.port}` })).status).toBe(403);
  });

  it('knows the loopback names', () => {
    for (const name of ['localhost', 'LOCALHOST', 'sandbox.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      expect(isLoopbackHost(name)).toBe(true);
    for (const name of ['evil.example', 'localhost.evil.example', '128.0.0.1', '0.0.0.0', '127.0.0.1.nip.io', '[::2]'])
      expect(isLoopbackHost(name)).toBe(false);
  });
});
