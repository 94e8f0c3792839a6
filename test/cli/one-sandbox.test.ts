/**
 * One sandbox per config folder (issue 22, section 1), in-process: `mock serve` serves the config folder's state and
 * announces itself beside it; every command that would use the embedded sandbox then answers from it, over real
 * loopback HTTP; the announcement is checked (process, instance) before any token goes out, and refused when it is
 * not one to trust. The two-process version with SIGKILL is test/e2e/one-sandbox.test.ts.
 */
import { chmodSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { EMBEDDED_NOTICE } from '../support/cli-assertions.js';
import { fakeClock } from '../support/fake-clock.js';
import { runCli, serveSandbox, type RunOptions } from './run-cli.js';
import { connectLines } from '../../src/cli/commands/mock/serve-banner.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const topup = (args: string[], options: RunOptions = {}) => runCli(config.dir, args, options);
const stateFile = () => join(config.dir, 'sandbox-state.json');
const announcementFile = () => `${stateFile()}.served`;
const servedNotice = (url: string) =>
  `Using the sandbox served at ${url} by \`topup mock serve\` (pid ${process.pid}, demo sandbox token).\n`;
const ORDER = ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'];

/** `topup mock serve …` in this process until `stop()`; resolves once it printed its JSON line. */
async function serve(args: string[] = [], env: Record<string, string> = {}) {
  const controller = new AbortController();
  const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir, ...env } });
  const running = main(['--json', 'mock', 'serve', '--port', '0', ...args], io, { signal: controller.signal });
  for (let i = 0; i < 500 && !io.out().includes('\n'); i++) {
    if (await Promise.race([running.then(() => true), new Promise((r) => setTimeout(() => r(false), 10))]))
      throw new Error(`mock serve ended: ${io.err()}`);
  }
  const info = JSON.parse(io.out().split('\n')[0]!) as {
    url: string;
    state: string | null;
    announced: boolean;
    connect: Record<string, unknown>;
  };
  return {
    info,
    io,
    stop: async () => {
      controller.abort();
      return running;
    },
  };
}

/**
 * An order on the sandbox the config folder's commands use now, then `invoices status --wait --json` of it on a fake
 * clock, `between` running at each of its sleeps (between two polls): what changes under a wait.
 */
async function waitWhile(between: (invoice: string) => Promise<void>) {
  const order = await topup(ORDER);
  expect(order.code, order.err).toBe(0);
  const invoice = order.out.trim();
  const clock = fakeClock();
  clock.onSleep = () => between(invoice);
  return { invoice, waited: await topup(['--json', 'invoices', 'status', invoice, '--wait'], { clock }) };
}

