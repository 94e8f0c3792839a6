import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { urlOf } from '../support/url-of.js';
import type { FixtureAccountName } from '../../mocks/store/fixtures.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { clockSkewSeconds, contractDifferences } from '../../src/cli/commands/doctor/checks.js';
import { createClient } from '../../src/client/index.js';
import { CreditPackageList } from '../../src/contract/index.js';
import { tempConfigDir } from '../support/fake-io.js';
import { LEAN } from '../support/cli-assertions.js';
import { fakeClock } from '../support/fake-clock.js';
import { runCli, serveSandbox, type RunOptions } from './run-cli.js';

let sandbox: Sandbox;
let config: { dir: string; cleanup: () => void };
beforeEach(async () => {
  sandbox = await createSandbox({ rateLimit: false });
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const token = (name: FixtureAccountName) => sandbox.account(name).token;

/** A server that is the sandbox with its answers changed by `rewrite` (JSON in, JSON out), as another implementation might answer. */
function rewritten(
  rewrite: (path: string, body: any) => any,
  headers: Record<string, string> = {},
  options: { withoutInstance?: boolean } = {},
): typeof fetch {
  return async (input, init) => {
    const answer = await sandbox.fetch(input, init);
    const path = new URL(urlOf(input)).pathname;
    const body = rewrite(path, JSON.parse(await answer.text()));
    const sent: Record<string, string> = { ...headers };
    answer.headers.forEach((value, name) => (sent[name] ??= value));
    if (options.withoutInstance === true) delete sent['x-topup-sandbox-instance'];
    return new Response(JSON.stringify(body), { status: answer.status, headers: sent });
  };
}

const doctor = (args: string[], options: RunOptions & { account?: FixtureAccountName } = {}) =>
  runCli(config.dir, ['doctor', ...args], {
    clock: fakeClock({ start: Date.now() }),
    fetch: options.fetch ?? sandbox.fetch,
    ...options,
    env: { TOPUP_BASE_URL: sandbox.baseUrl, TOPUP_TOKEN: token(options.account ?? 'demo'), ...options.env },
  });

async function seedOrderAndDeposit() {
  const client = createClient({ baseUrl: sandbox.baseUrl, token: token('demo'), fetch: sandbox.fetch });
  await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
  await sandbox.control.deposit({ amount: 50_000, account: 'demo', paid: false });
}

describe('topup doctor', () => {
  it('says whether a topup sandbox answers: embedded, served over HTTP, or a server that does not say so', async () => {
    const embedded = await runCli(config.dir, ['doctor']);
    expect(embedded.out).toMatch(/^sandbox: ✓ the topup sandbox answers: its data is made up$/m);
    const served = await serveSandbox();
    try {
      const overHttp = await runCli(config.dir, ['doctor'], { env: { TOPUP_BASE_URL: served.url, TOPUP_TOKEN: served.token('demo') } });
      expect(overHttp.out).toMatch(
        /^sandbox: ✓ a topup sandbox answers \(topup mock serve, startHttpSandbox or sandbox\.fetch\): its data is made up$/m,
      );
    } finally {
      await served.close();
    }
    // The in-process sandbox names itself too; without its instance header it plays a real shop's server.
    expect((await doctor([])).out).toMatch(/^sandbox: ✓ a topup sandbox answers/m);
    const realServer = rewritten((_path, body) => body, {}, { withoutInstance: true });
    expect((await doctor([], { fetch: realServer })).out).toMatch(/^sandbox: ✓ the server does not identify as a topup sandbox$/m);
  });

  it('says where requests go and why, and that all is well (exit 0)', async () => {
    const result = await doctor([]);
    expect(result.code).toBe(0);
    expect(result.out.split('\n').slice(0, 1)).toEqual(['target: ✓ http://sandbox.localhost (from TOPUP_BASE_URL)']);
    expect(result.out).toMatch(/^server: ✓ GET \/api\/v1\/health answered 200 in \d+ ms$/m);
    expect(result.out).toMatch(/^rate limits: ✓ no X-RateLimit-\* headers; the client keeps to the published limits$/m);
    expect(result.out).toMatch(LEAN ? /^token: ✓ TOPUP_TOKEN is valid: sandbox$/m : /^token: ✓ TOPUP_TOKEN is valid: sandbox, user demo$/m);
    expect(result.err).toBe('');
    // To a person watching stderr it says so; piped, the exit code does.
    // TOPUP_BASE_URL names the server, not the current profile: a terminal is told where the answers came from.
    expect((await doctor([], { stderrTTY: true, color: false })).err).toBe('→ http://sandbox.localhost\n✓ No problems found.\n');
  });

  it("a rate-limit header's control characters are shown as escapes (a C1 CSI decoded from obs-text)", async () => {
    const limited = rewritten((_path, body) => body, { 'x-ratelimit-limit': '60\u009b31mRED' });
    const result = await doctor([], { fetch: limited });
    expect(result.out).toMatch(/^rate limits: ✓ x-ratelimit-limit: 60\\x9b31mRED$/m);
    expect(result.out).not.toContain('\u009b');
  });

  it('--contract reads every GET endpoint of the full sandbox and finds nothing; it creates no order', async () => {
    await seedOrderAndDeposit();
    const before = sandbox.snapshot().tables.orders.length;
    const result = await doctor(['--contract']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^contract: ✓ 16 of 17 endpoints read; order creation is never tried$/m);
    expect(sandbox.snapshot().tables.orders.length).toBe(before);
  });

  it('--contract lists each difference from the contract: a missing guaranteed field, a wrong type (exit 1); an unknown enum value is a note', async () => {
    await seedOrderAndDeposit();
    const fetch = rewritten((path, body) => {
      if (path === '/api/v1/catalog/credit-packages') {
        delete body.data.packages[0].price;
        body.data.packages[1].credit_amount = '80';
      }
      if (path === '/api/v1/me/invoices/INV20261124000001/status' || path.endsWith('/status')) body.data.payment_status = 'on_hold';
      return body;
    });
    const result = await doctor(['--contract'], { fetch });
    expect(result.code).toBe(1);
    const [findings, notes] = result.out
      .split(/\n\d+ notes?, no problem \(shown as they are\):\n/)
      .map((part) => part.split('\n').filter((l) => l.startsWith('- ')));
    expect(findings).toEqual([
      '- GET /api/v1/catalog/credit-packages: data.packages[0].price: a guaranteed field is missing.',
      '- GET /api/v1/catalog/credit-packages: data.packages[1].credit_amount: expected number, got a string.',
    ]);
    expect(notes).toHaveLength(1);
    expect(notes![0]).toMatch(
      /^- GET \/api\/v1\/me\/invoices\/\{invoice\}\/status: data\.payment_status: unknown value "on_hold" \(the contract knows "pending", /,
    );
    expect(result.err).toBe('Error: topup doctor found 2 problems.\n');
  });

  it('--contract: a server that differs from topup only in fields the document does not show passes, with notes (exit 0)', async () => {
    await seedOrderAndDeposit();
    await sandbox.control.deposit({ amount: 10_000, account: 'demo', paid: true });
    const fetch = rewritten((path, body) => {
      if ((path === '/api/v1/auth/token/validate' || path === '/api/v1/me') && body.data.user) body.data.user.id = 'u_7f3a';
      if (path === '/api/v1/me') body.data.user.email = 'hidden';
      if (path === '/api/v1/health') body.data.time = '2026-11-28T10:00:00Z';
      if (path === '/api/v1/me/balance/transactions') for (const t of body.data.transactions) t.id = 7;
      return body;
    });
    const result = await doctor(['--contract'], { fetch });
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out).not.toMatch(/findings?:/);
    const notes = result.out.split('\n').filter((l) => l.startsWith('- '));
    expect(notes).toEqual(
      expect.arrayContaining([
        "- GET /api/v1/me: data.user.id: expected number, got a string (topup's own design; the document does not show this field).",
        expect.stringMatching(
          /^- GET \/api\/v1\/me: data\.user\.email: .*\(topup's own design; the document does not show this field\)\.$/,
        ),
        expect.stringMatching(/^- GET \/api\/v1\/health: data\.time: .*\(topup's own design/),
        expect.stringMatching(
          /^- GET \/api\/v1\/me\/balance\/transactions: data\.transactions\[0\]\.id: expected string, got a number \(topup's own design/,
        ),
      ]),
    );
  });

  it('a difference in a field the document shows stays a finding, also beside notes on fields it does not show', () => {
    const { findings, notes } = contractDifferences('x', CreditPackageList, {
      packages: [
        {
          code: 'P',
          name: 'n',
          credit_amount: '80',
          price: 1,
          formatted_price: '1',
          currency: 'IDR',
          description: '',
          sort_order: 1,
          bonus: 1,
          tier: 5,
        },
      ],
      limit: 50,
    });
    expect(findings).toEqual([{ where: 'x', problem: 'packages[0].credit_amount: expected number, got a string.' }]);
    expect(notes).toEqual([]);
  });

  it('a value this version does not know, in a record the document does not show, is a note and no problem (exit 0)', async () => {
    // The health record is our design ("not shown" in the document): another server may well say "up".
    const fetch = rewritten((path, body) => (path === '/api/v1/health' ? { ...body, data: { ...body.data, status: 'up' } } : body));
    const result = await doctor([], { fetch });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/^server: ✓ GET \/api\/v1\/health answered 200 in \d+ ms, saying its status is "up"$/m);
    expect(result.out).toMatch(
      /\n1 note, no problem \(shown as they are\):\n- GET \/api\/v1\/health: data\.status: unknown value "up" \(the contract knows "ok"/,
    );
    const json = await doctor(['--json'], { fetch });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out) as { findings: unknown[]; notes: { where: string; note: string }[] };
    expect(report.findings).toEqual([]);
    expect(report.notes).toEqual([{ where: 'GET /api/v1/health', note: expect.stringMatching(/^data\.status: unknown value "up"/) }]);
  });

  it('a huge value from the server is quoted by its first 100 characters, in the server check and in the note', async () => {
    const status = `up${'x'.repeat(100_000)}`;
    const fetch = rewritten((path, body) => (path === '/api/v1/health' ? { ...body, data: { ...body.data, status } } : body));
    for (const args of [[], ['--json']]) {
      const result = await doctor(args, { fetch });
      expect(result.code, result.err).toBe(0);
      expect(result.out.length).toBeLessThan(3_000);
      expect(result.out).toContain(`${JSON.stringify(status).slice(0, 100)}…`);
    }
  });

  it('a refused token is a finding (exit 1)', async () => {
    const result = await doctor([], { env: { TOPUP_TOKEN: 'topup_test_not_a_real_token_000000' } });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^token: ✗ TOPUP_TOKEN was not accepted$/m);
  });

  it('a server clock far off is a finding', async () => {
    const result = await doctor([], { fetch: rewritten((_p, b) => b, { date: new Date(Date.now() + 3_600_000).toUTCString() }) });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(
      /^- clock: The server's clock is 3\d{3} s ahead of this machine's; rate-limit reset times and invoice expiry will be misread\.$/m,
    );
  });

  it('a Date header that is not a date is said to be one, shown escaped, and compared with nothing', async () => {
    const fetch = rewritten((_path, body) => body, { date: 'yesterday\u009b31m' });
    const result = await doctor([], { fetch });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/^clock: ✓ the server's Date header is not a date \("yesterday\\x9b31m"\); nothing to compare$/m);
  });

  it('a target that cannot be resolved is reported, not replaced by the embedded sandbox', async () => {
    const result = await runCli(config.dir, ['doctor'], { env: { TOPUP_TOKEN: 'topup_live_x' } });
    expect(result.code).toBe(1);
    expect(result.out).toContain('- target: TOPUP_TOKEN is set but no server is');
    expect(result.err).not.toContain('embedded');
  });

  it('a stored token others can read, or its folder open to them, is a finding, with --json too (exit 1)', async () => {
    const login = await runCli(config.dir, ['auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], {
      stdin: token('demo'),
      fetch: sandbox.fetch,
    });
    expect(login.code).toBe(0);
    const run = () => runCli(config.dir, ['--json', 'doctor'], { clock: fakeClock({ start: Date.now() }), fetch: sandbox.fetch });
    expect(JSON.parse((await run()).out).findings).toEqual([]);
    const credentials = join(config.dir, 'credentials.json');
    chmodSync(credentials, 0o644);
    chmodSync(config.dir, 0o755);
    const result = await run();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out).findings).toEqual([
      { where: 'credentials', problem: `${credentials} is readable by other users; run: chmod 600 ${credentials}` },
      {
        where: 'credentials',
        problem: `${config.dir}, the folder of the stored tokens, is open to other users; run: chmod 700 ${config.dir}`,
      },
    ]);
  });

  it('a config folder or config.json others can write to: a warning on every run that sends a token where a profile says, and a finding', async () => {
    const login = await runCli(config.dir, ['auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], {
      stdin: token('demo'),
      fetch: sandbox.fetch,
    });
    expect(login.code).toBe(0);
    const balance = (env: Record<string, string> = {}) => runCli(config.dir, ['balance'], { fetch: sandbox.fetch, env });
    expect((await balance()).err).toBe('');
    const configFile = join(config.dir, 'config.json');
    chmodSync(configFile, 0o666);
    const warned = await balance();
    expect(warned.code).toBe(0);
    expect(warned.err).toBe(
      `Warning: other users can write to ${configFile}, so they could send your token to another server; run: chmod go-w ${configFile}\n`,
    );
    // A token from the environment sent to the profile's server is as much at risk.
    expect((await balance({ TOPUP_TOKEN: token('demo') })).err).toContain(`other users can write to ${configFile}`);
    // Neither the server nor the token from the profile: nothing a profile could redirect.
    const fromEnvironment = await balance({ TOPUP_TOKEN: token('demo'), TOPUP_BASE_URL: sandbox.baseUrl });
    expect(fromEnvironment.code).toBe(0);
    expect(fromEnvironment.err).toBe('');
    const report = JSON.parse(
      (await runCli(config.dir, ['--json', 'doctor'], { clock: fakeClock({ start: Date.now() }), fetch: sandbox.fetch })).out,
    );
    expect(report.findings).toEqual([
      {
        where: 'credentials',
        problem: `Other users can write to ${configFile}, and so send the stored token elsewhere; run: chmod go-w ${configFile}`,
      },
    ]);
    chmodSync(configFile, 0o600);
    chmodSync(config.dir, 0o733);
    expect((await balance()).err).toBe(
      `Warning: other users can write to ${config.dir}, so they could send your token to another server; run: chmod go-w ${config.dir}\n`,
    );
    chmodSync(config.dir, 0o700);
  });

  it('--json: the report on stdout for scripts', async () => {
    const result = await doctor(['--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.out);
    expect(report.target).toEqual({
      description: 'http://sandbox.localhost (from TOPUP_BASE_URL)',
      kind: 'remote',
      base_url: 'http://sandbox.localhost',
      source: 'TOPUP_BASE_URL',
      // As in every --json `target`: the origin, the profile and the token's mode, never the token.
      origin: 'http://sandbox.localhost',
      profile: null,
      mode: 'sandbox',
    });
    expect(result.out).not.toContain(token('demo'));
    expect(report.checks.map((c: { name: string }) => c.name)).toEqual(['target', 'server', 'sandbox', 'clock', 'rate limits', 'token']);
    expect(report.findings).toEqual([]);
  });
});

describe('doctor checks', () => {
  it.each<[string | null, number, number | undefined]>([
    [null, 0, undefined],
    ['not a date', 0, undefined],
    ['Tue, 24 Nov 2026 12:00:10 GMT', Date.UTC(2026, 10, 24, 12, 0, 0), 10],
    ['Tue, 24 Nov 2026 12:00:00 GMT', Date.UTC(2026, 10, 24, 12, 0, 0, 900), 0],
    ['Tue, 24 Nov 2026 11:59:00 GMT', Date.UTC(2026, 10, 24, 12, 0, 0), -60],
  ])('clock skew of %j at %i is %j s', (header, now, skew) => {
    expect(clockSkewSeconds(header, now)).toBe(skew);
  });

  it('a valid answer has no findings', () => {
    expect(contractDifferences('x', CreditPackageList, { packages: [], limit: 50 })).toEqual({ findings: [], notes: [] });
  });
});
