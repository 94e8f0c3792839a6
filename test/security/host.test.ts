import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { main } from '../../src/cli/main.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { runCli } from '../cli/run-cli.js';

/*
 * Host is data, not a URL: a request's Host header never becomes part of the URL the sandbox routes on nor of a link
 * it writes, and the Host/Origin guard (which stops browsers) is backed by a control secret (which stops the rest).
 * Every request here is raw bytes over a real socket, so that nothing in between fixes the Host up.
 */

interface RawAnswer {
  status: number;
  body: string;
}

/** One request as raw bytes, Host and all as given; the answer's status and body. */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const head = [
    `${method} ${path} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(body === '' ? [] : [`content-length: ${Buffer.byteLength(body)}`]),
    'connection: close',
  ];
  return new Promise((resolve, reject) => {
    // Written, not ended: the server closes the connection after its answer (connection: close).
    const socket = connect(Number(port), hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n${body}`));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

const T0 = Date.UTC(2026, 10, 25, 12);
let sandbox: Sandbox;
let served: HttpSandbox;

async function serve(options: Parameters<typeof startHttpSandbox>[1] = {}): Promise<void> {
  sandbox = await createSandbox({ rateLimit: false, now: () => T0 });
  served = await startHttpSandbox(sandbox, { port: 0, ...options });
}

afterEach(async () => {
  await served?.close();
});

function orderBody(): string {
  return JSON.stringify(sandbox.fixtures().platform.valid_orders[0]);
}

function placeOrder(host: string): Promise<RawAnswer> {
  return raw(
    served.url,
    'POST',
    '/api/v1/me/orders',
    { host, authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
    orderBody(),
  );
}

const invoiceUrlOf = (answer: RawAnswer) =>
  (JSON.parse(answer.body) as { data: { invoice: { invoice_url: string } } }).data.invoice.invoice_url;

describe('Host is data, not a URL', () => {
  it("an order under Host: evil.example links to the server's own origin", async () => {
    await serve();
    const answer = await placeOrder('evil.example');
    expect(answer.status).toBe(201);
    expect(invoiceUrlOf(answer)).toMatch(new RegExp(`^${served.url.replace(/\./g, '\\.')}/user/invoice/INV\\d+$`));
  });

  it('Host: localhost:1/__sandbox/clock? on POST /api/v1/me/orders does not reach the clock', async () => {
    await serve();
    const answer = await raw(
      served.url,
      'POST',
      '/api/v1/me/orders',
      { host: 'localhost:1/__sandbox/clock?', 'content-type': 'application/json', [`x-topup-sandbox`]: '1' },
      JSON.stringify({ advance_seconds: 86_400 }),
    );
    // The order route answered (no token), not the clock.
    expect(answer.status).toBe(401);
    expect(sandbox.now()).toBe(T0);
  });

  it('an absolute-form request target names no host either', async () => {
    await serve();
    const answer = await raw(
      served.url,
      'POST',
      'http://evil.example/api/v1/me/orders',
      { host: 'evil.example', authorization: `Bearer ${sandbox.account('rich').token}`, 'content-type': 'application/json' },
      orderBody(),
    );
    expect(answer.status).toBe(201);
    expect(invoiceUrlOf(answer).startsWith(`${served.url}/user/invoice/`)).toBe(true);
  });

  it('publicUrl is the origin of every link, whatever the Host', async () => {
    await serve({ publicUrl: 'http://sandbox.test:8080/' });
    const answer = await placeOrder('evil.example');
    expect(invoiceUrlOf(answer)).toMatch(/^http:\/\/sandbox\.test:8080\/user\/invoice\/INV\d+$/);
    // Its host name may open the pages.
    const code = invoiceUrlOf(answer).split('/').pop()!;
    expect((await raw(served.url, 'GET', `/user/invoice/${code}`, { host: 'sandbox.test:8080' })).status).toBe(200);
  });

  it("in process, links use createSandbox's publicUrl, else the fetch adapter's own base URL", async () => {
    for (const [options, origin] of [
      [{ publicUrl: 'https://sandbox.test' }, 'https://sandbox.test'],
      [{ baseUrl: 'http://shop.localhost:9' }, 'http://shop.localhost:9'],
    ] as const) {
      const inProcess = await createSandbox({ rateLimit: false, ...options });
      const answer = await inProcess.fetch(`${inProcess.baseUrl}/api/v1/me/orders`, {
        method: 'POST',
        headers: { host: 'evil.example', authorization: `Bearer ${inProcess.account('rich').token}`, 'content-type': 'application/json' },
        body: JSON.stringify(inProcess.fixtures().platform.valid_orders[0]),
      });
      const url = ((await answer.json()) as { data: { invoice: { invoice_url: string } } }).data.invoice.invoice_url;
      expect(url.startsWith(`${origin}/user/invoice/`), url).toBe(true);
    }
  });

  it('a publicUrl with a path, credentials or another scheme is refused', async () => {
    const base = await createSandbox();
    for (const publicUrl of ['http://sandbox.test/app', 'http://u:p@sandbox.test', 'ftp://sandbox.test', 'not a url']) {
      expect(() => startHttpSandbox(base, { port: 0, publicUrl }), publicUrl).toThrow(/public URL/);
    }
  });

  it.each([
    { page: 'the invoice page', path: (code: string) => `/user/invoice/${code}` },
    { page: 'the dashboard', path: () => '/__sandbox/' },
  ])('$page refuses a foreign Host (DNS rebinding) and answers on loopback', async ({ path }) => {
    await serve();
    const code = invoiceUrlOf(await placeOrder('127.0.0.1'))
      .split('/')
      .pop()!;
    const port = new URL(served.url).port;
    const refused = await raw(served.url, 'GET', path(code), { host: `evil.example:${port}` });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: { code: 'HOST_NOT_ALLOWED' } });
    expect(refused.body).not.toContain(code);
    const shown = await raw(served.url, 'GET', path(code), { host: `localhost:${port}` });
    expect(shown.status).toBe(200);
  });
});

