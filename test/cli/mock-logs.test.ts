import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import type { JournalEntry } from '../../mocks/inspect/request-journal.js';
import { main } from '../../src/cli/main.js';
import { terminalMeasure } from '../../src/cli/io/text-width.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

let config: { dir: string; cleanup(): void };
let served: HttpSandbox | undefined;
let sandbox: Sandbox;

beforeEach(async () => {
  config = tempConfigDir();
  sandbox = await createSandbox();
  served = await startHttpSandbox(sandbox, { port: 0 });
});
afterEach(async () => {
  await served?.close();
  served = undefined;
  config.cleanup();
});

const topup = (args: string[], options: Parameters<typeof runCli>[2] = {}) => runCli(config.dir, args, options);

/** Until `read()` matches (at most 3 s, polled every 10 ms), then that it does: a line the follow prints as it comes. */
async function waitFor(pattern: RegExp, read: () => string): Promise<void> {
  for (let i = 0; i < 300 && !pattern.test(read()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(read()).toMatch(pattern);
}

async function botTraffic(url: string): Promise<string> {
  const rich = sandbox.account('rich');
  await fetch(`${url}/api/v1/health`);
  await fetch(`${url}/api/v1/me/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json', 'idempotency-key': 'bot-1' },
    body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
  });
  await fetch(`${url}/api/v1/me/order`, { method: 'POST' });
  return rich.token;
}

describe('topup mock logs', () => {
  it('prints one line per request, oldest first: ISO time and tab-separated fields when piped, never the token', async () => {
    const token = await botTraffic(served!.url);
    const result = await topup(['mock', 'logs', '--base-url', served!.url]);
    expect(result.code).toBe(0);
    const lines = result.out
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(lines.map((fields) => fields.slice(1, 4))).toEqual([
      ['GET', '/api/v1/health', '200'],
      ['POST', '/api/v1/me/orders', '201'],
      ['POST', '/api/v1/me/order', '404'],
    ]);
    expect(lines[0]![0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines[1]).toEqual(expect.arrayContaining(['rich', 'createOrder', 'key bot-1']));
    expect(lines[2]!.at(-1)).toBe('did you mean POST /api/v1/me/orders?');
    expect(result.out + result.err).not.toContain(token);
  });

  it('--jq runs on each journal entry', async () => {
    await botTraffic(served!.url);
    const result = await topup(['mock', 'logs', '--jq', '"\\(.method) \\(.path) \\(.status)"', '--base-url', served!.url]);
    expect(result).toEqual({ code: 0, out: 'GET /api/v1/health 200\nPOST /api/v1/me/orders 201\nPOST /api/v1/me/order 404\n', err: '' });
  });

  it('--json is NDJSON of the journal entries; the filters pick', async () => {
    await botTraffic(served!.url);
    const result = await topup(['--json', 'mock', 'logs', '--filter-method', 'POST', '--filter-status', '4xx', '--base-url', served!.url]);
    expect(result.code).toBe(0);
    const entries = result.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as JournalEntry);
    expect(entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /api/v1/me/order 404']);
    const byPath = await topup(['--json', 'mock', 'logs', '--filter-path', '/api/v1/me/**', '--limit', '1', '--base-url', served!.url]);
    expect(
      byPath.out
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as JournalEntry).path),
    ).toEqual(['/api/v1/me/order']);
  });

  it('on a terminal: aligned columns with the local time', async () => {
    await botTraffic(served!.url);
    const result = await topup(['mock', 'logs', '--no-color', '--base-url', served!.url], { tty: true, columns: 120 });
    const lines = result.out.trimEnd().split('\n');
    expect(lines[1]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} {2}POST {3}\/api\/v1\/me\/orders {24}201 {5}\d+ ms {2,}rich {2}createOrder {2}key bot-1$/,
    );
  });

  describe('on a narrow terminal each line fits; piped, nothing is cut', () => {
    const LONG = '/api/v1/me/orders/INV20260302000003/and/a/path/nobody/serves';
    const traffic = async (url: string) => {
      await botTraffic(url);
      await fetch(`${url}${LONG}`, { headers: { authorization: `Bearer ${sandbox.account('rich').token}` } });
    };
    const T = String.raw`\d\d:\d\d:\d\d\.\d{3}`;

    it.each([
      {
        columns: 80,
        // The duration is left out so that the path's column keeps 30 cells; then details, the route first, until the
        // line fits (the near miss, 36 cells, has no room).
        lines: [
          `^${T}  GET    /api/v1/health                 200     getHealth$`,
          `^${T}  POST   /api/v1/me/orders              201     rich  key bot-1$`,
          `^${T}  POST   /api/v1/me/order               404$`,
          `^${T}  GET    /api/v1/me/orders/INV202603…03/and/a/path/nobody/serves 404$`,
        ],
      },
      {
        columns: 60,
        // No room for the time either; the path keeps a 28-cell column, and a longer one loses its middle.
        lines: [
          `^GET    /api/v1/health               200     getHealth$`,
          `^POST   /api/v1/me/orders            201     rich  key bot-1$`,
          `^POST   /api/v1/me/order             404$`,
          `^GET    /api/v1/me/orders/INV202…and/a/path/nobody/serves 404$`,
        ],
      },
    ])('$columns columns', async ({ columns, lines }) => {
      await traffic(served!.url);
      const result = await topup(['mock', 'requests', 'list', '--no-color', '--base-url', served!.url], { tty: true, columns });
      expect(result.code, result.err).toBe(0);
      const out = result.out.trimEnd().split('\n');
      expect(out).toHaveLength(lines.length);
      out.forEach((line, i) => expect(line).toMatch(new RegExp(lines[i]!.replaceAll('?', '\\?'))));
      for (const line of out) expect(terminalMeasure.width(line)).toBeLessThanOrEqual(columns);
    });

    it('piped at 40 columns: every field of every line, the long path whole', async () => {
      await traffic(served!.url);
      const result = await topup(['mock', 'logs', '--base-url', served!.url], { columns: 40 });
      const lines = result.out.trimEnd().split('\n');
      expect(lines[1]!.split('\t')).toEqual(expect.arrayContaining(['POST', '/api/v1/me/orders', 'rich', 'createOrder', 'key bot-1']));
      expect(lines[2]).toContain('did you mean POST /api/v1/me/orders?');
      expect(lines[3]!.split('\t')[2]).toBe(LONG);
    });
  });

  it('--follow prints requests as they come, and after a restart what the new run answered before it reconnected; Ctrl-C is 130', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const url = served!.url;
    for (let i = 0; i < 3; i++) await fetch(`${url}/api/v1/health`);
    const running = main(['mock', 'logs', '--follow', '--limit', '1', '--base-url', url], io, { signal: controller.signal });
    await waitFor(/Following/, io.err);
    await fetch(`${url}/api/v1/articles`);
    await waitFor(/\/api\/v1\/articles\t200/, io.out);

    // The new run answers two requests (ids 1 and 2, below the 4 already shown) before it listens, so before the follow
    // can reconnect: they are still shown, once each, and the follow says the sandbox restarted.
    await served!.close();
    await waitFor(/went away; reconnecting/, io.err);
    sandbox = await createSandbox();
    await sandbox.fetch('http://sandbox.test/api/v1/catalog/credit-packages');
    await sandbox.fetch('http://sandbox.test/api/v1/me/balance');
    served = await startHttpSandbox(sandbox, { port: Number(new URL(url).port) });
    await waitFor(/has restarted/, io.err);
    await fetch(`${url}/api/v1/catalog/payment-methods`);
    await waitFor(/payment-methods\t200/, io.out);
    controller.abort();
    expect(await running).toBe(130);
    const paths = io
      .out()
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t')[2]);
    expect(paths).toEqual([
      '/api/v1/health',
      '/api/v1/articles',
      '/api/v1/catalog/credit-packages',
      '/api/v1/me/balance',
      '/api/v1/catalog/payment-methods',
    ]);
  });

  it('--follow --limit 0 shows only what comes after it started, served or embedded', async () => {
    await botTraffic(served!.url);
    expect((await topup(['packages'])).code).toBe(0);
    for (const target of [['--base-url', served!.url], []]) {
      const controller = new AbortController();
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
      const running = main(['mock', 'logs', '--follow', '--limit', '0', ...target], io, { signal: controller.signal });
      await waitFor(/Following/, io.err);
      if (target.length > 0) await fetch(`${served!.url}/api/v1/articles`);
      else expect((await topup(['articles', 'list'])).code).toBe(0);
      await waitFor(/\/api\/v1\/articles/, io.out);
      // Let a replay of the older requests, were there one, arrive before the stop.
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      expect(await running).toBe(130);
      expect(io.out().trimEnd().split('\n'), target.join(' ')).toEqual([expect.stringMatching(/\t\/api\/v1\/articles\t200\t/)]);
    }
  });

  it('a sandbox that is not running is exit 7 with one sentence', async () => {
    const url = served!.url;
    await served!.close();
    served = undefined;
    const result = await topup(['mock', 'logs', '--follow', '--base-url', url]);
    expect(result.code).toBe(7);
    expect(result.err).toMatch(/^Error: Could not reach http:\/\/127\.0\.0\.1:\d+: .*Is `topup mock serve` running there\?\n$/);
  });

  it('the embedded sandbox keeps what earlier commands sent, in a 0600 log beside its state, ids going on', async () => {
    expect((await topup(['packages'])).code).toBe(0);
    expect((await topup(['balance'])).code).toBe(0);
    expect((await topup(['orders', 'show', 'INV404'])).code).toBe(1);
    const result = await topup(['--json', 'mock', 'logs']);
    expect(result.code).toBe(0);
    const entries = result.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as JournalEntry);
    expect(entries.map((e) => [e.id, e.method, e.path, e.status, e.route])).toEqual([
      [1, 'GET', '/api/v1/catalog/credit-packages', 200, 'listCreditPackages'],
      [2, 'GET', '/api/v1/me/balance', 200, 'getBalance'],
      [3, 'GET', '/api/v1/me/orders/INV404', 404, 'getOrder'],
    ]);
    expect(entries[1]!.account).toBe('demo');
    const log = join(config.dir, 'sandbox-state.json.requests.ndjson');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    // The demo token is in the log only as its family and last 4 characters.
    const token = sandbox.account('demo').token;
    expect(readFileSync(log, 'utf8')).not.toContain(token);
    expect(entries[1]!.headers.authorization).toMatch(new RegExp(`^Bearer [a-z_]*…${token.slice(-4)}$`));

    const filtered = await topup(['mock', 'logs', '--filter-status', '4xx']);
    expect(
      filtered.out
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t').slice(1, 4)),
    ).toEqual([['GET', '/api/v1/me/orders/INV404', '404']]);
    const bad = await topup(['mock', 'logs', '--filter-path', '/x', '--limit', 'x']);
    expect(bad.code).toBe(2);
    // A status that is none would match nothing and look like "no such requests": refused before anything is read.
    for (const status of ['abc', '4xx,20x', ',']) {
      const refused = await topup(['mock', 'logs', '--filter-status', status]);
      expect([refused.code, refused.out]).toEqual([2, '']);
      expect(refused.err).toMatch(
        /--filter-status: ('.*' is not a status \(100 to 599\), a class such as 4xx, or dropped|it names no status)\.\n$/,
      );
    }
  });

  it('--follow on the embedded sandbox shows the requests of other commands as they are made, until Ctrl-C', async () => {
    await topup(['packages']);
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['mock', 'logs', '--follow'], io, { signal: controller.signal });
    await waitFor(/credit-packages\t200/, io.out);
    await waitFor(/Following/, io.err);
    expect((await topup(['balance'])).code).toBe(0);
    await waitFor(/\/api\/v1\/me\/balance\t200/, io.out);
    expect(io.out().trimEnd().split('\n')).toHaveLength(2);
    controller.abort();
    expect(await running).toBe(130);
  });

  it('--follow and mock serve --log on a 60-column terminal: every line as it arrives fits', async () => {
    const controller = new AbortController();
    const io = fakeIO({ tty: true, columns: 60, env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--no-color', 'mock', 'serve', '--fresh', '--port', '0', '--log'], io, { signal: controller.signal });
    await waitFor(/listening on (\S+)/, io.out);
    const url = /listening on (\S+)/.exec(io.out())![1]!;
    const following = new AbortController();
    const follower = fakeIO({ tty: true, columns: 60, env: { TOPUP_CONFIG_DIR: config.dir } });
    const follow = main(['--no-color', 'mock', 'logs', '--follow', '--base-url', url], follower, { signal: following.signal });
    await waitFor(/Following/, follower.err);
    await fetch(`${url}/api/v1/me/orders/INV20260302000003/and/a/path/nobody/serves`);
    await waitFor(/serves 40\d/, follower.out);
    await waitFor(/serves 40\d/, io.err);
    const logged = [follower.out(), io.err().slice(io.err().indexOf('Press Ctrl-C'))].join('\n');
    expect(logged).toContain('GET    /api/v1/me/orders/INV202…and/a/path/nobody/serves 404');
    for (const line of logged.split('\n')) expect(terminalMeasure.width(line), line).toBeLessThanOrEqual(60);
    following.abort();
    controller.abort();
    expect(await follow).toBe(130);
    expect(await running).toBe(0);
  });

  it('mock serve --log prints every request to stderr', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', '--log'], io, { signal: controller.signal });
    for (let i = 0; i < 200 && !io.out().includes('\n'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const { url } = JSON.parse(io.out().split('\n')[0]!) as { url: string };
    await fetch(`${url}/api/v1/health`);
    for (let i = 0; i < 100 && !io.err().includes('/api/v1/health'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(io.err()).toMatch(/\tGET\t\/api\/v1\/health\t200\t/);
    controller.abort();
    expect(await running).toBe(0);
  });
});

describe('topup mock open and the dashboard URL', () => {
  it("opens the served sandbox's dashboard with the browser program (TOPUP_BROWSER)", async () => {
    const opened = join(config.dir, 'opened.txt');
    const browser = join(config.dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\necho "$1" > '${opened}'\n`);
    chmodSync(browser, 0o755);
    const result = await topup(['mock', 'open', '--base-url', served!.url], { env: { TOPUP_BROWSER: browser } });
    expect(result.code).toBe(0);
    for (let i = 0; i < 100; i++) {
      try {
        if (readFileSync(opened, 'utf8').trim() !== '') break;
      } catch {
        // not written yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(readFileSync(opened, 'utf8').trim()).toBe(`${served!.url}/__sandbox/`);
  });

  it('a program that cannot start leaves the URL to open by hand', async () => {
    const result = await topup(['mock', 'open', '--base-url', served!.url], { env: { TOPUP_BROWSER: '/nonexistent/browser' } });
    expect(result).toMatchObject({ code: 0, out: '' });
    expect(result.err).toBe(`Could not start a browser (/nonexistent/browser); open ${served!.url}/__sandbox/ yourself.\n`);
  });

  it('the embedded sandbox has no dashboard (exit 2)', async () => {
    const result = await topup(['mock', 'open']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/Error: The embedded sandbox is no server, so it has no dashboard; run `topup mock serve --open`/);
  });

  it('the dashboard is a page at /__sandbox/, and mock serve --json names it', async () => {
    const page = await fetch(`${served!.url}/__sandbox/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    for (const title of ['Requests', 'Invoices', 'Accounts', 'Faults']) expect(html).toContain(`>${title}`);
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0'], io, { signal: controller.signal });
    for (let i = 0; i < 200 && !io.out().includes('\n'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const info = JSON.parse(io.out().split('\n')[0]!) as { url: string; dashboard: string };
    expect(info.dashboard).toBe(`${info.url}/__sandbox/`);
    controller.abort();
    expect(await running).toBe(0);
  });
});
