import { createHash } from 'node:crypto';
import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { describe, expect, it } from 'vitest';
import { useHarness, seedRichHistory, type Harness } from './read-harness.js';
import { expectUsageError, LEAN, leanLines } from '../support/cli-assertions.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

/** A lean server names no field of a balance or a transaction: every one is a dash. */
const DASH_ROW = '-\t-\t-\t-\t-\t-\t-\n';
const TRX2 = LEAN
  ? DASH_ROW
  : 'TRX00000005\t2026-03-02T10:04:00Z\tdebit\t6000\t10044000\tINV20260302000005\tPayment of order INV20260302000005\n';
const TRX1 = LEAN ? DASH_ROW : 'TRX00000004\t2026-03-02T10:00:00Z\tcredit\t50000\t10050000\tINV20260302000001\tDeposit INV20260302000001\n';
/** The seeded balance's own transaction, the account's first (mocks/store/seed.ts). */
const OPENING = LEAN ? DASH_ROW : 'TRX00000001\t2026-01-15T09:00:00Z\tcredit\t10000000\t10000000\t-\tOpening balance\n';
const BALANCE_DROPPED = ['balance', 'currency', 'updated_at', 'updated'];
/** NDJSON output, one parsed record a line. */
const jsonLines = (text: string): unknown[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
/** A lean server's page says not which page it is: a page past the first may be the first again. */
const unsaidPage = (noun: string, page: number) =>
  LEAN ? `The server's answer does not say which page it is (it has no pagination), so these ${noun} may not be page ${page}.\n` : '';
const firstPageOnly = (noun: string) =>
  LEAN
    ? `The server does not say whether there are more ${noun} than these (its answer has no pagination); only the first page is shown.\n`
    : '';

describe('argument parsing', () => {
  it.each([
    { args: ['balance', '--watch', '10'], err: /The balance may be refreshed at most every 30 seconds; use --watch 30 or more\./ },
    { args: ['balance', '--watch', '29'], err: /at most every 30 seconds/ },
    { args: ['transactions', '--page', '0'], err: /--page must be from 1 to 1000000\./ },
    { args: ['transactions', '--page', 'two'], err: /--page must be a whole number\./ },
    { args: ['transactions', '--per-page', '101'], err: /--per-page must be from 1 to 100\./ },
    { args: ['transactions', '--per-page', '0'], err: /--per-page must be from 1 to 100\./ },
    { args: ['transactions', '--per-page', '-5'], err: /--per-page must be from 1 to 100\./ },
    { args: ['transactions', '--all', '--page', '2'], err: /option '--all' cannot be used with option '--page <n>'/ },
    { args: ['transactions', '--type', 'refund'], err: /Allowed choices are credit, debit/ },
    { args: ['deposits', 'list', '--status', 'done'], err: /Allowed choices are pending, paid, expired, failed, refunded/ },
    { args: ['deposits', 'show', 'DEP1'], err: /An invoice code is INV followed by up to 32 digits/ },
    { args: ['deposits', 'show'], err: /missing required argument 'invoice'/ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await h.run(args);
    expectUsageError(result, err);
  });
});

describe('topup balance', () => {
  it('piped: raw integer amount', async () => {
    const result = await h.run(['balance']);
    expect(result).toEqual({
      code: 0,
      out: leanLines(['balance: 10044000', 'currency: IDR', 'updated_at: 2026-03-02T10:04:00Z', ''], BALANCE_DROPPED).join('\n'),
      err: '',
    });
  });

  it('terminal: the formatted amount; ANSI_ESCAPE only without --no-color', async () => {
    const plain = await h.run(['balance', '--no-color'], { tty: true });
    expect(plain.out).toBe(
      leanLines(['Balance', 'balance   Rp 10.044.000', 'currency  IDR', 'updated   2026-03-02 10:04 +00:00', ''], BALANCE_DROPPED).join(
        '\n',
      ),
    );
    expect((await h.run(['balance'], { tty: true })).out).toMatch(ANSI_ESCAPE);
  });

  it('--json: exactly the data object', async () => {
    const result = await h.run(['--json', 'balance']);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').balance.get());
    expect(result.err).toBe('');
  });

  it('embedded demo account: zero', async () => {
    const result = await h.runEmbedded(['balance']);
    expect(result.out).toBe(leanLines(['balance: 0', 'currency: IDR', 'updated_at: 2026-01-15T09:00:00Z', ''], BALANCE_DROPPED).join('\n'));
  });

  it('--watch: every 30 s by default, one record per refresh, a deposit shows up, Ctrl-C exits 130', async () => {
    const controller = new AbortController();
    h.time.onSleep = async (count) => {
      if (count === 1) await h.sandbox.control.deposit({ amount: 100_000, account: 'rich', paid: true });
      if (count === 2) controller.abort();
    };
    const result = await h.run(['balance', '--watch'], { signal: controller.signal });
    expect(result.code).toBe(130);
    expect(h.time.slept).toEqual([30_000, 30_000]);
    // Lean: the records are dashes, so the deposit cannot show; the refreshes still come every 30 s.
    expect(result.out).toBe(
      [
        ...leanLines(['balance: 10044000', 'currency: IDR', 'updated_at: 2026-03-02T10:04:00Z', ''], BALANCE_DROPPED),
        ...leanLines(['balance: 10144000', 'currency: IDR', 'updated_at: 2026-03-02T10:05:30Z', ''], BALANCE_DROPPED),
      ].join('\n'),
    );
    expect(result.err).toBe('');
  });

  it('--watch: a refresh that fails after the retries (502) ends nothing; the next one shows the balance again', async () => {
    const controller = new AbortController();
    const refreshes = () => h.time.slept.filter((ms) => ms === 30_000).length;
    h.time.onSleep = () => {
      // After the first refresh: every attempt of the second fails (the first and its 4 retries); the third answers.
      if (h.time.slept.length === 1)
        h.sandbox.faults.configure({ rules: [{ kind: 'error', status: 502, times: 5, routes: ['getBalance'] }] });
      if (refreshes() === 3) controller.abort();
    };
    const result = await h.run(['balance', '--watch'], { signal: controller.signal });
    expect(result.code, result.err).toBe(130);
    const record = leanLines(['balance: 10044000', 'currency: IDR', 'updated_at: 2026-03-02T10:04:00Z', ''], BALANCE_DROPPED).join('\n');
    expect(result.out).toBe(`${record}\n${record}`);
    expect(result.err).toMatch(
      /^Could not refresh at \d\d:\d\d:\d\d \+00:00: The gateway got no valid answer from the service; retry shortly\. Trying again in 30 s\.\n$/,
    );
  });

  it('--watch --json: a failed refresh is said on stderr, and the JSON lines go on', async () => {
    const controller = new AbortController();
    h.time.onSleep = () => {
      if (h.time.slept.length === 1)
        h.sandbox.faults.configure({ rules: [{ kind: 'error', status: 502, times: 5, routes: ['getBalance'] }] });
      if (h.time.slept.filter((ms) => ms === 30_000).length === 3) controller.abort();
    };
    const result = await h.run(['--json', 'balance', '--watch'], { signal: controller.signal });
    expect(result.code, result.err).toBe(130);
    const expected = await h.client('rich').balance.get();
    expect(jsonLines(result.out)).toEqual([expected, expected]);
    expect(result.err).toMatch(/^Could not refresh at \d\d:\d\d:\d\d \+00:00: .+\. Trying again in 30 s\.\n$/);
  });

  it('--watch on a terminal: a failed refresh redraws the last figures with when they were fetched and why the refresh failed', async () => {
    const controller = new AbortController();
    h.time.onSleep = () => {
      if (h.time.slept.length === 1)
        h.sandbox.faults.configure({ rules: [{ kind: 'error', status: 503, times: 5, routes: ['getBalance'] }] });
      if (h.sandbox.faults.stats.error === 5) controller.abort();
    };
    const result = await h.run(['balance', '--watch', '--no-color'], { signal: controller.signal, tty: true });
    expect(result.code, result.err).toBe(130);
    const frames = result.out;
    expect(frames).toMatch(/Updated (\d\d:\d\d:\d\d) \+00:00; refreshing every 30 s\. Press Ctrl-C to stop\./);
    const updated = /Updated (\d\d:\d\d:\d\d)/.exec(frames)![1];
    expect(frames).toMatch(
      new RegExp(
        `Updated ${updated} \\+00:00\\. Could not refresh at \\d\\d:\\d\\d:\\d\\d \\+00:00: .+\\. Trying again in 30 s\\. Press Ctrl-C to stop\\.`,
      ),
    );
    expect(result.err).toBe('');
  });

  it('--watch: a failure that will not pass by itself (the token refused) still ends the watch', async () => {
    h.time.onSleep = async () => {
      const digest = createHash('sha256').update(h.sandbox.account('rich').token).digest('hex');
      const state = h.sandbox.snapshot();
      const tokens = (state.tables.tokens as Record<string, unknown>[]).map((t) =>
        t.token_sha256 === digest ? { ...t, revoked: true } : t,
      );
      await h.sandbox.control.loadState({ ...state, tables: { ...state.tables, tokens } });
    };
    const result = await h.run(['balance', '--watch']);
    expect(result.code, result.err).toBe(4);
    expect(h.time.slept).toEqual([30_000]);
  });

  it('--watch --json: JSON lines', async () => {
    const controller = new AbortController();
    h.time.onSleep = (count) => void (count === 2 && controller.abort());
    const result = await h.run(['--json', 'balance', '--watch', '45'], { signal: controller.signal });
    expect(result.code).toBe(130);
    expect(h.time.slept).toEqual([45_000, 45_000]);
    const expected = await h.client('rich').balance.get();
    expect(jsonLines(result.out)).toEqual([expected, expected]);
  });
});

describe('topup transactions', () => {
  it('piped: one TSV row per transaction, raw amounts, no header', async () => {
    expect(await h.run(['transactions'])).toEqual({ code: 0, out: TRX2 + TRX1 + OPENING, err: '' });
  });

  it('terminal: aligned, signed formatted amounts', async () => {
    const result = await h.run(['transactions', '--no-color'], { tty: true, columns: 130 });
    expect(result.out).toBe(
      (LEAN
        ? [
            'ID  CREATED  TYPE  AMOUNT  BALANCE AFTER  REFERENCE  DESCRIPTION',
            '-   -        -          -              -  -          -',
            '-   -        -          -              -  -          -',
            '-   -        -          -              -  -          -',
            '',
          ]
        : [
            'ID           CREATED                  TYPE            AMOUNT  BALANCE AFTER  REFERENCE          DESCRIPTION',
            'TRX00000005  2026-03-02 10:04 +00:00  debit        -Rp 6.000  Rp 10.044.000  INV20260302000005  Payment of order INV20260302000005',
            'TRX00000004  2026-03-02 10:00 +00:00  credit      +Rp 50.000  Rp 10.050.000  INV20260302000001  Deposit INV20260302000001',
            'TRX00000001  2026-01-15 09:00 +00:00  credit  +Rp 10.000.000  Rp 10.000.000  -                  Opening balance',
            '',
          ]
      ).join('\n'),
    );
    expect(result.err).toBe('');
    expect((await h.run(['transactions'], { tty: true })).out).toMatch(ANSI_ESCAPE);
  });

  it("--json: exactly the page's data object", async () => {
    const result = await h.run(['--json', 'transactions', '--per-page', '1']);
    expect(JSON.parse(result.out)).toEqual(await h.client('rich').balance.transactions({ per_page: 1 }));
  });

  it.each([
    { args: ['--page', '2', '--per-page', '1'], out: TRX1, err: unsaidPage('transactions', 2) },
    { args: ['--page', '3', '--per-page', '1'], out: OPENING, err: unsaidPage('transactions', 3) },
    { args: ['--page', '4', '--per-page', '1'], out: '', err: unsaidPage('transactions', 4) },
    { args: ['--type', 'credit'], out: TRX1 + OPENING },
    { args: ['--all', '--per-page', '1'], out: LEAN ? TRX2 : TRX2 + TRX1 + OPENING, err: firstPageOnly('transactions') },
  ])('paging and filters: $args', async ({ args, out, err }) => {
    expect(await h.run(['transactions', ...args])).toEqual({ code: 0, out, err: err ?? '' });
  });

  it('--all --json follows every page into { transactions: [...] }', async () => {
    const result = await h.run(['--json', 'transactions', '--all', '--per-page', '1']);
    const every = [];
    for await (const t of h.client('rich').balance.transactions()) every.push(t);
    expect(every).toHaveLength(3);
    // Lean: no pagination, so --all with one a page can only give the first.
    expect(JSON.parse(result.out)).toEqual({ transactions: LEAN ? every.slice(0, 1) : every });
    expect(result.err).toBe(firstPageOnly('transactions'));
  });

  it('terminal: a hint for the next page on stderr, with the same flags', async () => {
    const result = await h.run(['transactions', '--per-page', '1', '--no-color'], { tty: true });
    expect(result.err).toBe(
      LEAN ? '' : 'Page 1 of 3 (3 transactions). Next: topup --base-url http://sandbox.localhost transactions --per-page 1 --page 2\n',
    );
    const empty = await h.runEmbedded(['transactions', '--no-color'], { tty: true });
    expect(empty.out).toBe('');
    expect(empty.err).toMatch(/^No transactions\.$/m);
  });
});

describe('topup deposits', () => {
  const DEPOSIT = `INV20260302000001\tpaid\t50000\tbank_transfer\t${LEAN ? '-\t-' : '2026-03-02T10:00:00Z\t2026-03-02T10:00:00Z'}\n`;

  it('list piped, filtered by payment status', async () => {
    expect(await h.run(['deposits', 'list'])).toEqual({ code: 0, out: DEPOSIT, err: '' });
    expect(await h.run(['deposits', 'list', '--status', 'paid'])).toEqual({ code: 0, out: DEPOSIT, err: '' });
    expect(await h.run(['deposits', 'list', '--status', 'pending'])).toEqual({ code: 0, out: '', err: '' });
  });

  it('list terminal and --json', async () => {
    const tty = await h.run(['deposits', 'list', '--no-color'], { tty: true, columns: 120 });
    expect(tty.out).toBe(
      (LEAN
        ? [
            'INVOICE            STATUS     AMOUNT  METHOD         CREATED  PAID',
            'INV20260302000001  paid    Rp 50.000  bank_transfer  -        -',
            '',
          ]
        : [
            'INVOICE            STATUS     AMOUNT  METHOD         CREATED                  PAID',
            'INV20260302000001  paid    Rp 50.000  bank_transfer  2026-03-02 10:00 +00:00  2026-03-02 10:00 +00:00',
            '',
          ]
      ).join('\n'),
    );
    const json = await h.run(['--json', 'deposits', 'list']);
    expect(JSON.parse(json.out)).toEqual(await h.client('rich').deposits.list());
  });

  it('list --all --json', async () => {
    await h.sandbox.control.deposit({ amount: 20_000, account: 'rich' });
    const result = await h.run(['--json', 'deposits', 'list', '--all', '--per-page', '1']);
    expect(
      JSON.parse(result.out).deposits.map((d: { invoice_code: string; payment_status: string }) => `${d.invoice_code} ${d.payment_status}`),
    ).toEqual(['INV20260302000006 pending', ...(LEAN ? [] : ['INV20260302000001 paid'])]);
    expect(result.err).toBe(firstPageOnly('deposits'));
  });

  it('show: piped record, terminal record, --json', async () => {
    expect((await h.run(['deposits', 'show', 'INV20260302000001'])).out).toBe(
      leanLines(
        [
          'invoice_code: INV20260302000001',
          'payment_status: paid',
          'amount: 50000',
          'currency: IDR',
          'payment_method: bank_transfer',
          'invoice_url: http://sandbox.localhost/user/invoice/INV20260302000001',
          'created_at: 2026-03-02T10:00:00Z',
          'expires_at: 2026-03-02T11:00:00Z',
          'paid_at: 2026-03-02T10:00:00Z',
          '',
        ],
        ['created_at', 'expires_at', 'paid_at'],
      ).join('\n'),
    );
    const tty = await h.run(['deposits', 'show', 'inv20260302000001', '--no-color'], { tty: true });
    expect(tty.out.split('\n').slice(0, 4)).toEqual([
      'Deposit INV20260302000001',
      'invoice      INV20260302000001',
      'status       paid',
      'amount       Rp 50.000',
    ]);
    const json = await h.run(['--json', 'deposits', 'show', 'INV20260302000001']);
    expect(JSON.parse(json.out)).toEqual(await h.client('rich').deposits.get('INV20260302000001'));
  });

  it("show: another account's deposit is not found (exit 1)", async () => {
    const result = await h.run(['deposits', 'show', 'INV20260302000001'], { account: 'unlinked' });
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toBe('Error: Deposit INV20260302000001 was not found.\n');
  });
});
