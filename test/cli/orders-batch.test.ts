import { execFileSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { MAX_LEDGER_ROWS, readLedger } from '../../src/cli/commands/orders/batch-ledger.js';
import { defaultLedgerPath } from '../../src/cli/commands/orders/batch-run.js';
import { isStreamedInput } from '../../src/cli/commands/orders/batch-source.js';
import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { formatMark, systemProbe } from '../../src/process-mark.js';
import { useServedCli, type RunOptions, type ServedSandbox } from './run-cli.js';

let served: ServedSandbox;
let configDir: string;
const topup = useServedCli(
  (context) => {
    served = context.served;
    configDir = context.configDir;
  },
  { reset: true },
);

/** Fake time for the client's pacer and retries: a batch paced at 10 a minute runs at once. */
function fakeClock() {
  let now = Date.parse('2026-04-01T00:00:00Z');
  return {
    now: () => now,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      now += ms;
    },
  };
}

let dir: string;
/** The request journal outlives a reset: each test counts only its own requests. */
let journalStart = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'topup-batch-test-'));
  journalStart = served.sandbox.requests.list().at(-1)?.id ?? 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** As `rich` (production, chat-linked) against the served sandbox over HTTP, on fake time. */
const asRich = (args: string[], options: RunOptions = {}) =>
  topup([...args, '--base-url', served.url], {
    clock: fakeClock(),
    ...options,
    env: { TOPUP_TOKEN: served.token('rich'), ...options.env },
  });

const orderPosts = () => served.sandbox.requests.list({ method: 'POST', path: '/api/v1/me/orders', afterId: journalStart });
const ledgerLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * 25 rows after the header: 3 the server refuses as invalid (an unknown payment method), 2 the platform refuses, and
 * row 20 repeating row 3 (its client_reference and order): 19 orders.
 */
function mixedRows(): { csv: string } {
  const rows = ['type,username,place,pass,payment_method,reference'];
  for (let i = 1; i <= 25; i++) {
    if (i === 5 || i === 11 || i === 17) rows.push(`gamepass,BuilderBob,5001,9001,crypto,bad-method-${i}`);
    else if (i === 8) rows.push(`gamepass,BuilderBob,5001,9101,,not-in-place-${i}`);
    else if (i === 14) rows.push(`gamepass,ghost_user_404,5001,9001,,ghost-${i}`);
    else if (i === 20) rows.push('gamepass,BuilderBob,5001,9002,,ref-3');
    else rows.push(`gamepass,BuilderBob,5001,${i % 2 === 0 ? 9001 : 9002},,ref-${i}`);
  }
  return { csv: `${rows.join('\r\n')}\r\n` };
}

