import { get as httpGet } from 'node:http';
import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { runCli, type RunOptions } from './run-cli.js';
import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { magicValues } from '../../mocks/store/magic-values.js';
import { existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { defaults } from '../../src/client/index.js';
import { embeddedJsonError, EMBEDDED_NOTICE, LEAN } from '../support/cli-assertions.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { serveSandbox } from './run-cli.js';
import { controlCalls } from '../../mocks/routes/control-calls.js';
import { controlRouter } from '../../mocks/routes/control.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const topup = (args: string[], options: RunOptions = {}) => runCli(config.dir, args, options);

describe('offline sandbox through the CLI', () => {
  it('persists state between runs: a deposit created in one run is paid in the next and credits the balance', async () => {
    const created = await topup(['mock', 'deposit', '50000']);
    expect(created.code).toBe(0);
    const invoice = created.out.trim();
    expect(invoice).toMatch(/^INV\d+$/);
    expect(statSync(join(config.dir, 'sandbox-state.json')).mode & 0o777).toBe(0o600);

    expect((await topup(['mock', 'pay', invoice])).code).toBe(0);
    const fixtures = await topup(['mock', 'fixtures', '--json']);
    const demo = fixtureAccount(JSON.parse(fixtures.out), 'demo');
    expect(demo.balance).toBe(50_000);
  });

  it.each([
    {
      name: 'paying an invoice twice is a rejected business rule',
      setup: true,
      args: (inv: string) => ['mock', 'pay', inv],
      code: 5,
      err: /\nError: Invoice INV\d+ is already paid\.\n$/,
    },
    { name: 'an unknown invoice is an error', setup: false, args: () => ['mock', 'pay', 'INV999'], code: 1, err: /INV999 was not found/ },
    {
      name: 'a deposit amount that is not a number is a usage error',
      setup: false,
      args: () => ['mock', 'deposit', 'lots'],
      code: 2,
      err: /amount must be a whole number/,
    },
    {
      name: 'a deposit below the minimum is rejected',
      setup: false,
      args: () => ['mock', 'deposit', '5'],
      code: 5,
      err: /from 10000 to 50000000/,
    },
    {
      name: 'an unknown sandbox account is an error',
      setup: false,
      args: () => ['mock', 'deposit', '50000', '--account', 'nobody'],
      code: 1,
      err: /No sandbox account is named 'nobody'/,
    },
    {
      name: 'an unknown subcommand is a usage error',
      setup: false,
      args: () => ['mock', 'teleport'],
      code: 2,
      err: /unknown command 'teleport'/,
    },
  ])('$name (exit $code)', async ({ setup, args, code, err }) => {
    let invoice = '';
    if (setup) {
      invoice = (await topup(['mock', 'deposit', '50000', '--paid'])).out.trim();
    }
    const result = await topup(args(invoice));
    expect(result.code).toBe(code);
    expect(result.err).toMatch(err);
    expect(result.out).toBe('');
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it('with --json, an error is the error envelope on stderr and stdout stays empty', async () => {
    const result = await topup(['--json', 'mock', 'pay', 'INV999']);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(embeddedJsonError(result.err)).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', kind: 'not_found' },
      message: 'Invoice INV999 was not found.',
    });
  });

  it('reset returns the sandbox to its seed', async () => {
    await topup(['mock', 'deposit', '50000', '--paid']);
    expect((await topup(['mock', 'reset'])).code).toBe(0);
    const fixtures = JSON.parse((await topup(['mock', 'fixtures', '--json'])).out);
    expect(fixtureAccount(fixtures, 'demo').balance).toBe(0);
  });

  it('fixtures --json has the documented shape', async () => {
    const fixtures = JSON.parse((await topup(['mock', 'fixtures', '--json'])).out);
    expect(fixtures.accounts.map((a: { name: string; mode: string }) => `${a.name}:${a.mode}`)).toEqual([
      'demo:sandbox',
      'rich:production',
      'broke:production',
      'unlinked:production',
      'dual:production',
      'dual:sandbox',
    ]);
    expect(fixtures.platform.valid_orders.map((o: { order_type?: string }) => o.order_type ?? 'gamepass')).toEqual(
      expect.arrayContaining(['gamepass', 'vip_server']),
    );
    expect(fixtures.platform.invalid_orders.length).toBeGreaterThanOrEqual(3);
  });

  it('fixtures lists the magic orders: plain rows piped, a titled table on a terminal', async () => {
    const piped = await topup(['mock', 'fixtures']);
    expect(piped.code).toBe(0);
    const rows = magicValues.map((v) => `${v.outcome}\t${v.pass_id}\t${v.ends}`);
    expect(rows[1]).toBe('invoice_expires\t9902\tthe unpaid invoice expires after 30 s of sandbox time; the order is cancelled');
    expect(piped.out.endsWith(`\n\n${rows.join('\n')}\n`)).toBe(true);

    const tty = await topup(['mock', 'fixtures', '--no-color'], { tty: true });
    expect(tty.out).toContain('\nMagic orders (they end by themselves, with any token):\n');
    expect(tty.out).toMatch(/\nOUTCOME\s+PASS\s+ENDS\n/);
    expect(tty.out).toMatch(/\norder_refunded\s+9903\s+once paid \(by balance: at once\), the order fails/);
    expect(tty.out.endsWith('\nOrder them in place 5900 for platform user TestOutcomes.\n')).toBe(true);
  });

  it('packages: piped output is plain tab-separated rows, terminal output is an aligned table', async () => {
    const piped = await topup(['packages']);
    expect(piped.code).toBe(0);
    expect(piped.out.split('\n')[0]).toBe('CR80\t80 Credits\t80\t10000');
    expect(piped.err).toMatch(/embedded offline sandbox/);
    const tty = await topup(['packages', '--no-color'], { tty: true });
    expect(tty.out.split('\n')[0]).toMatch(/^CODE\s+NAME\s+CREDITS\s+PRICE$/);
    expect(tty.out).toContain('Rp 10.000');
    expect(tty.out).not.toMatch(ANSI_ESCAPE);
  });

  it('packages --json prints exactly the data object, and on stderr only the embedded-sandbox notice (stderr is never data)', async () => {
    const result = await topup(['--json', 'packages']);
    const data = JSON.parse(result.out);
    expect(Object.keys(data).sort()).toEqual(['limit', 'packages']);
    expect(result.err).toBe(EMBEDDED_NOTICE);
  });
});

describe('topup mock serve', () => {
  it('serves the sandbox over HTTP, prints its URL and tokens, and stops cleanly when interrupted', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0'], io, { signal: controller.signal });
    const info = await waitForJsonLine(io.out);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.accounts.map((a: { token: string }) => a.token.slice(0, 11))).toContain('topup_test_');

    const health = await fetch(`${info.url}/api/v1/health`);
    expect(health.status).toBe(200);
    const openapi = (await (await fetch(`${info.url}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toBe('3.1.0');

    controller.abort();
    expect(await running).toBe(0);
    await expect(fetch(`${info.url}/api/v1/health`)).rejects.toThrow();
  });

  it('--host other than loopback warns that the control API is reachable; --allow-host names get it', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', '--host', '0.0.0.0', '--allow-host', 'sandbox'], io, {
      signal: controller.signal,
    });
    const info = await waitForJsonLine(io.out);
    expect(io.err()).toMatch(
      /^Warning: listening on 0\.0\.0\.0, so the sandbox and its control API .* can be reached from that network\.\nThe control API and the sandbox's pages answer only to loopback names and sandbox: that stops web browsers \(DNS rebinding, pages on other sites\), not other clients on the network, which can send Host: localhost\.\nSet a control secret \(TOPUP_SANDBOX_CONTROL_SECRET, or --control-secret-file with a 0600 file\) so that only those who hold it can drive the sandbox\.\n/,
    );
    const port = new URL(info.url).port;
    const statusUnder = (host: string) =>
      new Promise<number>((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path: '/__sandbox/fixtures', headers: { host }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
    expect(await statusUnder(`sandbox:${port}`)).toBe(200);
    expect(await statusUnder(`elsewhere.example:${port}`)).toBe(403);
    controller.abort();
    expect(await running).toBe(0);
  });

  it('on loopback (the default) it does not warn', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0'], io, { signal: controller.signal });
    await waitForJsonLine(io.out);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.err()).toBe('');
  });

  it('on a terminal, lists every control call in a compact block', async () => {
    const controller = new AbortController();
    // 130 columns: every call fits its line (narrower, what it does goes below it: widths.test.ts).
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir }, tty: true, columns: 130 });
    const running = main(['--no-color', 'mock', 'serve', '--port', '0'], io, { signal: controller.signal });
    for (let i = 0; i < 200 && !io.err().includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 10));
    const url = /Sandbox listening on (\S+)/.exec(io.out())![1]!;
    controller.abort();
    expect(await running).toBe(0);
    expect(io.err()).toBe(
      [
        '',
        `Control API at ${url}/__sandbox (changes need X-Topup-Sandbox: 1 or a JSON body):`,
        '  POST /invoices/<invoice>/pay|expire|fail   move an invoice',
        '  POST /orders/<invoice>/complete|fail       move a paid order (fail refunds it)',
        '  POST /deposits                             add a deposit: {"amount": 50000, "paid": true, "account": "demo"}',
        '  POST /clock                                move the clock on: {"advance_seconds": 3600}',
        '  POST /reset                                back to how it started: seed, faults, empty journal (?keep=state,faults,requests)',
        '  GET|PUT /state                             the whole state as a snapshot; load one (a named starting state)',
        '  GET|PUT|POST|DELETE /faults                injected faults and how often each fired; POST adds rules',
        '  GET /accounts|orders|invoices|deposits     the state, newest first (?account=&status=&limit=)',
        '  GET /invoices/<invoice>                    one invoice',
        '  GET /clock|fixtures                        the clock; the test accounts and bodies',
        '  GET|DELETE /requests                       the request journal (?method=&status=&path=)',
        '  GET /requests/<id>|stream                  one request; new ones as they come (SSE)',
        'Press Ctrl-C to stop.',
        'Sandbox stopped.',
        '',
      ].join('\n'),
    );
  });

  it("the banner's control calls are exactly the control API's routes", () => {
    // `a|b` in a method or a segment stands for each; the dashboard's own page is printed as `dashboard` above.
    const expand = (call: string) => {
      const [methods, path] = call.split(' ') as [string, string];
      const paths = path
        .split('/')
        .reduce<string[]>((heads, segment) => heads.flatMap((head) => segment.split('|').map((s) => `${head}/${s}`)), [''])
        .map((p) => `/__sandbox${p.slice(1)}`);
      return methods.split('|').flatMap((method) => paths.map((p) => `${method} ${p}`));
    };
    const listed = controlCalls.flatMap((c) => expand(c.call));
    const routed = [...controlRouter.routes.map((r) => `${r.method} ${r.path}`), 'GET /__sandbox/requests/stream'];
    expect(listed.sort()).toEqual(routed.filter((r) => r !== 'GET /__sandbox/').sort());
  });

  it('--state keeps orders across a restart', async () => {
    const file = join(config.dir, 'state.json');
    const first = await serve(['--state', file]);
    const rich = fixtureAccount(first.info, 'rich');
    const created = await fetch(`${first.info.url}/api/v1/me/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
    });
    expect(created.status).toBe(201);
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    await first.stop();

    const second = await serve(['--state', file]);
    const order = await fetch(`${second.info.url}/api/v1/me/orders/${code}`, { headers: { authorization: `Bearer ${rich.token}` } });
    expect(order.status).toBe(200);
    await second.stop();
  });

  it('--auto-pay, --auto-expire and --max-invoices show in the banner; plain numbers are seconds', async () => {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const args = ['mock', 'serve', '--port', '0', '--auto-pay', '5s', '--auto-expire', '2m', '--max-invoices', '12000'];
    const running = main(args, io, { signal: controller.signal });
    for (let i = 0; i < 200 && !io.out().includes('capacity'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(io.out()).toContain(
      '\nauto-pay: every new invoice is paid after 5 s\nauto-expire: every new invoice expires after 2 min\ncapacity: at most 12,000 invoices, then 507 SANDBOX_FULL\n',
    );
    controller.abort();
    expect(await running).toBe(0);

    const json = await serve(['--auto-pay', '1.5']);
    expect(json.info).toMatchObject({ auto_pay_ms: 1_500, auto_expire_ms: null });
    await json.stop();
  });

  it('--auto-pay: a bot polling the status sees paid, and with --state it is still paid after a restart', async () => {
    const file = join(config.dir, 'state.json');
    const first = await serve(['--state', file, '--auto-pay', '300ms']);
    expect(first.info).toMatchObject({ auto_pay_ms: 300, auto_expire_ms: null });
    const demo = fixtureAccount(first.info, 'demo');
    const headers = { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.info.url}/api/v1/me/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
    });
    const code = ((await created.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code;
    const statusOf = async (url: string) =>
      ((await (await fetch(`${url}/api/v1/me/invoices/${code}/status`, { headers })).json()) as { data: { payment_status: string } }).data
        .payment_status;
    expect(await statusOf(first.info.url)).toBe('pending');
    let status = 'pending';
    for (let i = 0; i < 100 && status === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await statusOf(first.info.url);
    }
    expect(status).toBe('paid');
    await first.stop();

    // Without --auto-pay now: the payment must have been written, not made again.
    const second = await serve(['--state', file]);
    expect(await statusOf(second.info.url)).toBe('paid');
    await second.stop();
  });

  it('--max-invoices: the banner says it, and past it an order is one sentence (exit 7) that changes nothing', async () => {
    const served = await serve(['--fresh', '--max-invoices', '1']);
    expect(served.info).toMatchObject({ max_invoices: 1 });
    const env = { TOPUP_TOKEN: fixtureAccount(served.info, 'demo').token };
    const create = ['--base-url', served.info.url, 'orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'];
    expect(await topup(create, { env })).toMatchObject({ code: 0, out: expect.stringMatching(/INV\d+/) });

    const refused = await topup(create, { env });
    expect(refused.code).toBe(7);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(
      'The sandbox is full: it keeps at most 1 invoice (orders and deposits together) and holds 1. Reset it to go on (topup mock reset, POST /__sandbox/reset).',
    );
    const listed = await topup(['--base-url', served.info.url, '--json', 'orders', 'list'], { env });
    expect(JSON.parse(listed.out).orders).toHaveLength(1);
    await served.stop();

    const defaults = await serve(['--fresh']);
    expect(defaults.info).toMatchObject({ max_invoices: 200_000 });
    await defaults.stop();
  });

  it('a saved state past the longest text node parses is refused by its size, for --seed and mock state load', async () => {
    const file = join(config.dir, 'huge-state.json');
    writeFileSync(file, '');
    truncateSync(file, 513 * 2 ** 20);
    const message = /^Error: .*huge-state\.json is more than 512 MiB, the most a saved state can be\.\n$/;
    const seed = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    expect(await main(['mock', 'serve', '--port', '0', '--seed', file], seed)).toBe(2);
    expect(seed.err()).toMatch(message);
    expect(seed.out()).toBe('');
    const loaded = await topup(['mock', 'state', 'load', file]);
    expect(loaded.code).toBe(2);
    expect(loaded.err).toMatch(message);
  });

  it('mock state save of a state past what the control API fetches says what keeps it instead, and writes nothing', async () => {
    const { createSandbox } = await import('../../mocks/index.js');
    const snapshot = (await createSandbox()).snapshot();
    (snapshot.tables.articles[0] as { content: string }).content = 'x'.repeat(81 * 2 ** 20);
    const seed = join(config.dir, 'large-seed.json');
    writeFileSync(seed, JSON.stringify(snapshot));
    const served = await serve(['--seed', seed]);
    const out = join(config.dir, 'saved.json');
    const saved = await topup(['mock', 'state', 'save', out, '--base-url', served.info.url]);
    expect(saved).toMatchObject({ code: 1, out: '' });
    expect(saved.err).toContain(
      "The sandbox's state is larger than the 80 MiB `mock state save` fetches through the control API; a sandbox served with --state FILE keeps its state in FILE (stop it, then copy the file).",
    );
    expect(existsSync(out)).toBe(false);
    await served.stop();
  });

  it('a port that is taken is one clear error, not a stack trace', async () => {
    const first = await serve([]);
    const port = new URL(first.info.url).port;
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const code = await main(['mock', 'serve', '--fresh', '--port', port], io, { signal: new AbortController().signal });
    expect(code).toBe(1);
    expect(io.err()).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    await first.stop();
  });

  it.each([
    [['--port', 'http'], /port must be a whole number/],
    [['--port', '70000'], /port must be from 0 to 65535/],
    [
      ['--auto-pay', '5x'],
      /argument '5x' is invalid\. auto-pay must be a duration such as 500ms, 5s or 2m \(a plain number is seconds\)\.\n$/,
    ],
    [['--auto-expire', '-1'], /auto-expire must be a duration such as 500ms, 5s or 2m/],
    [['--max-invoices', '0'], /max invoices must be from 1 to 200000\.\n$/],
    [['--max-invoices', '200001'], /max invoices must be from 1 to 200000\.\n$/],
    [
      ['--faults', '503=10%@create_order'],
      /^Error: Invalid faults: rule 1 names no route 'create_order' \(did you mean createOrder\?\); routes are getHealth, .*, createOrder, .*\.\n/,
    ],
    [['--faults', '503/tims=1'], /^Error: Invalid fault '503\/tims=1'\. Examples: .*503\/retry-after=1\/times=1@createOrder/],
  ])('rejects bad options %j with a usage error', async (args, message) => {
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    expect(await main(['mock', 'serve', ...args], io)).toBe(2);
    expect(io.err()).toMatch(message);
  });

  async function serve(args: string[]) {
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', ...args], io, { signal: controller.signal });
    const info = await waitForJsonLine(io.out);
    return {
      info,
      stop: async () => {
        controller.abort();
        expect(await running).toBe(0);
      },
    };
  }
});

/** Up to about 10 s: an 81 MiB seed (below) is read, parsed and checked first, on a machine the other workers share. */
async function waitForJsonLine(read: () => string) {
  for (let i = 0; i < 1000; i++) {
    const line = read().split('\n')[0];
    if (line) return JSON.parse(line);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('mock serve printed nothing');
}

describe('a damaged offline state file', () => {
  it('is one clear error that points to reset, and reset recovers from it', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(config.dir, 'sandbox-state.json'), '{"version": 1, "tabl');
    const broken = await topup(['packages']);
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(/state is unreadable .*not valid JSON.*run `topup mock reset`/);
    expect(broken.out).toBe('');

    expect((await topup(['mock', 'reset'])).code).toBe(0);
    expect((await topup(['packages'])).code).toBe(0);
  });

  it('one longer than node can parse is refused by its size, unread and kept as it is', async () => {
    const { statSync, truncateSync, writeFileSync } = await import('node:fs');
    const file = join(config.dir, 'sandbox-state.json');
    writeFileSync(file, '');
    truncateSync(file, 600 * 2 ** 20);
    const refused = await topup(['packages']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `state is unreadable (The state file ${file} is 600 MiB, more than the 512 MiB that node can parse as one text); run \`topup mock reset\` to start over.`,
    );
    expect(refused.out).toBe('');
    expect(statSync(file).size).toBe(600 * 2 ** 20);
  });

  it('a journal longer than any the sandbox writes is refused by its size, unread, and reset starts over', async () => {
    const { statSync, truncateSync } = await import('node:fs');
    expect((await topup(['mock', 'deposit', '10000', '--paid'])).code).toBe(0);
    const journal = join(config.dir, 'sandbox-state.json.journal');
    expect(statSync(journal).size).toBeGreaterThan(0);
    truncateSync(journal, 600 * 2 ** 20);
    const refused = await topup(['balance']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `state is unreadable (The state journal ${journal} is 600 MiB, more than the 512 MiB a journal can grow to before it becomes a new snapshot); run \`topup mock reset\` to start over.`,
    );
    expect(refused.out).toBe('');
    expect(statSync(journal).size).toBe(600 * 2 ** 20);

    expect((await topup(['mock', 'reset'])).code).toBe(0);
    expect(statSync(journal).size).toBeLessThan(2 ** 20);
    expect((await topup(['balance'])).code).toBe(0);
  });

  it('a damaged journal beside it is a clear error naming the line, and repair or reset recovers from it', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    for (let i = 0; i < 3; i++) expect((await topup(['mock', 'deposit', '10000', '--paid'])).code).toBe(0);
    const journal = join(config.dir, 'sandbox-state.json.journal');
    const lines = readFileSync(journal, 'utf8').split('\n');
    expect(lines.filter((l) => l !== '').length).toBeGreaterThanOrEqual(3);
    lines[0] = '{"journal_id": 7';
    writeFileSync(journal, lines.join('\n'));
    const broken = await topup(['balance']);
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(
      /journal \S+ is damaged at line 1 \(it has no checksum\); run `topup mock state repair` .* or `topup mock reset` to start over\.\n$/,
    );
    expect(broken.out).toBe('');

    const repaired = await topup(['mock', 'state', 'repair']);
    expect(repaired.code).toBe(0);
    expect(repaired.err).toMatch(/^Dropped line 1 of \S+ \(it has no checksum, \d+ bytes\)\.\n/);
    expect((await topup(['balance'])).code).toBe(0);
    expect((await topup(['mock', 'reset'])).code).toBe(0);
    expect((await topup(['--json', 'balance'])).out).toMatch(LEAN ? /^\{\}\n$/ : /"balance":\s*0\b/);
  });
});

