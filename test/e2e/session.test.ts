import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../support/fake-io.js';
import { baseEnv, ensureBuilt, serveMock, topup, type Run, type ServedMock } from './built-cli.js';

/*
 * A real scripting session against the built binary: a served sandbox on a free port, a temp config folder,
 * stdin piped (no TTY). The steps depend on each other, so they run in order in one describe.
 */
let config: { dir: string; cleanup: () => void };
let server: ServedMock | undefined;
let env: Record<string, string>;
let richToken: string;
const runs: Run[] = [];

async function cli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const run = await topup(args, { env: { ...env, ...options.env }, ...(options.stdin === undefined ? {} : { stdin: options.stdin }) });
  runs.push(run);
  return run;
}

beforeAll(async () => {
  ensureBuilt();
  config = tempConfigDir();
  env = baseEnv(config.dir);
  server = await serveMock(env);
  richToken = fixtureAccount(server, 'rich').token;
}, 120_000);

afterAll(async () => {
  // A failed test must not leave the server running.
  if (server) await server.stop();
  config?.cleanup();
});

describe.sequential('a scripting session with the built topup against `topup mock serve`', () => {
  let invoice = '';

  it('1. logs in with --with-token into the temp config folder', async () => {
    const run = await cli(['auth', 'login', '--with-token', '--base-url', server!.url], { stdin: `${richToken}\n` });
    // A script's stderr is a pipe: the exit code says it worked, with no chatter.
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(statSync(join(config.dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(config.dir, 'config.json')).mode & 0o777).toBe(0o600);

    const status = await cli(['auth', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual([
      expect.objectContaining({
        profile: 'default',
        active: true,
        status: 'valid',
        base_url: server!.url,
        mode: 'production',
        username: 'rich',
        token_source: 'profile',
      }),
    ]);
  });

  it('2. creates an order with flags: exit 0 and only the invoice code on stdout', async () => {
    const run = await cli(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--reference', 'e2e-1']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^INV\d+\n$/);
    expect(run.stderr).toMatch(/^Idempotency key: [0-9a-f-]{36} {2}\(repeat safely with --idempotency-key [0-9a-f-]{36}\)$/m);
    invoice = run.stdout.trim();
  });

  it('3. lists it', async () => {
    const run = await cli(['orders', 'list', '--reference', 'e2e-1']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]!.split('\t').slice(0, 5)).toEqual([invoice, 'pending', 'pending', 'gamepass', 'BuilderBob']);
  });

  it('4. pays it with `topup mock pay`', async () => {
    const run = await cli(['mock', 'pay', invoice, '--base-url', server!.url]);
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('5. waits for it to be paid: exit 0 at once, since it already is', async () => {
    const started = Date.now();
    const run = await cli(['invoices', 'status', invoice, '--wait', '--interval', '10']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('payment_status: paid');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it.each<[string, string[], Record<string, string>, number, RegExp]>([
    ['a 401 (a bad TOPUP_TOKEN)', ['orders', 'list'], { TOPUP_TOKEN: 'bad' }, 4, /^Error: .+\.\n$/],
    [
      'a 422 (an order the platform refuses)',
      ['orders', 'create', '--username', 'ghost_user_404', '--place', '5001', '--pass', '9001'],
      {},
      5,
      /^Error: .*ghost_user_404[^\n]*\n(?![\s\S]*Retry safely)/m,
    ],
    [
      'a missing flag (no --username)',
      ['orders', 'create', '--place', '5001', '--pass', '9001'],
      {},
      2,
      /^Error: Missing --username: pass it as a flag \(there is no terminal to ask on\)\.\n$/,
    ],
  ])('6. exit codes: %s → exit %s', async (_name, args, extraEnv, code, stderr) => {
    const run = await cli(args, { env: extraEnv });
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(stderr);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('never printed the token, in any run', () => {
    expect(runs.length).toBeGreaterThanOrEqual(9);
    for (const run of runs) {
      expect(run.stdout).not.toContain(richToken);
      expect(run.stderr).not.toContain(richToken);
    }
  });

  it('7. the server stops cleanly on SIGINT (exit 0)', async () => {
    const stopping = server!;
    server = undefined;
    expect(await stopping.stop()).toBe(0);
  });
});