describe('orders batch over HTTP (a served sandbox)', () => {
  it('25 rows: the right orders, the right ledger, exit 5; a re-run sends nothing; appended rows alone are sent', async () => {
    const { csv } = mixedRows();
    const input = file('orders.csv', `\ufeff${csv}`);
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code, result.err).toBe(5);
    const lines = result.out
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(lines).toHaveLength(25);
    const byLine = new Map(lines.map(([line, status, key, code]) => [Number(line), { status, key, code }]));
    for (const line of [6, 12, 18]) expect(byLine.get(line)).toMatchObject({ status: 'rejected', code: 'PAYMENT_METHOD_UNAVAILABLE' });
    for (const line of [9, 15]) expect(byLine.get(line)).toMatchObject({ status: 'rejected', code: 'PLATFORM_VALIDATION_FAILED' });
    // The repeated reference is the same order as line 4 (the first row is the header).
    expect(byLine.get(21)).toEqual(byLine.get(4));
    // Who answered each row: this run, or (the repeat) the row it repeats.
    expect(lines.map((columns) => columns[4])).toEqual(lines.map(([line]) => (line === '21' ? 'same-as-line-4' : 'this-run')));
    const created = lines.filter(([, status]) => status === 'created');
    expect(created).toHaveLength(20);
    expect(new Set(created.map(([, , , code]) => code)).size).toBe(19);
    expect(result.err).toMatch(
      /created: 19; already existed: 0; rejected: 5 \(PAYMENT_METHOD_UNAVAILABLE 3, PLATFORM_VALIDATION_FAILED 2\); repeated rows: 1/,
    );
    expect(result.err).toContain(`results: ${input}.results.jsonl`);
    expect(result.err).toMatch(/Error: 5 of 25 rows were rejected/);

    const richOrders = served.sandbox.store.db.orders.all().filter((o) => o.client_reference?.startsWith('ref-'));
    expect(richOrders.map((o) => o.invoice_code).sort()).toEqual([...new Set(created.map(([, , , code]) => code))].sort());
    expect(orderPosts()).toHaveLength(24);

    // The ledger: the batch line, then a `sent` before each `result`, every key once.
    const ledger = ledgerLines(`${input}.results.jsonl`);
    expect(ledger[0]).toMatchObject({ t: 'batch', batch: 'orders.csv' });
    const events = ledger.slice(1);
    expect(events).toHaveLength(48);
    for (let i = 0; i < events.length; i += 2) {
      expect(events[i]).toMatchObject({ t: 'sent' });
      expect(events[i + 1]).toMatchObject({ t: 'result', key: events[i]!.key, line: events[i]!.line });
    }
    expect(events.filter((e) => e.t === 'result' && e.status === 'created')).toHaveLength(19);
    expect(events.find((e) => e.line === 9 && e.t === 'result')).toMatchObject({
      status: 'rejected',
      error: { code: 'PLATFORM_VALIDATION_FAILED', status: 422, message: 'Pass 9101 is not a pass of place 5001.' },
    });

    const again = await asRich(['orders', 'batch', input]);
    expect(again.code).toBe(5);
    // The same rows, each now answered by the earlier run.
    expect(again.out).toBe(result.out.replaceAll('\tthis-run\n', '\tearlier-run\n'));
    expect(orderPosts()).toHaveLength(24);

    writeFileSync(input, `${csv}gamepass,BuilderBob,5001,9004,,appended-1\r\ngamepass,BuilderBob,5001,9001,,appended-2\r\n`);
    const appended = await asRich(['orders', 'batch', input, '--retry-rejected']);
    // The 5 rejected rows are sent again (and refused again); of the rest, only the two new rows.
    expect(orderPosts()).toHaveLength(24 + 5 + 2);
    expect(
      appended.out
        .trim()
        .split('\n')
        .slice(-2)
        .map((l) => l.split('\t')[1]),
    ).toEqual(['created', 'created']);
    expect(served.sandbox.store.db.orders.all().filter((o) => o.client_reference?.startsWith('appended-'))).toHaveLength(2);
  });

  it('--json: one JSON object per row on stdout, nothing else; the key of each row in it', async () => {
    const input = file(
      'two.jsonl',
      '{"username":"BuilderBob","place":5001,"pass":9001,"reference":"j1"}\n{"platform_username":"BuilderBob","place_id":"5001","gamepass_id":9002}\n',
    );
    const result = await asRich(['--json', 'orders', 'batch', input]);
    expect(result.code, result.err).toBe(0);
    const rows = result.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows).toEqual([
      expect.objectContaining({
        line: 1,
        status: 'created',
        earlier: false,
        key: expect.stringMatching(/^two\.jsonl-[0-9a-f]{32}$/),
        amount: 12_000,
        currency: 'IDR',
      }),
      expect.objectContaining({ line: 2, status: 'created', invoice_code: expect.stringMatching(/^INV\d+$/) }),
    ]);
    expect(orderPosts().map((entry) => entry.idempotency_key)).toEqual(rows.map((row) => row.key));
    expect(result.err).toBe('');
  });

  it('a row edited after it was sent is refused by line, with its key, and nothing is sent', async () => {
    const input = file('edit.csv', 'username,place,pass,reference\nBuilderBob,5001,9001,e1\nBuilderBob,5001,9002,e2\n');
    expect((await asRich(['orders', 'batch', input])).code).toBe(0);
    writeFileSync(input, 'username,place,pass,reference\nBuilderBob,5001,9001,e1\nBuilderBob,5001,9004,e2\nBuilderBob,5001,9001,e3\n');
    const edited = await asRich(['orders', 'batch', input]);
    expect(edited.code).toBe(2);
    const key = ledgerLines(`${input}.results.jsonl`).find((e) => e.line === 3)!.key as string;
    expect(edited.err).toContain(
      `line 3: changed since it was sent with key ${key}; give it a new client_reference or run it under another --batch`,
    );
    expect(edited.err).toMatch(/Error: 1 fault in .*edit\.csv; nothing was sent\./);
    expect(orderPosts()).toHaveLength(2);
  });

  it('a row in flight when the last run died is sent again with its key, and the server returns the one order', async () => {
    const input = file(
      'flight.jsonl',
      '{"username":"BuilderBob","place":5001,"pass":9001,"reference":"f1"}\n{"username":"BuilderBob","place":5001,"pass":9002,"reference":"f2"}\n',
    );
    const dry = await asRich(['--json', 'orders', 'batch', input, '--dry-run']);
    const [first] = dry.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(first).toMatchObject({ status: 'would-send', line: 1 });
    // The crashed run: its `sent` line is on disk, the order was made, the answer never recorded; the last line torn.
    const { createClient } = await import('../../src/client/index.js');
    const client = createClient({ baseUrl: served.url, token: served.token('rich') });
    const made = await client.orders.create(first.body, { idempotencyKey: first.key });
    const digest = (await import('../../src/client/batch-key.js')).orderDigest;
    writeFileSync(
      `${input}.results.jsonl`,
      `${JSON.stringify({ t: 'batch', v: 1, batch: 'flight.jsonl', at: '2026-04-01T00:00:00.000Z' })}\n` +
        `${JSON.stringify({ t: 'sent', line: 1, key: first.key, digest: await digest(first.body), at: '2026-04-01T00:00:00.000Z' })}\n{"t":"res`,
      { mode: 0o600 },
    );
    const resumed = await asRich(['orders', 'batch', input]);
    expect(resumed.code, resumed.err).toBe(0);
    // Sent again by this run, with its key: the server answers with the order the lost run made.
    expect(resumed.out.split('\n')[0]).toBe(`1\t${LEAN_EXISTED}\t${first.key}\t${made.invoice.invoice_code}\tthis-run`);
    expect(served.sandbox.store.db.orders.all().filter((o) => o.client_reference === 'f1')).toHaveLength(1);
    expect(orderPosts().filter((entry) => entry.idempotency_key === first.key)).toHaveLength(2);
    // The torn line was ended, and the ledger reads whole.
    expect(ledgerLines(`${input}.results.jsonl`).filter((e) => e.t === 'result')).toHaveLength(2);
  });

  it('a results file with a line past the ledger limit is refused as damaged, without buffering it, and nothing is sent', async () => {
    const input = file('huge.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    const batchLine = JSON.stringify({ t: 'batch', v: 1, batch: 'huge.csv', at: '2026-04-01T00:00:00.000Z' });
    writeFileSync(`${input}.results.jsonl`, `${batchLine}\n{"t":"sent","key":"${'k'.repeat(2 * 1024 * 1024)}"}\n${batchLine}\n`, {
      mode: 0o600,
    });
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `The results file ${input}.results.jsonl is damaged at line 2 (longer than a ledger record may be (1048576 bytes)); fix or move it`,
    );
    expect(orderPosts()).toHaveLength(0);
  });

  it('a results file naming more rows than any batch leaves is refused before its index grows, and nothing is sent', async () => {
    const input = file('many.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    const at = '2026-04-01T00:00:00.000Z';
    const lines = [JSON.stringify({ t: 'batch', v: 1, batch: 'many.csv', at })];
    for (let i = 0; i <= MAX_LEDGER_ROWS; i++) lines.push(`{"t":"sent","line":1,"key":"k${i}","digest":"d","at":"${at}"}`);
    writeFileSync(`${input}.results.jsonl`, `${lines.join('\n')}\n`, { mode: 0o600 });
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `The results file ${input}.results.jsonl names more than 200,000 rows, more than any batch leaves; move it, or use another --results file.`,
    );
    expect(orderPosts()).toHaveLength(0);
    // One row fewer is a ledger like any other: read, and its one row of this batch sent.
    writeFileSync(`${input}.results.jsonl`, `${lines.slice(0, -1).join('\n')}\n`, { mode: 0o600 });
    expect((await asRich(['orders', 'batch', input])).code).toBe(0);
    expect(orderPosts()).toHaveLength(1);
  });

  // The batch name defaults to the file's name: last week's orders.csv in a new folder has last week's keys.
  it('rows another run ordered under the same batch name: said on stderr, --json too; rows new to the server are not', async () => {
    const rows = 'username,place,pass,reference\nBuilderBob,5001,9001,w1\nBuilderBob,5001,9002,w2\n';
    mkdirSync(join(dir, 'week1'));
    mkdirSync(join(dir, 'week2'));
    const first = await asRich(['orders', 'batch', file('week1/orders.csv', rows)]);
    expect(first.code).toBe(0);
    expect(first.err).not.toContain('already ordered');
    const again = await asRich(['--json', 'orders', 'batch', file('week2/orders.csv', `${rows}BuilderBob,5001,9004,w3\n`)]);
    expect(again.code).toBe(0);
    expect(
      again.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { status: string }).status),
    ).toEqual(['existed', 'existed', 'created']);
    expect(again.err).toContain(
      '2 rows were already ordered under the batch name "orders.csv" by a run whose results are not in this file, and were not ordered again. To order them anew, name this batch: --batch NAME.\n',
    );
    // Run again in the same folder: its own results file knows every row, so nothing is said.
    const third = await asRich(['orders', 'batch', join(dir, 'week2/orders.csv')]);
    expect(third.code).toBe(0);
    expect(third.err).not.toContain('already ordered');
  });

  it("a row whose answer was lost after the server made it is this run's order: created, and nothing said of another run", async () => {
    // The server commits the second row's order, then drops the connection; the client sends it again with its key.
    served.sandbox.faults.configure({ rules: [{ kind: 'drop_after', after: 1, times: 1, routes: ['createOrder'] }] });
    const input = file('lost.csv', 'username,place,pass,reference\nBuilderBob,5001,9001,l1\nBuilderBob,5001,9002,l2\n');
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code, result.err).toBe(0);
    expect(
      result.out
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[1]),
    ).toEqual(['created', 'created']);
    expect(result.err).toMatch(/created: 2; already existed: 0; rejected: 0/);
    expect(result.err).not.toContain('already ordered');
    // The journal keeps the dropped answer without a status.
    expect(orderPosts().map((entry) => entry.status)).toEqual([201, null, 200]);
    expect(served.sandbox.faults.stats.rules.map((rule) => rule.fired)).toEqual([1]);
  });

  it('reading a results file stops at Ctrl-C with its reason', async () => {
    const path = file('read.results.jsonl', `${JSON.stringify({ t: 'batch', v: 1, batch: 'read', at: '2026-04-01T00:00:00.000Z' })}\n`);
    expect((await readLedger(path))?.batch).toBe('read');
    const reason = Object.assign(new Error('Interrupted.'), { signal: 'SIGINT' });
    await expect(readLedger(path, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('a 401 stops the batch with the resume command and exit 4; nothing more is sent', async () => {
    const input = file('auth.csv', 'username,place,pass\nBuilderBob,5001,9001\nBuilderBob,5001,9002\n');
    const result = await asRich(['orders', 'batch', input], { env: { TOPUP_TOKEN: 'topup_live_not_a_real_token_00000000' } });
    expect(result.code).toBe(4);
    expect(result.err).toContain(`The batch stopped at line 2 (key auth.csv-`);
    expect(result.err).toContain(`topup orders batch ${input} --base-url ${served.url}`);
    expect(orderPosts()).toHaveLength(1);
  });

  it('Ctrl-C stops after the row in flight, says how to resume, and the resume ends with one order per row', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `BuilderBob,5001,9001,c${i}`);
    const input = file('ctrlc.csv', `username,place,pass,reference\n${rows.join('\n')}\n`);
    const controller = new AbortController();
    const unsubscribe = served.sandbox.requests.subscribe((entry) => {
      if (entry.method === 'POST' && orderPosts().length >= 2)
        controller.abort(Object.assign(new Error('Interrupted.'), { signal: 'SIGINT' }));
    });
    const stopped = await asRich(['orders', 'batch', input], { signal: controller.signal });
    unsubscribe();
    expect(stopped.code).toBe(130);
    expect(stopped.err).toMatch(/Stopped after the row in flight; \d rows? not sent\. Resume with:\n {2}topup orders batch /);
    const sentBefore = orderPosts().length;
    expect(ledgerLines(`${input}.results.jsonl`).filter((e) => e.t === 'result')).toHaveLength(sentBefore);
    const resumed = await asRich(['orders', 'batch', input]);
    expect(resumed.code).toBe(0);
    expect(orderPosts()).toHaveLength(6);
    expect(served.sandbox.store.db.orders.all().filter((o) => o.client_reference?.startsWith('c'))).toHaveLength(6);
  });

  it('with --json, a stop that can be resumed says how in its JSON on stderr, never as text', async () => {
    const auth = file('auth-json.csv', 'username,place,pass\nBuilderBob,5001,9001\nBuilderBob,5001,9002\n');
    const refused = await asRich(['orders', 'batch', auth, '--json'], { env: { TOPUP_TOKEN: 'topup_live_not_a_real_token_00000000' } });
    expect(refused.code).toBe(4);
    const lines = refused.err.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      success: false,
      error: { kind: 'auth' },
      resume_command: `topup orders batch ${auth} --json --base-url ${served.url}`,
      // As the summary counts them: the stopped row is sent again by the resume, with its key.
      rows_not_sent: 2,
    });

    const rows = Array.from({ length: 6 }, (_, i) => `BuilderBob,5001,9001,j${i}`);
    const input = file('ctrlc-json.csv', `username,place,pass,reference\n${rows.join('\n')}\n`);
    const controller = new AbortController();
    const unsubscribe = served.sandbox.requests.subscribe((entry) => {
      if (entry.method === 'POST' && orderPosts().length >= 2)
        controller.abort(Object.assign(new Error('Interrupted.'), { signal: 'SIGINT' }));
    });
    const stopped = await asRich(['orders', 'batch', input, '--json'], { signal: controller.signal });
    unsubscribe();
    expect(stopped.code).toBe(130);
    const said = stopped.err.trimEnd().split('\n');
    expect(said).toHaveLength(1);
    const envelope = JSON.parse(said[0]!) as { message: string; error: { kind: string }; resume_command: string; rows_not_sent: number };
    expect(envelope).toMatchObject({
      success: false,
      error: { kind: 'interrupted' },
      resume_command: `topup orders batch ${input} --json --base-url ${served.url}`,
    });
    expect(envelope.rows_not_sent).toBe(6 - orderPosts().filter((entry) => entry.request_body?.includes('"j')).length);
    expect(envelope.message).toBe(`Stopped after the row in flight; ${envelope.rows_not_sent} rows not sent.`);
  });

  it('rows paying by balance with a production token need --yes without a terminal; --max-total stops the batch', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => `BuilderBob,5001,9001,balance,b${i}`);
    const input = file('live.csv', `username,place,pass,payment_method,reference\n${rows.join('\n')}\n`);
    const refused = await asRich(['orders', 'batch', input, '--chat-user-id', '700000001']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('4 rows pay by balance with a production token, which spends real money: add --yes to confirm');
    expect(orderPosts()).toHaveLength(0);

    const capped = await asRich(['orders', 'batch', input, '--chat-user-id', '700000001', '--yes', '--max-total', '20000']);
    expect(capped.code).toBe(5);
    expect(capped.err).toContain("The batch's orders reached --max-total (a total of 24000); 2 rows not sent");
    expect(orderPosts()).toHaveLength(2);

    // A dry run says what the same command would now do: send none, since the earlier orders reached the cap.
    const dry = await asRich(['orders', 'batch', input, '--dry-run', '--max-total', '20000']);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(
      'Dry run of 4 valid rows: would send none of 2 (the orders it made before add up to 24000, already at --max-total 20000), 2 answered before. Nothing was sent.',
    );
    expect(dry.out.split('\n').map((line) => line.split('\t')[1])).toEqual(['created', 'created', 'held', 'held', undefined]);
    const real = await asRich(['orders', 'batch', input, '--chat-user-id', '700000001', '--yes', '--max-total', '20000']);
    expect(real.err).toContain('2 rows not sent');
    expect(orderPosts()).toHaveLength(2);
    // A higher cap: up to the rest, stopping at it.
    const higher = await asRich(['orders', 'batch', input, '--dry-run', '--max-total', '30000']);
    expect(higher.err).toContain(
      'Dry run of 4 valid rows: would send up to 2, stopping once its orders add up to --max-total 30000 (24000 made before), 2 answered before.',
    );
  });

  describe('--max-total is kept, or the batch stops: answers a cap cannot add up', () => {
    /**
     * The served sandbox over HTTP, with the invoice of its `nth` order answer (1-based) changed by `change`: a server
     * we did not write, that sends an amount or a currency the document does not promise.
     */
    function alteringOrder(nth: number, change: (invoice: Record<string, unknown>) => void): typeof globalThis.fetch {
      let orders = 0;
      return async (input, init) => {
        const answer = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (init?.method !== 'POST' || !url.endsWith('/api/v1/me/orders') || !answer.ok) return answer;
        const body = (await answer.json()) as { data: { invoice: Record<string, unknown> } };
        if (++orders === nth) change(body.data.invoice);
        return new Response(JSON.stringify(body), { status: answer.status, headers: answer.headers });
      };
    }
    const rows = (name: string) =>
      file(`${name}.csv`, `username,place,pass,reference\n${[1, 2, 3, 4].map((i) => `BuilderBob,5001,9001,${name}-${i}`).join('\n')}\n`);

    it.each([
      ['no amount', (invoice: Record<string, unknown>) => delete invoice.amount, 'amount: missing'],
      ['a negative amount', (invoice: Record<string, unknown>) => (invoice.amount = -5000), 'amount: -5000'],
      ['an amount past 2^53', (invoice: Record<string, unknown>) => (invoice.amount = 2 ** 60), 'amount: 1152921504606847000'],
      ['an amount as text', (invoice: Record<string, unknown>) => (invoice.amount = '6000'), 'amount: "6000"'],
    ])('%s: the order is recorded, the batch stops after it, exit 5', async (name, change, shown) => {
      const input = rows(name.replace(/\W+/g, '-'));
      const result = await asRich(['orders', 'batch', input, '--max-total', '1000000'], { fetch: alteringOrder(2, change) });
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(
        `Line 3's order was made, but its answer gives no amount --max-total can count (${shown}); so the batch stopped, with 2 rows not sent: check the orders in the results file, then run the same command without --max-total to send the rest.`,
      );
      expect(orderPosts()).toHaveLength(2);
      // The order it could not count is in the ledger, as made: a resume never sends it again.
      const results = ledgerLines(`${input}.results.jsonl`).filter((e) => e.t === 'result');
      expect(results.map((e) => e.line)).toEqual([2, 3]);
      expect(results.every((e) => e.status === 'created')).toBe(true);
      // A resume with the cap is refused before anything is sent: the ledger cannot say what was spent.
      const again = await asRich(['orders', 'batch', input, '--max-total', '1000000']);
      expect(again.code).toBe(1);
      expect(again.err).toContain(
        `--max-total cannot be kept for this batch: an order it made before has no amount and currency it can count in ${input}.results.jsonl; run it without --max-total (nothing was sent).`,
      );
      expect(orderPosts()).toHaveLength(2);
      // Without the cap the rest is sent.
      expect((await asRich(['orders', 'batch', input])).code).toBe(0);
      expect(orderPosts()).toHaveLength(4);
    });

    it('an order in another currency than the ones before it stops the batch; without a cap nothing stops', async () => {
      const input = rows('currency');
      const result = await asRich(['orders', 'batch', input, '--max-total', '1000000'], {
        fetch: alteringOrder(3, (invoice) => (invoice.currency = 'USD')),
      });
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(
        "Line 4's order was made, but it is in USD and the batch's orders before it in IDR, and --max-total adds up one currency; so the batch stopped, with 1 row not sent:",
      );
      expect(orderPosts()).toHaveLength(3);
      const again = await asRich(['orders', 'batch', input, '--max-total', '1000000']);
      expect(again.err).toContain(
        '--max-total cannot be kept for this batch: the orders it made before are in more than one currency (IDR, USD);',
      );
      expect(orderPosts()).toHaveLength(3);

      // An order that names no currency, first or later, cannot be added up either; the run and its resume agree.
      const nameless = rows('nameless');
      const first = await asRich(['orders', 'batch', nameless, '--max-total', '1000000'], {
        fetch: alteringOrder(1, (invoice) => delete invoice.currency),
      });
      expect(first.code).toBe(5);
      expect(first.err).toContain(
        "Line 2's order was made, but its answer names no currency, so --max-total cannot add it up; so the batch stopped, with 3 rows not sent:",
      );
      expect(orderPosts()).toHaveLength(4);
      expect((await asRich(['orders', 'batch', nameless, '--max-total', '1000000'])).err).toContain(
        'has no amount and currency it can count',
      );
      expect(orderPosts()).toHaveLength(4);

      const uncapped = rows('uncapped');
      const sent = await asRich(['orders', 'batch', uncapped], { fetch: alteringOrder(1, (invoice) => delete invoice.amount) });
      expect(sent.code, sent.err).toBe(0);
      expect(orderPosts()).toHaveLength(8);
    });

    it('the last row unaccounted for: every row was sent, and it says the cap could not be checked', async () => {
      const input = rows('last');
      const result = await asRich(['orders', 'batch', input, '--max-total', '1000000'], {
        fetch: alteringOrder(4, (invoice) => delete invoice.amount),
      });
      expect(result.code).toBe(5);
      expect(result.err).toContain(
        "Line 5's order was made, but its answer gives no amount --max-total can count (amount: missing); it was the last row, so every row was sent, but the cap could not be checked: see the orders in the results file.",
      );
      expect(orderPosts()).toHaveLength(4);
    });
  });

  it('--wait polls every created invoice until final and records it in the ledger', async () => {
    const input = file(
      'wait.csv',
      'username,place,pass,payment_method,reference\nBuilderBob,5001,9001,balance,w1\nBuilderBob,5001,9002,balance,w2\n',
    );
    const result = await asRich(['orders', 'batch', input, '--chat-user-id', '700000001', '--yes', '--wait']);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/\n2\tfinal\t\S+\tINV\d+\tpaid\n3\tfinal\t\S+\tINV\d+\tpaid\n$/);
    expect(
      ledgerLines(`${input}.results.jsonl`)
        .filter((e) => e.t === 'final')
        .map((e) => e.payment_status),
    ).toEqual(['paid', 'paid']);
    expect(result.err).toContain('Final: paid 2.');
  });

  it('--wait: a check that fails past the retries (502) is reported, and that invoice is checked again', async () => {
    const input = file('flaky.csv', 'username,place,pass,payment_method,reference\nBuilderBob,5001,9001,balance,k1\n');
    // The first status check and the client's 4 retries of it all get a 502; the next check answers.
    served.sandbox.faults.configure({ rules: [{ kind: 'error', status: 502, times: 5, routes: ['getInvoiceStatus'] }] });
    const result = await asRich(['orders', 'batch', input, '--chat-user-id', '700000001', '--yes', '--wait']);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toMatch(
      /\nCould not check INV\d+ at \d\d:\d\d:\d\d \+00:00: The gateway got no valid answer from the service; retry shortly\. It will be checked again\.\n/,
    );
    expect(result.out).toMatch(/\n2\tfinal\t\S+\tINV\d+\tpaid\n$/);
    expect(served.sandbox.faults.stats.error).toBe(5);
  });

  it('--wait whose invoices end unpaid is exit 5, as invoices status --wait is', async () => {
    // TestOutcomes' pass 9901: the sandbox's order whose invoice fails at once.
    const input = file('fails.csv', 'username,place,pass,reference\nTestOutcomes,5900,9901,f1\n');
    const result = await asRich(['orders', 'batch', input, '--wait']);
    expect(result.err).toContain('Final: failed 1.');
    expect(result.code).toBe(5);
    expect(result.err).toMatch(/Error: 1 of 1 invoice ended unpaid \(failed 1\); see the results file for which\.\n$/);
  });

  it('a second run on the same ledger while the first holds it refuses; a lock left by a dead process is taken over', async () => {
    const input = file('lock.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    writeFileSync(`${input}.results.jsonl.lock`, String(process.pid));
    const refused = await asRich(['orders', 'batch', input]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`Another batch (process ${process.pid}) is using ${input}.results.jsonl`);
    expect(orderPosts()).toHaveLength(0);
    // No process has this id (above the kernel's pid_max).
    writeFileSync(`${input}.results.jsonl.lock`, '4194399');
    expect((await asRich(['orders', 'batch', input])).code).toBe(0);
    expect(orderPosts()).toHaveLength(1);
  });

  it.runIf(process.platform === 'linux')(
    'a lock naming a pid since given to another process (a reboot, a restarted container) is taken over',
    async () => {
      const earlier = (pid: number) => {
        const [boot, namespace, ticks] = systemProbe().startOf(pid)!.split(':');
        return `${pid} ${boot}:${namespace}:${Number(ticks) - 1}`;
      };
      // This very process (the CLI runs in it here) with another start: a predecessor that had its pid.
      const own = file('lock-own.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
      writeFileSync(`${own}.results.jsonl.lock`, earlier(process.pid));
      expect((await asRich(['orders', 'batch', own])).code).toBe(0);
      expect(orderPosts()).toHaveLength(1);
      expect(existsSync(`${own}.results.jsonl.lock`)).toBe(false);
      // This process as it is: a live owner, refused as before.
      const live = file('lock-live.csv', 'username,place,pass\nBuilderBob,5001,9002\n');
      writeFileSync(`${live}.results.jsonl.lock`, formatMark(systemProbe().own));
      const refused = await asRich(['orders', 'batch', live]);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`Another batch (process ${process.pid}) is using ${live}.results.jsonl`);
      expect(orderPosts()).toHaveLength(1);
    },
  );

  it('a run killed while it took over a lock left its takeover file: the next run takes both over at once', async () => {
    const input = file('takeover.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    // Both left by processes that no longer run (ids above the kernel's pid_max), the takeover just now.
    writeFileSync(`${input}.results.jsonl.lock`, '4194399');
    writeFileSync(`${input}.results.jsonl.lock.takeover`, '4194398');
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code, result.err).toBe(0);
    expect(orderPosts()).toHaveLength(1);
    expect(existsSync(`${input}.results.jsonl.lock.takeover`)).toBe(false);
    // A takeover by a process that runs is waited for, never removed: the run gives up, nothing sent.
    const other = file('takeover-live.csv', 'username,place,pass\nBuilderBob,5001,9002\n');
    writeFileSync(`${other}.results.jsonl.lock`, '4194399');
    writeFileSync(`${other}.results.jsonl.lock.takeover`, String(process.pid));
    const refused = await asRich(['orders', 'batch', other]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('other runs keep taking it');
    expect(readFileSync(`${other}.results.jsonl.lock.takeover`, 'utf8')).toBe(String(process.pid));
    expect(orderPosts()).toHaveLength(1);
  });

  it('a lock of 600 MiB names no process: taken over as a damaged one is, never read whole', async () => {
    const input = file('huge-lock.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    writeFileSync(`${input}.results.jsonl.lock`, String(process.pid));
    truncateSync(`${input}.results.jsonl.lock`, 600 * 2 ** 20);
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code, result.err).toBe(0);
    expect(orderPosts()).toHaveLength(1);
    expect(existsSync(`${input}.results.jsonl.lock`)).toBe(false);
  });

  it('the ledger is 0600 and never a symbolic link: a link planted at its name is refused, nothing sent', async () => {
    const input = file('safe.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    expect((await asRich(['orders', 'batch', input])).code).toBe(0);
    expect(statSync(`${input}.results.jsonl`).mode & 0o777).toBe(0o600);
    const other = file('someone-else.txt', 'not yours\n');
    const linked = file('linked.csv', 'username,place,pass\nBuilderBob,5001,9002\n');
    symlinkSync(other, `${linked}.results.jsonl`);
    const refused = await asRich(['orders', 'batch', linked]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`Refusing to use ${linked}.results.jsonl: it is a symbolic link.`);
    expect(readFileSync(other, 'utf8')).toBe('not yours\n');
    expect(orderPosts()).toHaveLength(1);
  });

  it('a file edited while the batch runs: the changed row is never sent, and the run says so', async () => {
    // Blank lines (skipped) put the later rows a megabyte on, past what the run has read ahead when the edit is made.
    const row = (pass: number, reference: string) => JSON.stringify({ username: 'BuilderBob', place: 5001, pass, reference });
    const text = (second: number) => `${row(9001, 'e1')}\n${'\n'.repeat(1_000_000)}${row(second, 'e2')}\n${row(9001, 'e3')}\n`;
    const input = file('edited.jsonl', text(9001));
    const unsubscribe = served.sandbox.requests.subscribe((entry) => {
      if (entry.method === 'POST') writeFileSync(input, text(9002));
    });
    const result = await asRich(['orders', 'batch', input]);
    unsubscribe();
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `Error: ${input} changed while the batch ran (line 1000002 is not the row that was checked); the batch stopped, and no changed row was sent.`,
    );
    expect(orderPosts()).toHaveLength(1);
    // Run again: the file is checked as it is now, and the rest is sent.
    const again = await asRich(['orders', 'batch', input]);
    expect(again.code, again.err).toBe(0);
    expect(orderPosts()).toHaveLength(3);
  });

  it('a results file in a folder that does not exist: one sentence, exit 2, nothing sent', async () => {
    const input = file('nowhere.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    const results = join(dir, 'no-such-folder', 'r.jsonl');
    const result = await asRich(['orders', 'batch', input, '--results', results]);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `Error: The folder of the results file ${results} does not exist; create it, or choose another file with --results FILE.\n`,
    );
    expect(orderPosts()).toHaveLength(0);
  });

  it.each([
    ['1.5', '--max-total must be a whole number.'],
    ['0', '--max-total must be at least 1.'],
    ['99999999999999999999', '--max-total must be from 1 to 9007199254740991.'],
  ])('--max-total %s is refused before anything is read or sent (amounts are whole numbers)', async (cap, message) => {
    const input = file('capped.csv', 'username,place,pass\nBuilderBob,5001,9001\n');
    const result = await asRich(['orders', 'batch', input, '--max-total', cap]);
    expect(result.code).toBe(2);
    expect(result.err).toBe(`Error: option '--max-total <amount>' argument '${cap}' is invalid. ${message}\n`);
    expect(orderPosts()).toHaveLength(0);
  });

  it('on a terminal: a progress bar on stderr, or one line per row with --progress lines', async () => {
    const input = file('bar.csv', 'username,place,pass,reference\nBuilderBob,5001,9001,p1\nBuilderBob,5001,9101,p2\n');
    const bar = await asRich(['orders', 'batch', input, '--no-color'], { tty: true });
    expect(bar.code).toBe(5);
    expect(bar.out).toBe('');
    expect(bar.err).toContain('\r\u001b[K[##########..........] 1/2  done 1  failed 0  left 1  line 2 created  ETA 6s');
    expect(bar.err).toMatch(/\ncreated +1\n/);
    expect(bar.err).toContain('line 3: PLATFORM_VALIDATION_FAILED Pass 9101 is not a pass of place 5001.');
    const lines = await asRich(['orders', 'batch', input, '--retry-rejected', '--progress', 'lines', '--no-color'], { tty: true });
    expect(lines.err).not.toContain(ANSI_ESCAPE);
    // First where the answers come from (before any progress, so no line lands inside a bar), then the progress.
    expect(lines.err.split('\n').slice(0, 5)).toEqual([
      `→ ${served.url}`,
      `Warning: a production token answered by a test server at ${served.url} — this is not the real shop.`,
      '1/2  done 1  failed 0  left 1  ETA 6s',
      '1/2  done 1  failed 0  left 1  sending line 3 (BuilderBob)  ETA 6s',
      '2/2  done 1  failed 1  left 0  line 3 rejected',
    ]);
  });
});

