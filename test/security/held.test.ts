/**
 * What held when the toolkit was tried as an attacker would (issue 20): kept as tests so that none of it regresses.
 * Each case is an attack that failed; a test here fails the day the attack starts to work.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { CONTROL_HEADER } from '../../src/contract/sandbox-control.js';
import { runCli } from '../cli/run-cli.js';
import { tempConfigDir } from '../support/fake-io.js';

let served: HttpSandbox | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await served?.close();
  served = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function serve() {
  const sandbox = await createSandbox({ rateLimit: false });
  served = await startHttpSandbox(sandbox, { port: 0 });
  return { sandbox, url: new URL(served.url) };
}

function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw request, so that every header is exactly what a browser or an attacker would send. */
function send(url: URL, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    // The server may answer 413 and close before the whole body is sent: that is the point of the test.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

const DEMO = 'topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc';

describe('held: the sandbox over HTTP', () => {
  it('answers a 70 MB state body with 413 and keeps its state', async () => {
    const { sandbox, url } = await serve();
    const before = JSON.stringify(sandbox.snapshot().tables);
    const body = Buffer.alloc(70 * 1024 * 1024, 0x20);
    const answer = await send(url, 'PUT', '/__sandbox/state', { [CONTROL_HEADER]: '1', 'content-type': 'application/json' }, body);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ success: false });
    expect(JSON.stringify(sandbox.snapshot().tables)).toBe(before);
  });

  it('keeps __proto__ in a JSON order body an own key: refused by name, Object.prototype untouched', async () => {
    const { url } = await serve();
    const body = '{"package_code":"CR80","platform":"roblox","username":"robloxplayer","__proto__":{"polluted":true}}';
    const answer = await send(
      url,
      'POST',
      '/api/v1/me/orders',
      { authorization: `Bearer ${DEMO}`, 'content-type': 'application/json' },
      body,
    );
    expect(answer.status).toBe(422);
    expect(answer.text).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives no cross-origin page the journal: no CORS grant on reads, and a preflight grants nothing', async () => {
    const { url } = await serve();
    for (const headers of [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]) {
      for (const path of ['/__sandbox/requests', '/__sandbox/state']) {
        const answer = await send(url, 'GET', path, headers);
        expect(answer.headers['access-control-allow-origin'], `${path} ${JSON.stringify(headers)}`).toBeUndefined();
        expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
        const preflight = await send(url, 'OPTIONS', path, {
          ...headers,
          'access-control-request-method': 'GET',
          'access-control-request-headers': CONTROL_HEADER,
        });
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
      }
    }
  });

  it('serves the dashboard and the invoice page with a CSP that allows no foreign script or frame', async () => {
    const { sandbox, url } = await serve();
    const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
    for (const path of ['/__sandbox/', `/user/invoice/${code}`]) {
      const page = await send(url, 'GET', path);
      expect(page.status, path).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp, path).toMatch(/default-src 'none'|default-src 'self'/);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toMatch(/script-src[^;]*(\*|https?:)/);
    }
  });
});

describe('held: --jq runs in a box', () => {
  it('cannot read the real environment', async () => {
    const dir = configDir();
    const result = await runCli(dir, ['packages', '--json', '--jq', '[$ENV, env] | tostring'], {
      env: { SECRET_MARK: 'do-not-leak-7f3a' },
    });
    expect(result.code).toBe(0);
    expect(result.out).not.toContain('do-not-leak-7f3a');
    expect(result.out).not.toContain(dir);
  });

  it.each([
    ['import "/etc/passwd" as $p; $p', /module not found|could not/i],
    ['include "/etc/hostname"; .', /module not found|could not/i],
  ])('cannot read files: %s', async (filter, reason) => {
    const result = await runCli(configDir(), ['packages', '--json', '--jq', filter]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(reason);
    expect(result.out).toBe('');
  });
});

describe('held: topup api stays under /api/v1', () => {
  it.each([['http://evil.example/api/v1/catalog'], ['//evil.example/api/v1/catalog'], ['../../etc/passwd'], ['/api/v1/../../admin']])(
    'refuses %s before sending anything',
    async (path) => {
      let sent = 0;
      const fetch: typeof globalThis.fetch = async () => {
        sent += 1;
        throw new Error('nothing may be sent');
      };
      const result = await runCli(configDir(), ['api', path], { fetch });
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/^Error: /);
      expect(sent).toBe(0);
    },
  );
});
