import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { EMBEDDED_NOTICE, expectUsageError, LEAN } from '../support/cli-assertions.js';
import { useServedCli, type ServedSandbox } from './run-cli.js';

let served: ServedSandbox;
const topup = useServedCli(
  (context) => {
    served = context.served;
  },
  { reset: true },
);

/** A server that is not a topup sandbox: it answers every path with its own 404 envelope, as a real shop would. */
let foreign: { server: Server; url: string };
beforeAll(async () => {
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false,"message":"Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  foreign = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
afterAll(() => new Promise<void>((resolve) => foreign.server.close(() => resolve())));

const login = (profile: string, name: 'rich' | 'demo' = 'demo') =>
  topup(['auth', 'login', '--with-token', '--base-url', served.url, '--profile', profile], { stdin: `${served.token(name)}\n` });

describe('the target rule through the CLI', () => {
  it("TOPUP_TOKEN without a server is a usage error, never the sandbox's fake balance (also with --json)", async () => {
    for (const args of [['balance'], ['--json', 'balance'], ['auth', 'status'], ['mock', 'pay', 'INV1']]) {
      const result = await topup(args, { env: { TOPUP_TOKEN: served.token('rich') } });
      expect(result.code).toBe(2);
      expect(result.out).toBe('');
      const expected = 'TOPUP_TOKEN is set but no server is: set TOPUP_BASE_URL, log in with `topup auth login`, or pass --mock.';
      if (args[0] === '--json')
        expect(JSON.parse(result.err)).toEqual({ success: false, message: expected, error: { code: 'USAGE', kind: 'usage' } });
      else expect(result.err).toBe(`Error: ${expected}\n`);
    }
  });

  it('a misspelt TOPUP_PROFILE is a usage error naming it and the profiles there are', async () => {
    await login('staging');
    expectUsageError(
      await topup(['balance'], { env: { TOPUP_PROFILE: 'stagign' } }),
      /^Error: No profile is named 'stagign' \(from TOPUP_PROFILE; profiles: staging\); log in with `topup auth login --profile stagign`\.\n$/,
    );
  });

  it('an unknown --profile is a usage error even with --base-url', async () => {
    expectUsageError(
      await topup(['balance', '--profile', 'ghost', '--base-url', served.url]),
      /No profile is named 'ghost' \(from --profile; there are no profiles yet\)/,
    );
  });

  it('--mock ignores TOPUP_TOKEN and the notice says so, --json included', async () => {
    const result = await topup(['--json', '--mock', 'balance'], { env: { TOPUP_TOKEN: 'topup_live_not_used' } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual(LEAN ? {} : expect.objectContaining({ balance: 0 }));
    expect(result.err).toBe('Using the embedded offline sandbox (--mock): TOPUP_TOKEN is ignored, the demo sandbox token is used.\n');
  });

  it('nothing configured: the embedded sandbox, with its notice on stderr', async () => {
    const result = await topup(['--json', 'balance']);
    expect(result.code).toBe(0);
    expect(result.err).toBe(EMBEDDED_NOTICE);
  });

  it('after logging out of the current profile with others left, commands ask which one instead of using fake data', async () => {
    await login('one');
    await login('two');
    expect((await topup(['auth', 'logout', '--profile', 'two'])).code).toBe(0);
    expectUsageError(
      await topup(['balance']),
      /No profile is current \(profiles: one\): pick one with `topup config set profile NAME` or --profile, or pass --mock/,
    );
  });
});

describe('topup mock … acts on the same target as every other command', () => {
  it('a profile logged in to a served sandbox: mock deposit and mock pay drive that sandbox, for that account', async () => {
    await login('local', 'rich');
    const deposit = await topup(['mock', 'deposit', '50000']);
    expect(deposit.code).toBe(0);
    expect(deposit.err).not.toMatch(/embedded/);
    const invoice = deposit.out.trim();
    const own = served.sandbox.snapshot();
    expect(JSON.stringify(own)).toContain(invoice);
    const pay = await topup(['mock', 'pay', invoice]);
    expect(pay.code).toBe(0);
    const status = await topup(['--json', 'invoices', 'status', invoice]);
    expect(JSON.parse(status.out).payment_status).toBe('paid');
  });

  it('TOPUP_BASE_URL of a served sandbox: mock pay acts on it', async () => {
    const { invoice_code: invoice } = await served.sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: false });
    const result = await topup(['--json', 'mock', 'pay', invoice], { env: { TOPUP_BASE_URL: served.url } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ invoice_code: invoice, action: 'pay' });
    expect(result.err).toBe('');
    const rich = createClient({ baseUrl: served.url, token: served.token('rich') });
    expect((await rich.deposits.get(invoice)).deposit).toMatchObject({ invoice_code: invoice, payment_status: 'paid' });
  });

  it.each([
    ['pay', ['mock', 'pay', 'INV1']],
    ['deposit', ['mock', 'deposit', '50000']],
    ['reset', ['mock', 'reset']],
    ['fixtures', ['mock', 'fixtures']],
    ['fail-order', ['mock', 'fail-order', 'INV1']],
  ])('a server that is not a sandbox is refused (exit 2), never replaced by the embedded one: mock %s', async (_name, args) => {
    const result = await topup([...args, '--base-url', foreign.url]);
    expectUsageError(
      result,
      new RegExp(
        `^Error: http://127\\.0\\.0\\.1:\\d+ is not a topup sandbox \\(no /__sandbox control API answers there\\); \`topup mock\` commands act only on a sandbox`,
      ),
    );
  });

  it('--mock drives the embedded sandbox even when a profile is logged in', async () => {
    await login('local', 'rich');
    const result = await topup(['--mock', 'mock', 'deposit', '50000']);
    expect(result.code).toBe(0);
    expect(JSON.stringify(served.sandbox.snapshot())).not.toContain(result.out.trim());
    expect(result.err).toContain('Using the embedded offline sandbox (demo sandbox token)');
  });
});

describe('errors that name their cause', () => {
  it('a stored token withheld from another server says so (exit 4), and names no token', async () => {
    await login('local', 'rich');
    const other = served.url.replace('127.0.0.1', 'localhost');
    const result = await topup(['balance', '--base-url', other]);
    expect(result).toEqual({
      code: 4,
      out: '',
      err: `Error: No token was sent to ${other}: the stored token of profile local is sent only to its own server, ${served.url}; set TOPUP_TOKEN for ${other}, or drop --base-url.\n`,
    });
  });

  it('no token at all for a server: says how to log in (exit 4)', async () => {
    const result = await topup(['balance', '--base-url', served.url]);
    expect(result).toEqual({
      code: 4,
      out: '',
      err: `Error: No token for ${served.url}: log in with \`topup auth login --base-url ${served.url}\`, or set TOPUP_TOKEN.\n`,
    });
  });

  it.each([
    ['a revoked token', { TOPUP_TOKEN: 'topup_test_revoked_0000000000000000' }, 'invalid: '],
    ['no token', {}, 'no token'],
  ])('auth status exits 4 with %s, after the list that shows why', async (_name, env, status) => {
    const result = await topup(['auth', 'status', '--base-url', served.url], { env });
    expect(result.code).toBe(4);
    expect(result.out).toContain(`\nstatus: ${status}`);
    expect(result.err).toMatch(/^Error: .+\.\n$/);
  });

  it('plain http to a remote host is refused with what to do, not a library option name (exit 2)', async () => {
    const result = await topup(['balance', '--base-url', 'http://shop.example.com'], { env: { TOPUP_TOKEN: 'topup_live_x' } });
    expect(result).toEqual({
      code: 2,
      out: '',
      err: 'Error: The base URL uses plain http:// to a host that is not loopback, so the token would travel unencrypted; use https://.\n',
    });
  });

  it('a refused connection names the origin and the cause (exit 7)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await topup(['packages', '--base-url', url]);
    expect(result.code).toBe(7);
    expect(result.err).toBe(`Error: Could not reach ${url}: connection refused: nothing is listening there (ECONNREFUSED).\n`);
  });
});