/** A re-sent in-flight row comes back as the earlier order: `idempotent: true` is guaranteed, so both shapes say existed. */
const LEAN_EXISTED = 'existed';

describe('orders batch: input checked before anything is sent', () => {
  it('every fault is listed with its line and field, exit 2, nothing sent', async () => {
    const input = file(
      'bad.csv',
      'username,place,pass,colour\nBuilderBob,5001,9001,red\nBuilderBob,five,9001,red\nx y,5001,,red\n"BuilderBob, Jr",5001,9001\n',
    );
    const result = await asRich(['orders', 'batch', input]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      [
        'line 1: unknown column "colour" (known: order_type, type, platform_username, username, place_id, place, platform_pass_id, gamepass_id, pass, payment_method, payment-method, client_reference, reference)',
        'line 3: place_id must be a whole number from 1',
        'line 4: platform_username must be one word without spaces or control characters, up to 256 characters',
        'line 4: platform_pass_id is missing',
        'line 5: has 3 fields, the header has 4',
      ].join('\n'),
    );
    expect(result.err).toMatch(/Error: 5 faults in .*bad\.csv; nothing was sent\.\n$/);
    expect(orderPosts()).toHaveLength(0);
  });

  it('stdin is spooled and needs --batch and --format; --dry-run prints what would be sent', async () => {
    const jsonl = '{"username":"BuilderBob","place":5001,"pass":9001}\n\n{"username":"BuilderBob","place":5001,"pass":9001}\n';
    const noName = await asRich(['orders', 'batch', '-'], { stdin: jsonl });
    expect(noName.code).toBe(2);
    expect(noName.err).toContain('Reading stdin, name the batch with --batch NAME');
    const dry = await asRich(
      ['orders', 'batch', '-', '--batch', 'from stdin', '--format', 'jsonl', '--results', join(dir, 'r.jsonl'), '--dry-run'],
      {
        stdin: jsonl,
      },
    );
    expect(dry.code, dry.err).toBe(0);
    const rows = dry.out
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    // Two identical rows are two orders: other keys.
    expect(rows.map(([line, status]) => [line, status])).toEqual([
      ['1', 'would-send'],
      ['3', 'would-send'],
    ]);
    expect(rows[0]![2]).toMatch(/^from_stdin-[0-9a-f]{32}$/);
    expect(rows[0]![2]).not.toBe(rows[1]![2]);
    expect(dry.err).toContain('Dry run of 2 valid rows: would send 2, 0 answered before. Nothing was sent.');
    expect(orderPosts()).toHaveLength(0);
    const sent = await asRich(['orders', 'batch', '-', '--batch', 'from stdin', '--format', 'jsonl', '--results', join(dir, 'r.jsonl')], {
      stdin: jsonl,
    });
    expect(
      sent.out
        .trim()
        .split('\n')
        .map((line) => line.split('\t').slice(0, 3)),
    ).toEqual(rows.map((row) => [row[0], 'created', row[2]]));
  });

  it('a named pipe (a FIFO, `<(make-rows)`) is read once and spooled: every row checked and sent, none lost', async () => {
    // More than one read's worth (64 KiB), so that a second read of the pipe would have found nothing at all, and a
    // first read that only looked would have eaten the first rows.
    const rows = Array.from({ length: 1_200 }, (_, i) => `{"username":"BuilderBob","place":5001,"pass":9001,"reference":"fifo-${i}"}`);
    const fifo = join(dir, 'rows.fifo');
    execFileSync('mkfifo', [fifo]);
    const noName = await asRich(['orders', 'batch', fifo, '--format', 'jsonl']);
    expect(noName.code).toBe(2);
    expect(noName.err).toMatch(/rows\.fifo can be read only once \(it is no regular file\): name the batch with --batch NAME/);
    // The writer opens when the batch does (a FIFO's open waits for the other end), and ends after the last row.
    const writer = createWriteStream(fifo);
    writer.end(`${rows.join('\n')}\n`);
    const dry = await asRich([
      'orders',
      'batch',
      fifo,
      '--format',
      'jsonl',
      '--batch',
      'piped',
      '--results',
      join(dir, 'r.jsonl'),
      '--dry-run',
    ]);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(`Dry run of ${rows.length} valid rows: would send ${rows.length}, 0 answered before. Nothing was sent.`);
    const lines = dry.out.trim().split('\n');
    expect(lines).toHaveLength(rows.length);
    expect(lines.map((line) => line.split('\t')[0])).toEqual(rows.map((_, i) => String(i + 1)));
    expect(orderPosts()).toHaveLength(0);
    // Sent: every row once, in order.
    const again = createWriteStream(fifo);
    again.end(`${rows.slice(0, 30).join('\n')}\n`);
    const sent = await asRich(['orders', 'batch', fifo, '--format', 'jsonl', '--batch', 'piped', '--results', join(dir, 'r.jsonl')]);
    expect(sent.code, sent.err).toBe(0);
    expect(orderPosts()).toHaveLength(30);
    expect(orderPosts().map((entry) => (JSON.parse(entry.request_body ?? '{}') as { client_reference?: string }).client_reference)).toEqual(
      rows.slice(0, 30).map((_, i) => `fifo-${i}`),
    );
    // Without --results, its ledger is the batch's, in the current folder, as for stdin: a pipe's folder is no place.
    expect(defaultLedgerPath('/dev/fd/63', 'piped', true)).toBe('piped.results.jsonl');
    expect(defaultLedgerPath(join(dir, 'rows.jsonl'), 'rows.jsonl')).toBe(join(dir, 'rows.jsonl.results.jsonl'));
  });

  it('a file that is not UTF-8 (a Latin-1 export) is refused at its line, nothing sent; UTF-8 split across reads is whole', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('type,username,place,pass,payment_method,reference\ngamepass,BuilderBob,5001,9001,,plain-1\n'),
      Buffer.from('gamepass,BuilderBob,5001,9001,,M\xfcller-2\n', 'latin1'),
    ]);
    const path = join(dir, 'export.csv');
    writeFileSync(path, latin1);
    for (const args of [[path], [path, '--dry-run']]) {
      const result = await asRich(['orders', 'batch', ...args]);
      expect(result).toMatchObject({ code: 2, out: '' });
      expect(result.err).toMatch(/export\.csv is not UTF-8 text \(line 3 has bytes that are not\): save it as UTF-8/);
    }
    expect(orderPosts()).toHaveLength(0);
    // UTF-16, as a spreadsheet's "Unicode text" writes it, is no UTF-8 either.
    const utf16 = join(dir, 'unicode.csv');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('type,username\r\n', 'utf16le')]));
    expect((await asRich(['orders', 'batch', utf16, '--dry-run'])).err).toMatch(/unicode\.csv is not UTF-8 text \(line 1/);

    // A two-byte character whose bytes fall on both sides of a 64 KiB read.
    const row = (reference: string, pad = '') => `{"username":"BuilderBob","place":5001,"pass":9001,"reference":"${reference}"${pad}}\n`;
    let text = '';
    for (let i = 0; Buffer.byteLength(text) < 60_000; i++) text += row(`r-${i}`);
    const target = row('M\u00fcller-x');
    const before = 65_535 - Buffer.byteLength(text) - Buffer.byteLength(row('pad')) - target.indexOf('\u00fc');
    text += row('pad', ' '.repeat(before)) + target;
    expect(Buffer.from(text).subarray(65_535, 65_537).toString()).toBe('\u00fc');
    const dry = await asRich(['orders', 'batch', file('split.jsonl', text), '--dry-run']);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain('"client_reference":"M\u00fcller-x"');
    expect(dry.out).not.toContain('\ufffd');
  });

  it('names the line of the first byte that is not UTF-8, wherever the 64 KiB reads fall', async () => {
    const row = (reference: string, pad = '') => `{"username":"BuilderBob","place":5001,"pass":9001,"reference":"${reference}"${pad}}\n`;
    /** Rows, then padding, so that `next` (bytes) starts at byte `at`; and the line `next` starts on. */
    const upTo = (at: number): { text: Buffer; line: number } => {
      let text = '';
      for (let i = 0; Buffer.byteLength(text) < at - 2_000; i++) text += row(`r-${i}`);
      text += row('pad', ' '.repeat(at - Buffer.byteLength(text) - Buffer.byteLength(row('pad'))));
      return { text: Buffer.from(text), line: text.split('\n').length };
    };
    const cases = [
      // A character split across the first read, then a Latin-1 byte three lines on.
      (() => {
        const { text, line } = upTo(65_535);
        return {
          bytes: Buffer.concat([text, Buffer.from(`${row('M\u00fcller')}${row('a')}${row('b')}`), Buffer.from('{"x":"\xe9"}\n', 'latin1')]),
          line: line + 3,
        };
      })(),
      // A lead byte that ends the first read, and a line break after it: the line of the lead byte.
      (() => {
        const { text, line } = upTo(65_535);
        return { bytes: Buffer.concat([text, Buffer.from([0xc3, 0x0a]), Buffer.from(row('c'))]), line };
      })(),
      // A real U+FFFD on line 1 is text, not the bad byte on line 3.
      { bytes: Buffer.concat([Buffer.from(`${row('\ufffd')}${row('b')}`), Buffer.from([0x22, 0xff, 0x0a])]), line: 3 },
      // A character cut off at the very end.
      { bytes: Buffer.concat([Buffer.from(`${row('a')}${row('b')}`), Buffer.from([0xe2, 0x82])]), line: 3 },
    ];
    for (const [i, { bytes, line }] of cases.entries()) {
      const path = join(dir, `case-${i}.jsonl`);
      writeFileSync(path, bytes);
      const result = await asRich(['orders', 'batch', path, '--dry-run']);
      expect(result.code, `case ${i}`).toBe(2);
      expect(result.err, `case ${i}`).toContain(`case-${i}.jsonl is not UTF-8 text (line ${line} has bytes that are not)`);
    }
    expect(orderPosts()).toHaveLength(0);
  });

  it('which inputs are streams: /dev and /proc names, FIFOs; not a file, a link to one, or a folder', async () => {
    const regular = file('rows.jsonl', '{}\n');
    const link = join(dir, 'link.jsonl');
    symlinkSync(regular, link);
    const fifo = join(dir, 'rows.fifo');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(dir, 'folder.jsonl'));
    expect(await isStreamedInput('-')).toBe(true);
    expect(await isStreamedInput('/dev/stdin')).toBe(true);
    expect(await isStreamedInput('/proc/self/fd/0')).toBe(true);
    expect(await isStreamedInput(fifo)).toBe(true);
    expect(await isStreamedInput(regular)).toBe(false);
    expect(await isStreamedInput(link)).toBe(false);
    expect(await isStreamedInput(join(dir, 'folder.jsonl'))).toBe(false);
    expect(await isStreamedInput(join(dir, 'missing.jsonl'))).toBe(false);
    // /dev/stdin names no folder for a ledger, even when a file is behind it: it needs --batch, as stdin does.
    const devStdin = await asRich(['orders', 'batch', '/dev/stdin', '--format', 'jsonl']);
    expect(devStdin.code).toBe(2);
    expect(devStdin.err).toContain('/dev/stdin can be read only once (it is no regular file): name the batch with --batch NAME');
    const folder = await asRich(['orders', 'batch', join(dir, 'folder.jsonl')]);
    expect(folder.code).toBe(2);
    expect(folder.err).toMatch(/Cannot read .*folder\.jsonl: it is a folder\./);
  });

  it('Ctrl-C while a pipe is still being copied stops at once and leaves no copy behind', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'topup-spools-'));
    const tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = spoolDir;
    const fifo = join(dir, 'slow.fifo');
    execFileSync('mkfifo', [fifo]);
    // A writer that sends one row and then nothing, without ending: a generator that is slow to make its rows.
    const writer = createWriteStream(fifo);
    writer.write('{"username":"BuilderBob","place":5001,"pass":9001}\n');
    onTestFinished(() => {
      writer.destroy();
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
      rmSync(spoolDir, { recursive: true, force: true });
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await asRich(['orders', 'batch', fifo, '--format', 'jsonl', '--batch', 'slow', '--results', join(dir, 'r.jsonl')], {
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(orderPosts()).toHaveLength(0);
  });

  it('more rows than one batch takes is one sentence, exit 2, nothing sent', async () => {
    const row = '{"username":"BuilderBob","place":5001,"pass":9001}\n';
    const input = file('huge.jsonl', row.repeat(100_001));
    const result = await asRich(['orders', 'batch', input, '--dry-run']);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toMatch(
      /Error: .*huge\.jsonl has more than 100,000 rows, the most one batch takes; split it into batches of their own \(each with its own --batch name\)\.\n$/,
    );
    expect(orderPosts()).toHaveLength(0);
    // 100,000 rows are one batch.
    const most = await asRich(['orders', 'batch', file('most.jsonl', row.repeat(100_000)), '--dry-run']);
    expect(most.err).toContain('Dry run of 100000 valid rows');
  });

  it('stdin past 256 MiB is refused as it passes it, and its spooled copy removed', async () => {
    // A folder of its own for the spool (os.tmpdir() reads TMPDIR), so that no other test's spool counts.
    const spoolDir = mkdtempSync(join(tmpdir(), 'topup-spools-'));
    const tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = spoolDir;
    onTestFinished(() => {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
      rmSync(spoolDir, { recursive: true, force: true });
    });
    const chunk = Buffer.alloc(2 ** 20, '\n');
    const stdin = (function* () {
      for (let i = 0; i < 257; i++) yield chunk;
    })();
    const result = await asRich(['orders', 'batch', '-', '--batch', 'endless', '--format', 'jsonl'], { stdin });
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toContain(
      'stdin is more than 256 MiB, the most one batch takes; split it into batches of their own (each with its own --batch name).',
    );
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(orderPosts()).toHaveLength(0);
  });

  it('the embedded sandbox (--mock), in-process: the same batch, its ledger beside the file', async () => {
    const input = file(
      'offline.jsonl',
      '{"username":"BuilderBob","place":5001,"pass":9001,"reference":"o1"}\n{"username":"BuilderBob","place":5001,"pass":9003,"reference":"o2"}\n',
    );
    const result = await topup(['--mock', 'orders', 'batch', input]);
    expect(result.code).toBe(5);
    expect(
      result.out
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[1]),
    ).toEqual(['created', 'rejected']);
    expect(configDir).toBeTruthy();
    const again = await topup(['--mock', 'orders', 'batch', input]);
    expect(again.out).toBe(result.out.replaceAll('\tthis-run\n', '\tearlier-run\n'));
    const list = await topup(['--mock', '--json', 'orders', 'list', '--reference', 'o1']);
    expect(JSON.parse(list.out).orders).toHaveLength(1);
  });
});