describe('mock commands against a served sandbox (--base-url)', () => {
  it('pay, deposit and fixtures act on the served sandbox, with an interrupt signal that never fires', async () => {
    const served = await serveSandbox();
    try {
      const signal = new AbortController().signal;
      const created = await topup(['mock', 'deposit', '50000', '--account', 'broke', '--base-url', served.url], { signal });
      expect(created).toMatchObject({
        code: 0,
        err: `Deposit created. Pay it with: topup --base-url ${served.url} mock pay ${created.out.trim()}\n`,
      });
      expect(await topup(['mock', 'pay', created.out.trim(), '--base-url', served.url], { signal, stderrTTY: true, color: false })).toEqual(
        {
          code: 0,
          out: '',
          err: `✓ Paid ${created.out.trim()}.\n`,
        },
      );
      const fixtures = await topup(['--json', 'mock', 'fixtures', '--base-url', served.url], { signal });
      expect(fixtures.code).toBe(0);
      expect(fixtureAccount(JSON.parse(fixtures.out), 'broke').balance).toBe(50_000);
      const refused = await topup(['mock', 'pay', created.out.trim(), '--base-url', served.url], { signal });
      expect(refused).toMatchObject({ code: 5, out: '' });
      expect(refused.err).toBe(`Error: Invoice ${created.out.trim()} is already paid.\n`);
      // The served sandbox's refusal keeps its code, as the embedded one's does.
      const refusedJson = await topup(['--json', 'mock', 'pay', created.out.trim(), '--base-url', served.url], { signal });
      expect(refusedJson.code).toBe(5);
      expect(JSON.parse(refusedJson.err)).toMatchObject({ success: false, error: { code: 'INVALID_STATE' } });
    } finally {
      await served.close();
    }
  });

  it("deposit without --account goes to the token's account, as its help says; with no token, to demo", async () => {
    const served = await serveSandbox();
    try {
      const help = await topup(['mock', 'deposit', '--help']);
      expect(help.out.replace(/\s+/g, ' ')).toContain("for the token's account (the demo account without one)");
      const balanceOf = (name: 'rich' | 'demo') => served.sandbox.store.db.accounts.all().find((a) => a.name === name)!.balance;
      const [rich, demo] = [balanceOf('rich'), balanceOf('demo')];
      const env = { TOPUP_TOKEN: served.token('rich') };
      expect((await topup(['mock', 'deposit', '50000', '--paid', '--base-url', served.url], { env })).code).toBe(0);
      expect([balanceOf('rich') - rich, balanceOf('demo') - demo]).toEqual([50_000, 0]);
      expect((await topup(['mock', 'deposit', '20000', '--paid', '--base-url', served.url])).code).toBe(0);
      expect([balanceOf('rich') - rich, balanceOf('demo') - demo]).toEqual([50_000, 20_000]);
    } finally {
      await served.close();
    }
  });

  it('deposit --json prints the new deposit the same way from the embedded and a served sandbox', async () => {
    const served = await serveSandbox();
    try {
      const embedded = await topup(['--json', 'mock', 'deposit', '20000', '--account', 'rich']);
      const remote = await topup(['--json', 'mock', 'deposit', '20000', '--account', 'rich', '--base-url', served.url]);
      for (const { code, out } of [embedded, remote]) {
        expect(code).toBe(0);
        const printed = JSON.parse(out);
        expect(printed).toEqual({ invoice_code: printed.deposit.invoice_code, deposit: expect.any(Object) });
        expect(printed.deposit).toMatchObject({ type: 'deposit', amount: 20_000, payment_status: 'pending', order: null });
      }
      const shape = (out: string) => Object.keys(JSON.parse(out).deposit).sort();
      expect(shape(remote.out)).toEqual(shape(embedded.out));
    } finally {
      await served.close();
    }
  });

  it('a sandbox that is not running is one clear sentence and exit 7', async () => {
    const stalled = await stallingSandbox('silent');
    await stalled.close();
    const result = await topup(['mock', 'pay', 'INV1', '--base-url', stalled.url]);
    expect(result).toEqual({
      code: 7,
      out: '',
      err: `Error: Could not reach ${stalled.url}: connection refused: nothing is listening there (ECONNREFUSED). Is \`topup mock serve\` running there?\n`,
    });
  });

  describe('a sandbox that stalls', () => {
    let stalled: StallingSandbox | undefined;
    afterEach(async () => {
      vi.useRealTimers();
      await stalled?.close();
      stalled = undefined;
    });

    // The global fetch resolves at the headers, so its body is read under the timeout separately;
    // the CLI's own fetch (the default) reads the whole body before it resolves.
    const cases = [
      {
        name: 'accepts the connection and never answers',
        stall: 'silent',
        fetch: 'cli',
        args: ['mock', 'pay', 'INV1'],
        // A control POST waits for the token-less check that the target is a sandbox: that check is what stalls.
        request: 'GET /__sandbox/clock',
      },
      {
        name: 'sends its headers, then stalls mid-body',
        stall: 'mid-body',
        fetch: 'cli',
        args: ['mock', 'deposit', '50000'],
        request: 'GET /__sandbox/clock',
      },
      {
        name: 'sends its headers, then stalls mid-body (a fetch that resolves at the headers)',
        stall: 'mid-body',
        fetch: 'global',
        args: ['mock', 'fixtures'],
        request: 'GET /__sandbox/fixtures',
      },
    ] as const;

    it.each(cases)(
      "$name: TimeoutError at the client's timeout → exit 7, one sentence, sent once",
      { timeout: 5_000 },
      async ({ stall, fetch, args, request }) => {
        stalled = await stallingSandbox(stall);
        const answered = fetch === 'global' ? headersSeen() : undefined;
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        let done = false;
        const running = topup([...args, '--base-url', stalled.url], answered ? { fetch: answered.fetch } : {}).finally(() => (done = true));
        await stalled.stalling;
        await answered?.seen;
        vi.advanceTimersByTime(defaults.timeout - 1);
        await settle();
        expect(done).toBe(false);
        vi.advanceTimersByTime(1);
        expect(await running).toEqual({
          code: 7,
          out: '',
          err: `Error: The sandbox at ${stalled.url} did not answer within ${defaults.timeout / 1000} s.\n`,
        });
        await stalled.closed;
        expect(stalled.requests).toEqual([request]);
      },
    );

    it.each(cases)('$name: Ctrl-C ends the wait at once → exit 130', { timeout: 5_000 }, async ({ stall, fetch, args }) => {
      stalled = await stallingSandbox(stall);
      const answered = fetch === 'global' ? headersSeen() : undefined;
      const controller = new AbortController();
      const running = topup([...args, '--base-url', stalled.url], {
        signal: controller.signal,
        ...(answered ? { fetch: answered.fetch } : {}),
      });
      await stalled.stalling;
      await answered?.seen;
      const abortedAt = performance.now();
      controller.abort();
      expect(await running).toEqual({ code: 130, out: '', err: '' });
      expect(performance.now() - abortedAt).toBeLessThan(500);
      await stalled.closed;
    });
  });
});

