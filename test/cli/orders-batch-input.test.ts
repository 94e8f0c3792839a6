import { describe, expect, it } from 'vitest';
import { MAX_RECORD_CHARS, RecordSplitter, type BatchFormat, type FileRecord } from '../../src/cli/commands/orders/batch-records.js';
import { CsvRows, parseJsonLine } from '../../src/cli/commands/orders/batch-rows.js';
import { progressBar, progressText } from '../../src/cli/commands/orders/batch-progress.js';
import { PollSchedule, waitForInvoices } from '../../src/cli/commands/orders/batch-wait.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { createClient } from '../../src/client/index.js';
import { fakeClock } from '../support/fake-clock.js';
import { resumeCommand } from '../../src/cli/commands/orders/batch-run.js';
import { serverText } from '../../src/cli/commands/orders/batch-ledger.js';

/** The records of `text` fed in chunks of every size from 1 up: a boundary anywhere must not change them. */
function recordsOf(text: string, format: BatchFormat): FileRecord[] {
  let expected: FileRecord[] | undefined;
  for (const size of [1, 2, 3, 5, 7, text.length || 1]) {
    const splitter = new RecordSplitter(format);
    const records: FileRecord[] = [];
    for (let at = 0; at < text.length; at += size) records.push(...splitter.push(text.slice(at, at + size)));
    records.push(...splitter.end());
    if (expected === undefined) expected = records;
    else expect(records, `chunks of ${size}`).toEqual(expected);
  }
  return expected!;
}

describe('CSV records', () => {
  it.each([
    {
      name: 'plain, LF',
      text: 'a,b\n1,2\n',
      records: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    },
    {
      name: 'CRLF, no final break',
      text: 'a,b\r\n1,2',
      records: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    },
    { name: 'a byte-order mark', text: '\ufeffa,b\n', records: [{ line: 1, fields: ['a', 'b'] }] },
    { name: 'quoted commas', text: '"x, y",z\n', records: [{ line: 1, fields: ['x, y', 'z'] }] },
    { name: 'doubled quotes', text: '"say ""hi""",""\n', records: [{ line: 1, fields: ['say "hi"', ''] }] },
    {
      name: 'a quote inside a field that began without one is that character, and never joins rows',
      text: 'gamepass,5" screen,9001\ngamepass,7" tab,9002\n',
      records: [
        { line: 1, fields: ['gamepass', '5" screen', '9001'] },
        { line: 2, fields: ['gamepass', '7" tab', '9002'] },
      ],
    },
    { name: 'one such quote alone', text: 'a,5",b\n', records: [{ line: 1, fields: ['a', '5"', 'b'] }] },
    {
      name: 'a line break in quotes (CRLF kept as one break), the next record on line 3',
      text: '"one\r\ntwo",b\r\nc,d\r\n',
      records: [
        { line: 1, fields: ['one\ntwo', 'b'] },
        { line: 3, fields: ['c', 'd'] },
      ],
    },
    {
      name: 'an empty line',
      text: 'a\n\nb\n',
      records: [
        { line: 1, fields: ['a'] },
        { line: 2, fields: [''] },
        { line: 3, fields: ['b'] },
      ],
    },
  ])('$name', ({ text, records }) => {
    expect(recordsOf(text, 'csv')).toEqual(records);
  });

  it('a quote never closed is one fault at its record, not a hang or a swallowed file', () => {
    expect(recordsOf('a,b\n"open,1\n2,3\n', 'csv')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, error: 'a quoted field is never closed (a missing " before the end of the file)' },
    ]);
  });

  it('a record past the limit is refused without being held', () => {
    const splitter = new RecordSplitter('csv');
    const records = [...splitter.push(`${'x'.repeat(MAX_RECORD_CHARS + 10)}\nok\n`), ...splitter.end()];
    expect(records).toEqual([
      { line: 1, error: `the row is longer than ${MAX_RECORD_CHARS} characters` },
      { line: 2, fields: ['ok'] },
    ]);
  });
});

describe('JSON Lines records', () => {
  it('lines with their numbers, CRLF and a BOM taken off', () => {
    expect(recordsOf('\ufeff{"a":1}\r\n\n{"b":"x,\\"y"}', 'jsonl')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '' },
      { line: 3, text: '{"b":"x,\\"y"}' },
    ]);
  });
});