/** A sandbox with the published limits over HTTP, on one fake clock with the CLI runs given to `use`; closed after. */
async function withLimitedSandbox(
  use: (limited: {
    limited: Awaited<ReturnType<typeof import('../../mocks/assembly/sandbox.js').createSandbox>>;
    server: { url: string };
    clock: ReturnType<typeof fakeClock>;
    runCli: typeof import('./run-cli.js').runCli;
  }) => Promise<void>,
): Promise<void> {
  const { createSandbox } = await import('../../mocks/assembly/sandbox.js');
  const { startHttpSandbox } = await import('../../mocks/adapters/http.js');
  const { runCli } = await import('./run-cli.js');
  const clock = fakeClock();
  const limited = await createSandbox({ now: clock.now });
  const server = await startHttpSandbox(limited, { port: 0 });
  try {
    await use({ limited, server, clock, runCli });
  } finally {
    await server.close();
  }
}

describe('orders batch: pacing across a kill and a resume', () => {
  it('30 rows on a sandbox with the published limits: no 429, also when resumed right after a stop', async () => {
    await withLimitedSandbox(async ({ limited, server, clock, runCli }) => {
      const rows = Array.from({ length: 30 }, (_, i) => `BuilderBob,5001,9001,paced-${i}`);
      const input = file('paced.csv', `username,place,pass,reference\n${rows.join('\n')}\n`);
      const env = { TOPUP_TOKEN: limited.account('rich').token };
      const posts = () => limited.requests.list({ method: 'POST', path: '/api/v1/me/orders' });
      const controller = new AbortController();
      const unsubscribe = limited.requests.subscribe(() => {
        if (posts().length >= 10) controller.abort(Object.assign(new Error('Interrupted.'), { signal: 'SIGINT' }));
      });
      const stopped = await runCli(configDir, ['orders', 'batch', input, '--base-url', server.url], {
        env,
        clock,
        signal: controller.signal,
      });
      unsubscribe();
      expect(stopped.code).toBe(130);
      expect(posts()).toHaveLength(10);
      // A new process at once: its client's pacer starts empty, and only the ledger's send times keep it in the limit.
      const resumed = await runCli(configDir, ['orders', 'batch', input, '--base-url', server.url], { env, clock });
      expect(resumed.code, resumed.err).toBe(0);
      expect(posts().map((entry) => entry.status)).toEqual(Array(30).fill(201));
      expect(limited.store.db.orders.all().filter((o) => o.client_reference?.startsWith('paced-'))).toHaveLength(30);
    });
  });

  it('the pause for the limit is said in the progress, not as a line across the bar', async () => {
    await withLimitedSandbox(async ({ limited, server, clock, runCli }) => {
      const env = { TOPUP_TOKEN: limited.account('rich').token };
      for (const mode of ['lines', 'bar']) {
        const rows = Array.from({ length: 11 }, (_, i) => `BuilderBob,5001,9001,wait-${mode}-${i}`);
        const input = file(`wait-${mode}.csv`, `username,place,pass,reference\n${rows.join('\n')}\n`);
        const result = await runCli(configDir, ['orders', 'batch', input, '--base-url', server.url, '--progress', mode, '--no-color'], {
          env,
          clock,
          tty: true,
        });
        expect(result.code, result.err).toBe(0);
        expect(result.err).toMatch(/\/11 {2}done \d+ {2}failed 0 {2}left \d+ {2}waiting 6\d s for the rate limit/);
        // Said in the bar's own line: nothing else was written between its redraws.
        expect(result.err).not.toMatch(/Waiting \d+ s/);
      }
    });
  });
});