/** A loopback server that is no topup sandbox, or one that claims another instance: it records what it was sent. */
async function impostor(
  instance?: string,
): Promise<{ url: string; seen: { path: string; headers: IncomingHttpHeaders }[]; close(): Promise<void> }> {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-topup-sandbox': '1',
      ...(instance ? { 'x-topup-sandbox-instance': instance } : {}),
    });
    res.end('{"success":true,"data":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const announcement = (fields: Record<string, unknown>) =>
  JSON.stringify({ version: 1, url: 'http://127.0.0.1:9', pid: process.pid, instance: '00000000-0000-4000-8000-000000000000', ...fields });

describe('mock serve serves the config folder’s sandbox, and every command here reaches it', () => {
  it('announces itself (0600), and orders, pay, logs and fixtures with no flags act on the served sandbox', async () => {
    const served = await serve();
    try {
      expect(served.info).toMatchObject({ state: stateFile(), announced: true });
      expect(readFileSync(`${stateFile()}.served`, 'utf8')).toMatch(
        new RegExp(`^\\{"version":1,"url":"${served.info.url}","pid":${process.pid},"instance":"[0-9a-f-]{36}"\\}\\n$`),
      );
      expect((await import('node:fs')).statSync(announcementFile()).mode & 0o777).toBe(0o600);

      const created = await topup(ORDER);
      expect(created.code).toBe(0);
      expect(created.err).toContain(servedNotice(served.info.url));
      expect(created.err).not.toContain('embedded');
      const invoice = created.out.trim();
      // The served sandbox made it: it knows the invoice over HTTP.
      const seen = await fetch(`${served.info.url}/__sandbox/invoices/${invoice}`);
      expect(seen.status).toBe(200);

      expect(await topup(['mock', 'pay', invoice])).toMatchObject({ code: 0, err: `${servedNotice(served.info.url)}` });
      const status = await topup(['--json', 'invoices', 'status', invoice]);
      expect(JSON.parse(status.out)).toMatchObject({ invoice_code: invoice, payment_status: 'paid' });

      const logs = await topup(['--json', 'mock', 'logs']);
      const lines = logs.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { method: string; path: string });
      expect(lines.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
        'POST /api/v1/me/orders',
        `POST /__sandbox/invoices/${invoice}/pay`,
        `GET /api/v1/me/invoices/${invoice}/status`,
      ]);
      expect(logs.err).toBe(servedNotice(served.info.url));
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // Stopped: the announcement is gone, and the embedded sandbox goes on with the same state and the same log.
    expect(existsSync(announcementFile())).toBe(false);
    const after = await topup(['--json', 'orders', 'list']);
    expect(after.err).toBe(EMBEDDED_NOTICE);
    expect(JSON.parse(after.out).orders.map((o: { status: string }) => o.status)).toEqual(['processing']);
    const logs = await topup(['--json', 'mock', 'logs']);
    expect(
      logs.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).path),
    ).toContain('/api/v1/me/orders');
  });

  it('makes the config folder (0700) when nothing was ever run there', async () => {
    const fresh = join(config.dir, 'new', 'topup');
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: fresh } });
    const controller = new AbortController();
    const running = main(['--json', 'mock', 'serve', '--port', '0'], io, { signal: controller.signal });
    for (let i = 0; i < 500 && !io.out().includes('\n') && !io.err(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(io.err()).toBe('');
    expect(JSON.parse(io.out()).state).toBe(join(fresh, 'sandbox-state.json'));
    expect((await import('node:fs')).statSync(fresh).mode & 0o777).toBe(0o700);
    controller.abort();
    expect(await running).toBe(0);
  });

  it('starts from what the embedded sandbox holds', async () => {
    const invoice = (await topup(['mock', 'deposit', '50000'])).out.trim();
    const served = await serve();
    try {
      expect((await topup(['mock', 'pay', invoice])).code).toBe(0);
      const seen = (await (await fetch(`${served.info.url}/__sandbox/invoices/${invoice}`)).json()) as {
        data: { invoice: { payment_status: string } };
      };
      expect(seen.data.invoice.payment_status).toBe('paid');
    } finally {
      await served.stop();
    }
    expect((await topup(['mock', 'pay', invoice])).err).toMatch(/already paid/);
  });

  it('mock logs --follow with no flags streams the served sandbox’s requests as they come', async () => {
    const served = await serve();
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const following = main(['mock', 'logs', '--follow'], io, { signal: controller.signal });
    try {
      for (let i = 0; i < 300 && !io.err().includes('Following'); i++) await new Promise((r) => setTimeout(r, 10));
      // A request straight to the served sandbox, as a bot makes it: no topup command ran it.
      await fetch(`${served.info.url}/api/v1/articles`);
      for (let i = 0; i < 300 && !io.out().includes('/api/v1/articles'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(io.out()).toMatch(/\tGET\t\/api\/v1\/articles\t200\t/);
      expect(io.err().startsWith(servedNotice(served.info.url))).toBe(true);
    } finally {
      controller.abort();
      expect(await following).toBe(130);
      await served.stop();
    }
  });

  it('--base-url, TOPUP_BASE_URL and a profile keep their meaning; --mock is the config folder’s sandbox, served now', async () => {
    const served = await serve();
    const other = await serveSandbox();
    try {
      const viaFlag = await topup(['--json', 'mock', 'fixtures', '--base-url', other.url]);
      expect(viaFlag.code).toBe(0);
      expect(viaFlag.err).toBe('');
      const viaEnv = await topup(['--json', 'balance'], { env: { TOPUP_BASE_URL: other.url, TOPUP_TOKEN: other.token('rich') } });
      expect(viaEnv).toMatchObject({ code: 0, err: '' });
      const mock = await topup(['--json', 'balance', '--mock'], { env: { TOPUP_BASE_URL: other.url } });
      expect(mock).toMatchObject({ code: 0, err: servedNotice(served.info.url) });
      // The other server's API saw the TOPUP_BASE_URL run alone, never the --mock one.
      expect(other.sandbox.requests.list().map((entry) => entry.path)).toEqual(['/api/v1/me/balance']);
      // A current profile is a server configured: a plain run goes there, --mock still to the served sandbox.
      const login = await topup(['auth', 'login', '--with-token', '--base-url', other.url], { stdin: `${other.token('rich')}\n` });
      expect(login.code).toBe(0);
      other.sandbox.requests.clear();
      expect(await topup(['--json', 'balance'])).toMatchObject({ code: 0, err: '' });
      expect(await topup(['--json', 'balance', '--mock'])).toMatchObject({ code: 0, err: servedNotice(served.info.url) });
      expect(other.sandbox.requests.list().map((entry) => entry.path)).toEqual(['/api/v1/me/balance']);
    } finally {
      await other.close();
      await served.stop();
    }
  });

  it('a second mock serve of the same folder is refused and names the first; --fresh and --state announce nothing', async () => {
    const first = await serve();
    try {
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
      expect(await main(['mock', 'serve', '--port', '0'], io, { signal: new AbortController().signal })).toBe(1);
      expect(io.err()).toBe(
        `Error: The config folder's sandbox is already served at ${first.info.url} (pid ${process.pid}); every topup command here uses it. Start another with --fresh, or --state FILE.\n`,
      );
      const before = readFileSync(announcementFile(), 'utf8');
      const fresh = await serve(['--fresh']);
      const own = await serve(['--state', join(config.dir, 'own.json')]);
      expect(fresh.info).toMatchObject({ state: null, announced: false });
      expect(own.info).toMatchObject({ state: join(config.dir, 'own.json'), announced: false });
      expect(readFileSync(announcementFile(), 'utf8')).toBe(before);
      expect(existsSync(join(config.dir, 'own.json.served'))).toBe(false);
      await fresh.stop();
      await own.stop();
    } finally {
      await first.stop();
    }
  });

  it('--state naming the config folder’s own state file (by any path to it) serves it as without --state', async () => {
    // Before, it served that file unannounced: every other command waited 15 s for its lock, then failed.
    expect((await topup(['packages'])).code).toBe(0);
    symlinkSync(config.dir, `${config.dir}-link`);
    try {
      for (const path of [stateFile(), join(`${config.dir}-link`, 'sandbox-state.json')]) {
        const served = await serve(['--state', path]);
        try {
          expect(served.info).toMatchObject({ announced: true });
          const balance = await topup(['--json', 'balance', '--mock']);
          expect(balance).toMatchObject({ code: 0, err: servedNotice(served.info.url) });
          // And a second one is refused as a second plain `mock serve` is.
          const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
          expect(await main(['mock', 'serve', '--port', '0', '--state', path], io, { signal: new AbortController().signal })).toBe(1);
          expect(io.err()).toMatch(/^Error: The config folder's sandbox is already served at /);
        } finally {
          await served.stop();
        }
      }
    } finally {
      rmSync(`${config.dir}-link`);
    }
  });

  it('a wait goes on with the embedded sandbox, from the same state, when the server stops during it', async () => {
    const served = await serve(['--no-rate-limit']);
    let stopped = false;
    try {
      // Between two polls: the server stops (writing its state), and the invoice is paid in the state it left.
      const { invoice, waited } = await waitWhile(async (invoice) => {
        if (stopped) return;
        stopped = true;
        expect(await served.stop()).toBe(0);
        expect((await topup(['mock', 'pay', invoice])).code).toBe(0);
      });
      expect(stopped).toBe(true);
      expect(waited.code, waited.err).toBe(0);
      expect(JSON.parse(waited.out)).toMatchObject({ invoice_code: invoice, payment_status: 'paid' });
      expect(waited.err).toContain(
        `The sandbox served at ${served.info.url} stopped; the embedded sandbox answers from here on, from the same state.\n`,
      );
      expect(waited.err).not.toMatch(/Could not check/);
    } finally {
      if (!stopped) await served.stop();
    }
  });

  it('a wait follows the config folder’s sandbox to where it is served again, when its server stops and another starts', async () => {
    const first = await serve(['--no-rate-limit']);
    let second: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const { waited } = await waitWhile(async (invoice) => {
        if (second !== undefined) return;
        expect(await first.stop()).toBe(0);
        second = await serve(['--no-rate-limit']);
        expect((await topup(['mock', 'pay', invoice])).code).toBe(0);
      });
      expect(waited.code, waited.err).toBe(0);
      expect(JSON.parse(waited.out)).toMatchObject({ payment_status: 'paid' });
      expect(second?.info.url).not.toBe(first.info.url);
      expect(waited.err).toContain(
        `The sandbox served at ${first.info.url} stopped; the one served at ${second?.info.url} answers from here on.\n`,
      );
    } finally {
      if (second === undefined) await first.stop();
      else await second.stop();
    }
  });

  it('--start-at starts the clock of a sandbox in memory at that time: the same dates and invoice codes on every run', async () => {
    for (const run of [1, 2]) {
      const served = await serve(['--fresh', '--start-at', '2026-03-02T10:00:00Z']);
      try {
        const clock = (await (await fetch(`${served.info.url}/__sandbox/clock`, { headers: { 'x-topup-sandbox': '1' } })).json()) as {
          data: { now: string };
        };
        expect(Date.parse(clock.data.now) - Date.UTC(2026, 2, 2, 10), `run ${run}`).toBeGreaterThanOrEqual(0);
        expect(Date.parse(clock.data.now) - Date.UTC(2026, 2, 2, 10), `run ${run}`).toBeLessThan(60_000);
        const order = await topup([...ORDER, '--base-url', served.info.url], {
          env: { TOPUP_TOKEN: 'topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc' },
        });
        expect(order.code, order.err).toBe(0);
        expect(order.out.trim()).toBe('INV20260302000001');
      } finally {
        await served.stop();
      }
    }
    // A date alone is its midnight UTC; a time without a zone is UTC.
    const midnight = await serve(['--fresh', '--start-at', '2030-01-31']);
    try {
      const clock = (await (await fetch(`${midnight.info.url}/__sandbox/clock`, { headers: { 'x-topup-sandbox': '1' } })).json()) as {
        data: { now: string };
      };
      expect(clock.data.now.slice(0, 13)).toBe('2030-01-31T00');
    } finally {
      await midnight.stop();
    }
  });

  it('--start-at is refused for a sandbox kept in a file, and for a time that is none', async () => {
    for (const [args, said] of [
      [
        ['--start-at', '2026-03-02'],
        '--start-at sets the clock of a sandbox in memory, and a state file keeps its own: add --fresh or --seed FILE.',
      ],
      [['--fresh', '--start-at', 'tomorrow'], '--start-at must be a time in ISO 8601 from 1970 on'],
      [['--fresh', '--start-at', '2026-02-30'], '--start-at must be a time in ISO 8601 from 1970 on'],
    ] as const) {
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
      expect(await main(['mock', 'serve', '--port', '0', ...args], io, { signal: new AbortController().signal }), args.join(' ')).toBe(2);
      expect(io.err()).toContain(said);
      expect(io.out()).toBe('');
    }
    expect(existsSync(announcementFile())).toBe(false);
  });

  it('paces what it sends to the served config sandbox, whose rate-limit windows last, as a real server does', async () => {
    // Served without limits and timed by a fake clock: the client's own pacing shows as a wait, in no time.
    const served = await serve(['--no-rate-limit']);
    try {
      const rows = Array.from({ length: 11 }, (_, i) => `BuilderBob,5001,9001,paced-${i}`);
      const input = join(config.dir, 'rows.csv');
      writeFileSync(input, `username,place,pass,reference\n${rows.join('\n')}\n`);
      const clock = fakeClock();
      const result = await topup(['orders', 'batch', input, '--progress', 'lines'], { clock, stderrTTY: true, color: false });
      expect(result.code, result.err).toBe(0);
      expect(
        result.out
          .trim()
          .split('\n')
          .map((line) => line.split('\t')[1]),
      ).toEqual(rows.map(() => 'created'));
      // The 11th order of the minute waited for the published limit (10 a minute) instead of meeting a 429.
      expect(clock.slept.some((ms) => ms > 50_000)).toBe(true);
    } finally {
      await served.stop();
    }
  });

  it('--ready-file holds the URL and a newline while it serves, and is gone after', async () => {
    const ready = join(config.dir, 'ready.url');
    writeFileSync(ready, 'http://127.0.0.1:1\n');
    const served = await serve(['--fresh', '--ready-file', ready]);
    expect(readFileSync(ready, 'utf8')).toBe(`${served.info.url}\n`);
    expect(await served.stop()).toBe(0);
    expect(existsSync(ready)).toBe(false);
  });

  it('--ready-file left by a killed run is gone before the state is opened, so a start that fails leaves none', async () => {
    const ready = join(config.dir, 'ready.url');
    writeFileSync(ready, 'http://127.0.0.1:1\n');
    const state = join(config.dir, 'broken-state.json');
    writeFileSync(state, '{"version": "not a state"}');
    const result = await topup(['mock', 'serve', '--port', '0', '--state', state, '--ready-file', ready]);
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(/^Error: /m);
    expect(existsSync(ready)).toBe(false);
  });

  it('prints how to point another shell, a bot and a browser at it', async () => {
    const served = await serve();
    const fresh = await serve(['--fresh']);
    try {
      const token = 'topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc';
      expect(served.info.connect).toEqual({
        shell: `TOPUP_CONFIG_DIR=${config.dir} topup orders list`,
        bot_env: { TOPUP_BASE_URL: served.info.url, TOPUP_TOKEN: token },
        browser: `${served.info.url}/__sandbox/`,
      });
      expect(fresh.info.connect).toMatchObject({ shell: `TOPUP_BASE_URL=${fresh.info.url} TOPUP_TOKEN=${token} topup orders list` });
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
      const controller = new AbortController();
      const running = main(['mock', 'serve', '--fresh', '--port', '0'], io, { signal: controller.signal });
      for (let i = 0; i < 500 && !io.out().includes('a browser'); i++) await new Promise((r) => setTimeout(r, 10));
      const url = /Sandbox listening on (\S+)/.exec(io.out())![1]!;
      expect(io.out()).toContain(
        `\nPoint at it:\nanother shell: TOPUP_BASE_URL=${url} TOPUP_TOKEN=${token} topup orders list\na bot: export TOPUP_BASE_URL=${url} TOPUP_TOKEN=${token}\na browser: ${url}/__sandbox/\n`,
      );
      controller.abort();
      expect(await running).toBe(0);
    } finally {
      await fresh.stop();
      await served.stop();
    }
  });

  it('--fresh with --state, or --repair on a sandbox in memory, is a usage error', async () => {
    expect((await topup(['mock', 'serve', '--fresh', '--state', 'x.json'])).err).toBe(
      'Error: --fresh serves a sandbox in memory and --state one kept in a file: pick one.\n',
    );
    const repair = await topup(['mock', 'serve', '--fresh', '--repair']);
    expect(repair).toMatchObject({
      code: 2,
      err: 'Error: --repair repairs a state file, and this sandbox is in memory: drop --repair, or add --state FILE.\n',
    });
  });
});

