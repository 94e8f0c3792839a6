import { describe, expect, it } from 'vitest';
import { createClient, type TopupError } from '../../src/client/index.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { report } from './report.js';

/**
 * The claim: however the network misbehaves, one logical order is one order and one charge.
 * The sandbox drops 25 % of createOrder answers after committing (the issue asks for at least 20 %), answers 13 % with 503 + Retry-After
 * and 13 % with 429 (at least 10 % each); the client retries under one Idempotency-Key per order, and a caller whose call
 * still fails calls again with the key the error carries, as docs/library.md tells it to.
 */
describe('exactly-once order creation under faults', () => {
  it('500 orders paid by balance: as many orders and charges as the client reports, no duplicates, no losses', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const clock = {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
      random: () => 0.5,
    };
    const sandbox = await createSandbox({
      now: clock.now,
      rateLimit: false,
      faults: {
        seed: 2026,
        rules: [
          { kind: 'drop_after', rate: 0.25, routes: ['createOrder'] },
          { kind: 'error', rate: 0.13, status: 503, retry_after: 1, routes: ['createOrder'] },
          { kind: 'rate_limit', rate: 0.13, retry_after: 2, routes: ['createOrder'] },
        ],
      },
    });
    const rich = sandbox.account('rich');
    const client = createClient({ baseUrl: sandbox.baseUrl, token: rich.token, fetch: sandbox.fetch, pacing: false, clock });
    const body = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, payment_method: 'balance' };
    const balanceBefore = sandbox.store.db.accounts.get('2')!.balance;

    const reported = new Map<string, string>();
    for (let i = 0; i < 500; i++) {
      const key = `exactly-once-${i}`;
      for (let call = 0; !reported.has(key); call++) {
        expect(call).toBeLessThan(20);
        try {
          const result = await client.orders.create(body, { idempotencyKey: key, chatUserId: rich.chat_user_id! });
          reported.set(key, result.invoice.invoice_code);
        } catch (error) {
          expect((error as TopupError).idempotencyKey).toBe(key);
        }
      }
    }

    const orders = sandbox.store.db.orders.all().filter((o) => o.account_id === 2);
    const codes = new Set(reported.values());
    expect(codes.size).toBe(500);
    expect(orders).toHaveLength(500);
    expect(orders.every((o) => codes.has(o.invoice_code))).toBe(true);
    const charged = balanceBefore - sandbox.store.db.accounts.get('2')!.balance;
    expect(charged).toBe(500 * 12_000);
    expect(sandbox.store.db.transactions.ownedBy(2).filter((t) => t.type === 'debit')).toHaveLength(500);

    const stats = sandbox.faults.stats;
    report('client', {
      orders: 500,
      server_orders: orders.length,
      duplicates: orders.length - codes.size,
      lost: 500 - codes.size,
      faults: stats,
    });
    // The faults really happened, at the rates the issue asks for: at least 20 % dropped after commit, 10 % 503, 10 % 429.
    expect(stats.drop_after / stats.requests).toBeGreaterThanOrEqual(0.2);
    expect(stats.error / stats.requests).toBeGreaterThanOrEqual(0.1);
    expect(stats.rate_limit / stats.requests).toBeGreaterThanOrEqual(0.1);
  });

  it('N concurrent identical keyed requests create exactly one order', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const rich = sandbox.account('rich');
    const client = createClient({ baseUrl: sandbox.baseUrl, token: rich.token, fetch: sandbox.fetch, pacing: false });
    const body = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
    const results = await Promise.all(Array.from({ length: 25 }, () => client.orders.create(body, { idempotencyKey: 'same-key' })));
    expect(new Set(results.map((r) => r.invoice.invoice_code)).size).toBe(1);
    expect(results.filter((r) => !r.idempotent)).toHaveLength(1);
    expect(sandbox.store.db.orders.size).toBe(1);
  });
});