describe('the control secret', () => {
  const SECRET = 'a-control-secret-of-some-length';

  it.each([
    { name: 'missing', headers: {}, status: 401, code: 'CONTROL_SECRET_REQUIRED' },
    { name: 'empty', headers: { 'x-sandbox-control-secret': '' }, status: 401, code: 'CONTROL_SECRET_REQUIRED' },
    { name: 'wrong', headers: { 'x-sandbox-control-secret': `${SECRET}x` }, status: 403, code: 'CONTROL_SECRET_WRONG' },
    { name: 'a prefix', headers: { 'x-sandbox-control-secret': SECRET.slice(0, 8) }, status: 403, code: 'CONTROL_SECRET_WRONG' },
  ])('$name: a client sending Host: localhost is refused with the envelope, and nothing changes', async ({ headers, status, code }) => {
    await serve({ controlSecret: SECRET });
    const answer = await raw(
      served.url,
      'POST',
      '/__sandbox/clock',
      { host: 'localhost', 'content-type': 'application/json', ...headers },
      JSON.stringify({ advance_seconds: 3600 }),
    );
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: { code } });
    expect(sandbox.now()).toBe(T0);
    for (const path of ['/__sandbox/requests', '/__sandbox/state', '/__sandbox/requests/stream'])
      expect((await raw(served.url, 'GET', path, { host: 'localhost', ...headers })).status, path).toBe(status);
  });

  it('the right secret works, and the journal never holds it', async () => {
    await serve({ controlSecret: SECRET });
    const headers = { host: 'localhost', 'content-type': 'application/json', 'x-sandbox-control-secret': SECRET };
    const moved = await raw(served.url, 'POST', '/__sandbox/clock', headers, JSON.stringify({ advance_seconds: 3600 }));
    expect(moved.status).toBe(200);
    expect(sandbox.now()).toBe(T0 + 3_600_000);
    const journal = await raw(served.url, 'GET', '/__sandbox/requests', headers);
    expect(journal.status).toBe(200);
    expect(journal.body).toContain('/__sandbox/clock');
    expect(journal.body).not.toContain(SECRET);
    expect(JSON.stringify(sandbox.requests.list())).not.toContain(SECRET);
  });

  it("the dashboard's page holds no data and is served without it; the API calls it makes are not", async () => {
    await serve({ controlSecret: SECRET });
    const page = await raw(served.url, 'GET', '/__sandbox/', { host: 'localhost' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>topup sandbox</title>');
    expect((await raw(served.url, 'GET', '/__sandbox/accounts', { host: 'localhost' })).status).toBe(401);
  });

  it('an empty secret is refused when the server starts', async () => {
    const base = await createSandbox();
    expect(() => startHttpSandbox(base, { port: 0, controlSecret: '' })).toThrow(/must not be empty/);
  });
});