describe('the lines that point another shell at a served sandbox', () => {
  const url = 'http://127.0.0.1:4010';
  it.each([
    [{ kind: 'config', file: 'x' }, undefined, true, 'topup orders list'],
    [{ kind: 'config', file: 'x' }, undefined, false, 'topup --mock orders list'],
    [{ kind: 'config', file: 'x' }, "/tmp/it's here", true, "TOPUP_CONFIG_DIR='/tmp/it'\\''s here' topup orders list"],
    [{ kind: 'memory' }, '/tmp/c', true, `TOPUP_BASE_URL=${url} TOPUP_TOKEN=tok topup orders list`],
    [{ kind: 'file', file: 'x' }, undefined, false, `TOPUP_BASE_URL=${url} TOPUP_TOKEN=tok topup orders list`],
  ] as const)('%j, config folder %s, nothing configured %s: %s', (state, configDir, nothingConfigured, shell) => {
    expect(connectLines({ state, reachUrl: url }, 'tok', { configDir, nothingConfigured })).toEqual({
      shell,
      bot: { TOPUP_BASE_URL: url, TOPUP_TOKEN: 'tok' },
      browser: `${url}/__sandbox/`,
    });
  });
});

describe('an announcement is trusted only when its process runs and its URL answers as that instance', () => {
  it('another server at the announced URL gets one token-less GET and nothing else; the embedded sandbox answers', async () => {
    const other = await impostor('11111111-1111-4111-8111-111111111111');
    try {
      writeFileSync(announcementFile(), announcement({ url: other.url }), { mode: 0o600 });
      const run = await topup(['--json', 'balance']);
      expect(run.code).toBe(0);
      expect(run.err).toBe(
        `Ignoring the announcement of a sandbox served at ${other.url}: another process answers there now.\n${EMBEDDED_NOTICE}`,
      );
      expect(other.seen.map((s) => s.path)).toEqual(['/__sandbox/clock']);
      expect(other.seen[0]!.headers.authorization).toBeUndefined();
      // Under the state's lock, an announcement still there is stale: the embedded sandbox removed it.
      expect(existsSync(announcementFile())).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('a server that names no instance is not the one announced either', async () => {
    const other = await impostor();
    try {
      writeFileSync(announcementFile(), announcement({ url: other.url }), { mode: 0o600 });
      expect((await topup(['mock', 'pay', 'INV1'])).err).toMatch(/^Ignoring the announcement .*: another process answers there now\.\n/);
    } finally {
      await other.close();
    }
  });

  it('nothing listening at the URL: ignored with a notice', async () => {
    const other = await impostor();
    const url = other.url;
    await other.close();
    writeFileSync(announcementFile(), announcement({ url }), { mode: 0o600 });
    const run = await topup(['balance']);
    expect(run).toMatchObject({ code: 0 });
    expect(run.err).toBe(`Ignoring the announcement of a sandbox served at ${url}: nothing answers there now.\n${EMBEDDED_NOTICE}`);
  });

  it.each([
    ['not JSON', '{"version":1,', 'it is not JSON'],
    ['an array', '[]', 'it is not a JSON object'],
    ['another version', announcement({ version: 2 }), 'its version is not 1'],
    ['a pid that is no pid', announcement({ pid: -1 }), 'its pid is not a process id'],
    ['an instance with other characters', announcement({ instance: 'x\u001b[31m' }), 'its instance is not an instance id'],
    ['a host elsewhere', announcement({ url: 'http://example.com:4010' }), "its url's host example.com is not a loopback address"],
    ['https', announcement({ url: 'https://127.0.0.1:4010' }), 'its url is not http'],
    [
      'a path',
      announcement({ url: 'http://127.0.0.1:4010/api' }),
      'its url is not an origin alone (no path, query, user or trailing slash)',
    ],
    [
      'a user',
      announcement({ url: 'http://me@127.0.0.1:4010' }),
      'its url is not an origin alone (no path, query, user or trailing slash)',
    ],
    ['too large', `${announcement({})}${' '.repeat(5000)}`, 'it is larger than 4096 bytes'],
  ])('%s: refused with a notice, never a crash, and nothing is contacted', async (_name, text, reason) => {
    writeFileSync(announcementFile(), text, { mode: 0o600 });
    const run = await topup(['balance']);
    expect(run.code).toBe(0);
    expect(run.err).toBe(`Ignoring ${announcementFile()}: ${reason}.\n${EMBEDDED_NOTICE}`);
  });

  it('a link, or a file others can write, is refused', async () => {
    const elsewhere = join(config.dir, 'elsewhere.json');
    writeFileSync(elsewhere, announcement({}), { mode: 0o600 });
    symlinkSync(elsewhere, announcementFile());
    expect((await topup(['balance'])).err).toBe(`Ignoring ${announcementFile()}: it is a symbolic link.\n${EMBEDDED_NOTICE}`);
    // Removed as stale under the state's lock: the link, never what it points at.
    expect(existsSync(announcementFile())).toBe(false);
    expect(readFileSync(elsewhere, 'utf8')).toBe(announcement({}));
    writeFileSync(announcementFile(), announcement({}), { mode: 0o600 });
    chmodSync(announcementFile(), 0o666);
    expect((await topup(['balance'])).err).toBe(`Ignoring ${announcementFile()}: others can write to it.\n${EMBEDDED_NOTICE}`);
  });

  it('a process that is gone: ignored without a request', async () => {
    // The highest pid Linux hands out is 4194304: one above is never running.
    writeFileSync(announcementFile(), announcement({ pid: 4_194_305 }), { mode: 0o600 });
    expect((await topup(['balance'])).err).toBe(
      `Ignoring the announcement of a sandbox served at http://127.0.0.1:9: its process (pid 4194305) is gone.\n${EMBEDDED_NOTICE}`,
    );
  });
});
