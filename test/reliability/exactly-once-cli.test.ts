import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { report } from './report.js';

/**
 * The CLI's promise: "a failed run can be repeated safely with --idempotency-key". A script creates orders
 * through a served sandbox that drops 20 % of createOrder answers after commit and answers 10 % with 503 and
 * 10 % with 429; whenever a run fails, it runs again with the key that run printed. Waits run on a fake clock.
 */
describe('exactly-once through the CLI', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  let config: { dir: string; cleanup: () => void };
  let now = Date.parse('2026-04-01T00:00:00Z');
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };

  beforeAll(async () => {
    sandbox = await createSandbox({
      rateLimit: false,
      faults: {
        seed: 99,
        rules: [
          { kind: 'drop_after', rate: 0.25, routes: ['createOrder'] },
          { kind: 'error', rate: 0.13, status: 503, retry_after: 1, routes: ['createOrder'] },
          { kind: 'rate_limit', rate: 0.13, retry_after: 1, routes: ['createOrder'] },
        ],
      },
    });
    server = await startHttpSandbox(sandbox, { port: 0 });
    config = tempConfigDir();
  });
  afterAll(async () => {
    await server.close();
    config.cleanup();
  });

  async function topup(args: string[]) {
    const rich = sandbox.account('rich');
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir, TOPUP_BASE_URL: server.url, TOPUP_TOKEN: rich.token } });
    const code = await main(args, io, { clock });
    return { code, out: io.out(), err: io.err() };
  }

  it('30 orders: the server holds exactly the orders the runs reported, each once', async () => {
    const reported: string[] = [];
    for (let i = 0; i < 30; i++) {
      const args = [
        'orders',
        'create',
        '--username',
        'BuilderBob',
        '--place',
        '5001',
        '--pass',
        '9001',
        '--payment-method',
        'balance',
        '--chat-user-id',
        '700000001',
        '--reference',
        `script-${i}`,
        '--yes',
      ];
      let run = await topup(args);
      for (let attempt = 0; run.code !== 0; attempt++) {
        expect(attempt, run.err).toBeLessThan(10);
        expect([6, 7]).toContain(run.code);
        const key = /--idempotency-key ([^\s)]+)/.exec(run.err)?.[1];
        expect(key, `the failed run printed its key: ${run.err}`).toBeDefined();
        run = await topup([...args, '--idempotency-key', key!]);
      }
      reported.push(run.out.trim());
    }
    expect(new Set(reported).size).toBe(30);
    const orders = sandbox.store.db.orders.all();
    expect(orders.map((o) => o.invoice_code).sort()).toEqual([...reported].sort());
    expect(new Set(orders.map((o) => o.client_reference)).size).toBe(30);
    expect(10_000_000 - sandbox.store.db.accounts.get('2')!.balance).toBe(30 * 12_000);
    expect(sandbox.faults.stats.drop_after).toBeGreaterThan(0);
    report('cli', {
      orders: 30,
      server_orders: orders.length,
      duplicates: orders.length - new Set(orders.map((o) => o.invoice_code)).size,
      lost: 30 - orders.length,
      faults: sandbox.faults.stats,
    });
  });

  it('a run whose every answer was lost fails with its key, and the re-run with that key returns the one order it made', async () => {
    sandbox.faults.configure({ rules: [{ kind: 'drop_after', rate: 1, routes: ['createOrder'] }] });
    const before = sandbox.store.db.orders.size;
    const args = ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9002'];
    const failed = await topup(args);
    expect(failed.code).toBe(7);
    expect(failed.out).toBe('');
    const key = /Retry safely with: --idempotency-key (\S+)/.exec(failed.err)?.[1];
    expect(key).toBeDefined();
    expect(sandbox.store.db.orders.size).toBe(before + 1);

    sandbox.faults.configure({ rules: [] });
    const rerun = await topup([...args, '--idempotency-key', key!]);
    expect(rerun.code).toBe(0);
    expect(sandbox.store.db.orders.size).toBe(before + 1);
    expect(sandbox.store.db.orders.get(rerun.out.trim())?.platform_pass_id).toBe(9002);
  });
});