describe('rows to order bodies', () => {
  it.each([
    {
      text: '{"type":"vip_server","username":"BuilderBob","place":5001,"pass":7001,"payment-method":"balance","reference":"r"}',
      body: {
        order_type: 'vip_server',
        platform_username: 'BuilderBob',
        place_id: 5001,
        platform_pass_id: 7001,
        payment_method: 'balance',
        client_reference: 'r',
      },
    },
    {
      text: '{"order_type":"gamepass","platform_username":"BuilderBob","place_id":"5001","gamepass_id":9002}',
      body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9002 },
    },
  ])('JSON: every name and alias ($text)', ({ text, body }) => {
    expect(parseJsonLine({ line: 4, text })).toEqual({ line: 4, body });
  });

  it.each([
    { text: '{"username":"BuilderBob","place":5001}', errors: ['platform_pass_id is missing'] },
    {
      text: '{"username":"BuilderBob","place":1.5,"pass":0}',
      errors: ['place_id must be a whole number from 1', 'platform_pass_id must be a whole number from 1'],
    },
    {
      text: '{"username":"a b","place":5001,"pass":9001,"type":"car"}',
      errors: [
        'order_type must be gamepass or vip_server',
        'platform_username must be one word without spaces or control characters, up to 256 characters',
      ],
    },
    {
      text: '{"username":"BuilderBob","place":5001,"pass":9001,"amount":1}',
      errors: [
        'unknown column "amount" (known: order_type, type, platform_username, username, place_id, place, platform_pass_id, gamepass_id, pass, payment_method, payment-method, client_reference, reference)',
      ],
    },
    {
      text: '{"username":"BuilderBob","place":5001,"pass":9001,"gamepass_id":9001}',
      errors: ['"gamepass_id" and "pass" both give platform_pass_id'],
    },
    { text: '[1]', errors: ['must be a JSON object'] },
    { text: '{"username":', errors: ['not valid JSON'] },
  ])('JSON faults: $errors', ({ text, errors }) => {
    expect(parseJsonLine({ line: 9, text })).toEqual({ line: 9, errors });
  });

  it('CSV: the header names the columns; a blank row is skipped; a short row is a fault', () => {
    const rows = new CsvRows();
    expect(rows.header({ line: 1, fields: [' username', 'place ', 'gamepass_id'] })).toBeUndefined();
    expect(rows.row({ line: 2, fields: ['BuilderBob', '5001', '9001'] })).toEqual({
      line: 2,
      body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
    });
    expect(rows.row({ line: 3, fields: [''] })).toBeUndefined();
    expect(rows.row({ line: 4, fields: ['BuilderBob', '5001'] })).toEqual({ line: 4, errors: ['has 2 fields, the header has 3'] });
  });
});

describe('progress, resume and wait schedule', () => {
  it('the words of a progress line and the bar', () => {
    const state = { done: 10, failed: 2, left: 13, current: 'sending line 14 (BuilderBob)', etaMs: 78_000 };
    expect(progressText(state)).toBe('12/25  done 10  failed 2  left 13  sending line 14 (BuilderBob)  ETA 1m18s');
    expect(progressBar(state, 200)).toBe(
      '[##########..........] 12/25  done 10  failed 2  left 13  sending line 14 (BuilderBob)  ETA 1m18s',
    );
    expect(progressBar(state, 30)).toBe('[##########..........] 12/25 ');
  });

  it('the resume command is the same words, quoted for a shell, without --dry-run', () => {
    expect(resumeCommand(['orders', 'batch', "it's a file.csv", '--dry-run', '--batch', 'w1'])).toBe(
      `topup orders batch 'it'\\''s a file.csv' --batch w1`,
    );
  });

  it('polls one invoice at a time, at most one a second overall, each no sooner than every 10 s', () => {
    const schedule = new PollSchedule(
      ['a', 'b', 'c'].map((key, i) => ({ key, invoiceCode: key, line: i + 2 })),
      0,
    );
    const polls: [string, number][] = [];
    for (let i = 0; i < 7; i++) {
      const next = schedule.next()!;
      polls.push([next.key, next.at]);
      schedule.polled(next.key, next.at, next.key === 'b' && i >= 4, undefined);
    }
    expect(polls).toEqual([
      ['a', 0],
      ['b', 1000],
      ['c', 2000],
      ['a', 10_000],
      ['b', 11_000],
      ['c', 12_000],
      ['a', 20_000],
    ]);
  });
});

describe('serverText: what a ledger keeps of a server string', () => {
  it('keeps a short one and undefined as they are, and cuts a long one to 1024 characters and an ellipsis', () => {
    expect(serverText('Balance too low.')).toBe('Balance too low.');
    expect(serverText(undefined)).toBeUndefined();
    expect(serverText('x'.repeat(5000))).toBe(`${'x'.repeat(1024)}…`);
  });

  it('the splitter keeps to the limit it is given, not the batch file one', () => {
    const splitter = new RecordSplitter('jsonl', 10);
    expect(splitter.push('0123456789\n01234567890\n')).toEqual([
      { line: 1, text: '0123456789' },
      { line: 2, error: 'the row is longer than 10 characters' },
    ]);
  });
});

describe('orders batch --wait', () => {
  it('makes its last poll at the deadline, not at the last interval before it', async () => {
    const clock = fakeClock();
    const sandbox = await createSandbox({ now: clock.now, rateLimit: false });
    const polledAt: number[] = [];
    const client = createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('rich').token,
      clock,
      fetch: async (input, init) => {
        if ((input instanceof Request ? input.url : String(input)).endsWith('/status')) polledAt.push(clock.now());
        return sandbox.fetch(input, init);
      },
    });
    const created = await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
    const start = clock.now();
    await expect(
      waitForInvoices(client, [{ key: 'k', invoiceCode: created.invoice.invoice_code, line: 2 }], {
        clock,
        timeoutMs: 25_000,
        onFinal: async () => undefined,
      }),
    ).rejects.toThrow('1 of 1 invoices were still not final when the wait timed out.');
    // Every 10 s, or the server's poll_after_seconds (15 s from the full sandbox); the last at 25 s.
    const times = polledAt.map((at) => at - start);
    expect(times[0]).toBe(0);
    expect(times.at(-1)).toBe(25_000);
    expect(times.slice(1, -1).every((at) => at < 25_000 && at % 5_000 === 0)).toBe(true);
  });
});

describe("a row is checked only by the document's rules, the server decides the rest", () => {
  it.each(['ab', 'a_very_long_username_of_the_platform_30', 'Bücher-Bob.2'])(
    'username %s (outside the sandbox’s own 3 to 20 letters, digits or underscores) is sent',
    (username) => {
      const row = parseJsonLine({ line: 2, text: JSON.stringify({ username, place: 5001, pass: 9001, reference: 'r'.repeat(100) }) });
      expect(row).toMatchObject({ line: 2, body: { platform_username: username, client_reference: 'r'.repeat(100) } });
    },
  );
});