describe('topup mock serve and the control secret', () => {
  let config: { dir: string; cleanup: () => void };
  let files: string;
  beforeAll(() => {
    files = mkdtempSync(join(tmpdir(), 'topup-secret-'));
  });
  afterAll(() => rmSync(files, { recursive: true, force: true }));
  beforeEach(() => {
    config = tempConfigDir();
  });
  afterEach(() => config.cleanup());

  const SECRET = 'file-secret-0123456789';

  function secretFile(name: string, mode: number): string {
    const path = join(files, name);
    writeFileSync(path, `${SECRET}\n`);
    chmodSync(path, mode);
    return path;
  }

  it('never takes the secret from the command line', async () => {
    const result = await runCli(config.dir, ['mock', 'serve', '--port', '0', '--control-secret', 'visible-in-ps']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/never taken from the command line.*TOPUP_SANDBOX_CONTROL_SECRET.*--control-secret-file/);
    expect(result.err).not.toContain('visible-in-ps');
    expect(result.out).toBe('');
  });

  it.each([
    { name: 'readable by group', mode: 0o640, err: /can be read by others \(mode 0640\); make it private with chmod 600/ },
    { name: 'readable by everyone', mode: 0o644, err: /can be read by others \(mode 0644\)/ },
  ])('refuses a secret file $name', async ({ name, mode, err }) => {
    const path = secretFile(name.replace(/ /g, '-'), mode);
    const result = await runCli(config.dir, ['mock', 'serve', '--port', '0', '--control-secret-file', path]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(err);
    expect(result.out).toBe('');
  });

  it('refuses a symlink to a secret file, and a missing one', async () => {
    const target = secretFile('target', 0o600);
    const link = join(files, 'link');
    symlinkSync(target, link);
    const linked = await runCli(config.dir, ['mock', 'serve', '--port', '0', '--control-secret-file', link]);
    expect(linked.code).toBe(2);
    expect(linked.err).toContain(`The control secret file ${link} is a symbolic link`);
    const missing = await runCli(config.dir, ['mock', 'serve', '--port', '0', '--control-secret-file', join(files, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('does not exist');
  });

  it.each([
    { from: 'a 0600 file', args: () => ['--control-secret-file', secretFile('good', 0o600)], env: {} },
    { from: 'TOPUP_SANDBOX_CONTROL_SECRET', args: () => [], env: { TOPUP_SANDBOX_CONTROL_SECRET: SECRET } },
  ])('with the secret from $from, control commands need TOPUP_SANDBOX_CONTROL_SECRET', async ({ args, env }) => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir, ...env } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', ...args()], io, { signal: controller.signal });
    const info = await waitForJsonLine(io.out);
    const token = { TOPUP_TOKEN: (info.accounts as { name: string; token: string }[]).find((a) => a.name === 'demo')!.token };
    try {
      const without = await runCli(config.dir, ['mock', 'reset', '--base-url', info.url], { env: token });
      expect(without.code).not.toBe(0);
      expect(without.err).toContain('needs its control secret in the x-sandbox-control-secret header');
      // A control call needs no token: without one, the refusal still asks for the secret, not for a login.
      const noToken = await runCli(config.dir, ['mock', 'reset', '--base-url', info.url]);
      expect(noToken.code).toBe(4);
      expect(noToken.err).toContain('needs its control secret in the x-sandbox-control-secret header');
      expect(noToken.err).not.toContain('No token');
      const wrong = await runCli(config.dir, ['mock', 'reset', '--base-url', info.url], {
        env: { ...token, TOPUP_SANDBOX_CONTROL_SECRET: 'nope' },
      });
      expect(wrong.err).toContain("does not hold this sandbox's control secret");
      const right = { env: { ...token, TOPUP_SANDBOX_CONTROL_SECRET: SECRET } };
      // Keeping the journal, where the calls that carried the secret must show without it.
      expect((await runCli(config.dir, ['mock', 'reset', '--keep', 'requests', '--base-url', info.url], right)).code).toBe(0);
      const logs = await runCli(config.dir, ['mock', 'logs', '--base-url', info.url, '--json'], right);
      expect(logs.code).toBe(0);
      expect(logs.out).toContain('/__sandbox/reset');
      expect(logs.out).not.toContain(SECRET);
    } finally {
      controller.abort();
    }
    expect(await running).toBe(0);
  });

  it('--public-url is the origin of invoice links', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', '--public-url', 'http://sandbox.test:4010'], io, {
      signal: controller.signal,
    });
    const info = await waitForJsonLine(io.out);
    try {
      const token = (info.accounts as { name: string; token: string }[]).find((a) => a.name === 'rich')!.token;
      const sandboxFixtures = (await (await fetch(`${info.url}/__sandbox/fixtures`)).json()) as {
        data: { platform: { valid_orders: unknown[] } };
      };
      const answer = await raw(
        info.url,
        'POST',
        '/api/v1/me/orders',
        { host: 'evil.example', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        JSON.stringify(sandboxFixtures.data.platform.valid_orders[0]),
      );
      expect(invoiceUrlOf(answer)).toMatch(/^http:\/\/sandbox\.test:4010\/user\/invoice\/INV\d+$/);
    } finally {
      controller.abort();
    }
    expect(await running).toBe(0);
  });

  it('--host 0.0.0.0 says what the Host check stops and what it does not, and recommends the secret', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', '--host', '0.0.0.0'], io, { signal: controller.signal });
    await waitForJsonLine(io.out);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.err()).toContain(
      'that stops web browsers (DNS rebinding, pages on other sites), not other clients on the network, which can send Host: localhost.',
    );
    expect(io.err()).toContain('Set a control secret (TOPUP_SANDBOX_CONTROL_SECRET, or --control-secret-file with a 0600 file)');
    expect(io.err()).not.toContain('answers only to loopback names.');
  });
});

async function waitForJsonLine(read: () => string): Promise<{ url: string; accounts: unknown[] }> {
  for (let i = 0; i < 500; i++) {
    const line = read().split('\n')[0];
    if (line) return JSON.parse(line) as { url: string; accounts: unknown[] };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('mock serve printed nothing');
}