interface StallingSandbox {
  url: string;
  /** What it was asked, as `METHOD path`. */
  requests: string[];
  /** Resolves once it has a request and has sent all it ever will. */
  stalling: Promise<void>;
  /** Resolves when the client has closed the connection. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** A loopback server that takes a request and then never finishes its answer: `mock serve` cannot be made to stall. */
async function stallingSandbox(stall: 'silent' | 'mid-body'): Promise<StallingSandbox> {
  const requests: string[] = [];
  let stalling!: () => void;
  let closed!: () => void;
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.socket.once('close', () => closed());
    if (stall === 'silent') return stalling();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"success":true,', () => stalling());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stalling: new Promise((resolve) => (stalling = resolve)),
    closed: new Promise((resolve) => (closed = resolve)),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The global fetch, telling when it has resolved with the headers. */
function headersSeen(): { fetch: typeof globalThis.fetch; seen: Promise<void> } {
  let seen!: () => void;
  return {
    seen: new Promise((resolve) => (seen = resolve)),
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init);
      seen();
      return response;
    },
  };
}

/** Lets pending I/O callbacks and promise jobs run (setImmediate is not faked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('topup mock state save|load and mock serve --seed', () => {
  it('saves the embedded state to a 0600 file, and loading it brings that state back', async () => {
    const saved = join(config.dir, 'start.json');
    expect((await topup(['mock', 'state', 'save', saved])).code).toBe(0);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    const deposit = (await topup(['mock', 'deposit', '50000'])).out.trim();
    expect((await topup(['mock', 'pay', deposit])).code).toBe(0);
    expect((await topup(['mock', 'pay', deposit])).code).toBe(5);
    const loaded = await topup(['mock', 'state', 'load', saved]);
    expect(loaded).toMatchObject({ code: 0, out: '' });
    // The deposit made after the save is gone.
    const after = await topup(['--json', 'mock', 'state', 'save']);
    expect(JSON.stringify(JSON.parse(after.out))).not.toContain(deposit);
    expect(JSON.parse(after.out)).toEqual(JSON.parse(readFileSync(saved, 'utf8')));
  });

  it('mock state save into a folder that does not exist, or onto a folder: one sentence naming the file, not the temporary one', async () => {
    const missing = join(config.dir, 'no-such-folder', 'x.json');
    const inMissing = await topup(['mock', 'state', 'save', missing]);
    expect(inMissing.code).toBe(1);
    expect(inMissing.err).toMatch(new RegExp(`\\nError: Cannot write ${missing}: its folder does not exist\\.\\n$`));
    const folder = join(config.dir, 'a-folder');
    mkdirSync(folder);
    const onFolder = await topup(['mock', 'state', 'save', folder]);
    expect(onFolder.code).toBe(1);
    expect(onFolder.err).toMatch(new RegExp(`\\nError: (Cannot write|Refusing to use) ${folder}: .+\\.\\n$`));
    expect(onFolder.err).not.toContain('.tmp');
  });

  it.each([
    [['missing.json'], 2, /^Error: Cannot read .*missing\.json: no such file\.\n$/],
    [['not-json.txt'], 2, /^Error: .*not-json\.txt is not JSON; save a state with `topup mock state save FILE`\.\n$/],
    [['wrong.json'], 5, /^Error: The state cannot be loaded: Not a sandbox state file of version 1\.\n$/],
  ])('mock state load %j that cannot be loaded is exit %i with one sentence, and changes nothing', async (args, code, message) => {
    writeFileSync(join(config.dir, 'not-json.txt'), 'hello');
    writeFileSync(join(config.dir, 'wrong.json'), '{"version": 9}');
    const before = (await topup(['mock', 'state', 'save'])).out;
    const result = await topup(['mock', 'state', 'load', join(config.dir, args[0]!)]);
    expect(result.code).toBe(code);
    expect(result.err.split('\n').filter((line) => line.startsWith('Error'))).toHaveLength(1);
    expect(result.err.slice(result.err.indexOf('Error'))).toMatch(message);
    expect((await topup(['mock', 'state', 'save'])).out).toBe(before);
  });

  it('mock serve --seed starts from a saved state; a bad seed is exit 2 before anything listens', async () => {
    const seedFile = join(config.dir, 'seed.json');
    const deposit = (await topup(['mock', 'deposit', '50000'])).out.trim();
    await topup(['mock', 'state', 'save', seedFile]);

    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const running = main(['--json', 'mock', 'serve', '--port', '0', '--seed', seedFile], io, { signal: controller.signal });
    const info = await waitForJsonLine(io.out);
    expect(info.seed).toBe(seedFile);
    const invoice = await fetch(`${info.url}/__sandbox/invoices/${deposit}`);
    expect(invoice.status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);

    writeFileSync(seedFile, '{"version": 1, "tables": {}}');
    const bad = await topup(['mock', 'serve', '--port', '0', '--seed', seedFile]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^Error: .*seed\.json cannot be loaded: clock_offset_ms must be a whole number of milliseconds that keeps the sandbox clock between 1970 and 9999\.\n$/m,
    );
  });
});

describe('topup mock deposit --mode, for the account with both keys', () => {
  it("credits the chosen world's balance only; a mode the account has no key for is refused", async () => {
    expect((await topup(['mock', 'deposit', '20000', '--paid', '--account', 'dual', '--mode', 'sandbox'])).code).toBe(0);
    expect((await topup(['mock', 'deposit', '30000', '--paid', '--account', 'dual'])).code).toBe(0);
    const fixtures = JSON.parse((await topup(['--json', 'mock', 'fixtures'])).out) as {
      accounts: { name: string; mode: string; balance: number }[];
    };
    expect(fixtures.accounts.filter((a) => a.name === 'dual').map((a) => `${a.mode} ${a.balance}`)).toEqual([
      'production 530000',
      'sandbox 20000',
    ]);
    const refused = await topup(['mock', 'deposit', '20000', '--account', 'demo', '--mode', 'production']);
    expect(refused.code).toBe(5);
    // The control API names the field at fault (`mode`, the flag's), which the sentence does not.
    expect(refused.err).toMatch(/Error: The account 'demo' has no production key, so no production data\.\nField at fault: mode\.\n$/);
    expect((await topup(['mock', 'deposit', '20000', '--mode', 'test'])).code).toBe(2);
  });
});
