import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { pollIntervals } from '../../src/contract/timing.js';
import { useHarness, seedRichHistory, type Harness } from './read-harness.js';
import { expectUsageError, LEAN } from '../support/cli-assertions.js';

let h: Harness;
useHarness((created) => {
  h = created;
});

describe('argument parsing', () => {
  it.each([
    { args: ['me', 'extra'], err: /too many arguments for 'me'/ },
    { args: ['dashboard', '--watch', '5'], err: /The dashboard may be refreshed at most every 15 seconds; use --watch 15 or more\./ },
    { args: ['dashboard', '--watch', '14'], err: /at most every 15 seconds/ },
    { args: ['dashboard', '--watch', 'soon'], err: /--watch takes a whole number of seconds\./ },
    { args: ['dashboard', '--refresh'], err: /unknown option '--refresh'/ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await h.runEmbedded(args);
    expectUsageError(result, err);
  });
});

describe('topup me', () => {
  it('piped: `key: value` lines with the API field names, and the embedded sandbox noted on stderr', async () => {
    const result = await h.runEmbedded(['me']);
    expect(result.code).toBe(0);
    // A lean server shows no profile field: every one is a dash, none is guessed.
    expect(result.out).toBe(
      (LEAN
        ? ['id: -', 'username: -', 'name: -', 'email: -', 'token_mode: -', 'chat_linked: -', 'chat_user_id: -', 'created_at: -', '']
        : [
            'id: 1',
            'username: demo',
            'name: Demo Shop',
            'email: demo@sandbox.topup.test',
            'token_mode: sandbox',
            'chat_linked: false',
            'chat_user_id: -',
            'created_at: 2026-01-15T09:00:00Z',
            '',
          ]
      ).join('\n'),
    );
    expect(result.err).toMatch(/embedded offline sandbox/);
  });

  it('terminal: a title and aligned labels; no ANSI_ESCAPE with --no-color', async () => {
    const result = await h.run(['me', '--no-color'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      (LEAN
        ? [
            'Profile',
            'id            -',
            'username      -',
            'name          -',
            'email         -',
            'token mode    -',
            'chat          -',
            'member since  -',
            '',
          ]
        : [
            'Profile',
            'id            2',
            'username      rich',
            'name          Rich Reseller',
            'email         rich@sandbox.topup.test',
            'token mode    production',
            'chat          linked (user 700000001)',
            'member since  2026-01-15 09:00 +00:00',
            '',
          ]
      ).join('\n'),
    );
  });

  it('terminal with colour: ANSI_ESCAPE codes; piped never', async () => {
    expect((await h.run(['me'], { tty: true })).out).toMatch(ANSI_ESCAPE);
    expect((await h.run(['me'])).out).not.toMatch(ANSI_ESCAPE);
  });

  it('--json prints exactly the data object and nothing on stderr', async () => {
    const result = await h.run(['--json', 'me']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').account.profile());
    expect(result.err).toBe('');
  });

  it('a revoked token exits 4 with one sentence', async () => {
    const result = await h.run(['me'], { env: { TOPUP_TOKEN: h.sandbox.fixtures().revoked_tokens[0]! } });
    expect(result.code).toBe(4);
    expect(result.out).toBe('');
    expect(result.err).toBe('Error: Unauthorized: the API token is missing or invalid.\n');
  });
});

describe('topup dashboard', () => {
  beforeEach(() => seedRichHistory(h));

  it('piped: the summary as `key: value`, then one `recent_order:` line per recent order', async () => {
    const result = await h.run(['dashboard']);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      (LEAN
        ? [
            'balance: -',
            'currency: -',
            'total_spent: -',
            'pending_invoices: -',
            ...['total', 'pending', 'processing', 'completed', 'failed', 'cancelled'].map((k) => `orders_${k}: -`),
            '',
          ]
        : [
            'balance: 10044000',
            'currency: IDR',
            'total_spent: 654000',
            'pending_invoices: 1',
            'orders_total: 4',
            'orders_pending: 1',
            'orders_processing: 2',
            'orders_completed: 0',
            'orders_failed: 0',
            'orders_cancelled: 1',
            'recent_order: INV20260302000005\tprocessing\tpaid\tgamepass\tPixelPiper\t50\t6000\t2026-03-02T10:04:00Z',
            'recent_order: INV20260302000004\tcancelled\texpired\tvip_server\tBuilderBob\t200\t24000\t2026-03-02T10:03:00Z',
            'recent_order: INV20260302000003\tprocessing\tpaid\tgamepass\tBuilderBob\t6000\t648000\t2026-03-02T10:02:00Z',
            'recent_order: INV20260302000002\tpending\tpending\tgamepass\tBuilderBob\t100\t12000\t2026-03-02T10:01:00Z',
            '',
          ]
      ).join('\n'),
    );
    expect(result.err).toBe('');
  });

  it('terminal: formatted amounts, counts and an aligned table of recent orders', async () => {
    const result = await h.run(['dashboard', '--no-color'], { tty: true, columns: 120 });
    expect(result.code).toBe(0);
    // Lean: nothing to show but the frame; the recent orders the server did not send are a dash, not "No orders yet".
    expect(result.out).toBe(
      (LEAN
        ? [
            'Dashboard',
            'balance           -',
            'total spent       -',
            'pending invoices  -',
            'orders            -',
            '',
            'Recent orders',
            '-',
            '',
          ]
        : [
            'Dashboard',
            'balance           Rp 10.044.000',
            'total spent       Rp 654.000',
            'pending invoices  1',
            'orders            4 (1 pending, 2 processing, 1 cancelled)',
            '',
            'Recent orders',
            'INVOICE            STATUS      PAYMENT  TYPE        USERNAME    CREDITS       TOTAL  CREATED',
            'INV20260302000005  processing  paid     gamepass    PixelPiper       50    Rp 6.000  2026-03-02 10:04 +00:00',
            'INV20260302000004  cancelled   expired  vip_server  BuilderBob      200   Rp 24.000  2026-03-02 10:03 +00:00',
            'INV20260302000003  processing  paid     gamepass    BuilderBob    6.000  Rp 648.000  2026-03-02 10:02 +00:00',
            'INV20260302000002  pending     pending  gamepass    BuilderBob      100   Rp 12.000  2026-03-02 10:01 +00:00',
            '',
          ]
      ).join('\n'),
    );
    expect((await h.run(['dashboard'], { tty: true })).out).toMatch(ANSI_ESCAPE);
  });

  it('--json prints exactly the data object', async () => {
    const result = await h.run(['--json', 'dashboard']);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').account.dashboard());
    expect(result.err).toBe('');
  });

  it('embedded, with no orders: the terminal view says so', async () => {
    const result = await h.runEmbedded(['dashboard', '--no-color'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.out).toMatch(LEAN ? /^Recent orders\n-\n$/m : /^Recent orders\nNo orders yet\.\n$/m);
    expect(result.out).toMatch(LEAN ? /^balance {11}-$/m : /^balance {11}Rp 0$/m);
  });
});

describe('topup dashboard --watch', () => {
  beforeEach(() => seedRichHistory(h));

  /** Aborts (as Ctrl-C does) after the `after`-th pause; runs `between` after the first one. */
  function interruptAfter(after: number, between?: () => Promise<void>): AbortSignal {
    const controller = new AbortController();
    h.time.onSleep = async (count) => {
      if (count === 1) await between?.();
      if (count === after) controller.abort();
    };
    return controller.signal;
  }

  // A lean dashboard has no field that could show the change.
  it.skipIf(LEAN)('piped: one record per refresh at the recommended 15 s, picks up changes, and Ctrl-C exits 130', async () => {
    const signal = interruptAfter(2, () => h.sandbox.control.pay('INV20260302000002'));
    const result = await h.run(['dashboard', '--watch'], { signal });
    expect(result.code).toBe(130);
    const pause = pollIntervals.dashboard.recommended * 1000;
    expect(h.time.slept).toEqual([pause, pause]);
    const records = result.out.split('\n\n');
    expect(records).toHaveLength(2);
    expect(records[0]).toMatch(/^pending_invoices: 1$/m);
    expect(records[1]).toMatch(/^pending_invoices: 0$/m);
    expect(records[1]).toMatch(/^recent_order: INV20260302000002\tprocessing\tpaid\t/m);
    expect(result.err).toBe('');
  });

  it('a longer interval is kept as given', async () => {
    const result = await h.run(['dashboard', '--watch', '25'], { signal: interruptAfter(3) });
    expect(result.code).toBe(130);
    expect(h.time.slept).toEqual([25_000, 25_000, 25_000]);
  });

  it('a longer refresh_after_seconds from the server wins over the interval', async () => {
    const slower: typeof globalThis.fetch = async (input, init) => {
      const response = await h.sandbox.fetch(input, init);
      const body = await response.json();
      body.data.refresh_after_seconds = 40;
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
    const result = await h.run(['dashboard', '--watch', '20'], { fetch: slower, signal: interruptAfter(2) });
    expect(result.code).toBe(130);
    expect(h.time.slept).toEqual([40_000, 40_000]);
  });

  it('--json: one JSON line per refresh, each exactly the data object', async () => {
    const expected = await h.client('rich').account.dashboard();
    const result = await h.run(['--json', 'dashboard', '--watch'], { signal: interruptAfter(3) });
    expect(result.code).toBe(130);
    const lines = result.out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toEqual(expected);
    expect(result.err).toBe('');
  });

  // The frame's geometry below is the full dashboard's.
  it.skipIf(LEAN)('terminal: each refresh redraws the previous frame in place', async () => {
    const result = await h.run(['dashboard', '--watch', '--no-color'], { tty: true, signal: interruptAfter(2) });
    expect(result.code).toBe(130);
    const frames = result.out.split('\u001b[');
    // First frame, then "<rows>A\r" + "J" + second frame.
    expect(frames).toHaveLength(3);
    // 14 lines, none wider than the 100-column terminal (the recent orders leave out a column to fit): 14 rows.
    const lines = frames[0]!.trimEnd().split('\n');
    expect(lines).toHaveLength(14);
    expect(lines.filter((line) => line.length > 100)).toHaveLength(0);
    expect(frames[1]).toBe('14A\r');
    expect(frames[2]!.startsWith('JDashboard\n')).toBe(true);
    expect(frames[0]).toMatch(/^Updated 10:05:00 \+00:00; refreshing every 15 s\. Press Ctrl-C to stop\.$/m);
    expect(frames[2]).toMatch(/^Updated 10:05:15 \+00:00; refreshing every 15 s\. Press Ctrl-C to stop\.$/m);
  });
});
