import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  orderStatuses,
  orderTypes,
  parseInvoiceCode,
  parseSlug,
  parseWholeNumber,
  paymentStatuses,
  refreshIntervals,
  DEFAULT_WAIT_TIMEOUT_SECONDS,
} from '../../src/cli/commands/shared/choices.js';
import { parseWatchSeconds, watchInterval } from '../../src/cli/commands/shared/watch.js';
import {
  amountText,
  clockText,
  creditText,
  orDash,
  plainCell,
  renderRecord,
  statusText,
  type RecordField,
} from '../../src/cli/io/format.js';
import { createRedraw, rowsOf } from '../../src/cli/io/redraw.js';
import { startSpinner } from '../../src/cli/io/spinner.js';
import { createStyle, plainStyle } from '../../src/cli/io/style.js';
import { INVOICE_TTL_SECONDS, OrderStatus, OrderType, PaymentStatus, pollIntervals } from '../../src/contract/index.js';
import { waitDefaults } from '../../src/client/wait.js';

const colour = createStyle(true);

function sink(columns?: number) {
  let text = '';
  return { stream: { write: (s: string) => ((text += s), true), isTTY: true, columns }, text: () => text };
}

describe("the CLI's copies of contract values stay equal to the contract", () => {
  it('status and type choices', () => {
    expect([...orderStatuses]).toEqual(OrderStatus.options);
    expect([...paymentStatuses]).toEqual(PaymentStatus.options);
    expect([...orderTypes]).toEqual(OrderType.options);
  });

  it('refresh intervals and the default wait', () => {
    expect(refreshIntervals.invoiceStatus).toMatchObject({
      min: pollIntervals.invoiceStatus.min,
      recommended: pollIntervals.invoiceStatus.recommended,
    });
    expect(refreshIntervals.balance).toMatchObject({ min: pollIntervals.balance.min, recommended: pollIntervals.balance.recommended });
    expect(refreshIntervals.dashboard).toMatchObject({
      min: pollIntervals.dashboard.min,
      recommended: pollIntervals.dashboard.recommended,
    });
    expect(DEFAULT_WAIT_TIMEOUT_SECONDS * 1000).toBe(waitDefaults.timeout);
    expect(DEFAULT_WAIT_TIMEOUT_SECONDS).toBeGreaterThan(INVOICE_TTL_SECONDS);
  });
});

describe('statusText', () => {
  it.each([
    ['paid', '\u001b[32mpaid\u001b[39m'],
    ['completed', '\u001b[32mcompleted\u001b[39m'],
    ['pending', '\u001b[33mpending\u001b[39m'],
    ['processing', '\u001b[36mprocessing\u001b[39m'],
    ['refunded', '\u001b[36mrefunded\u001b[39m'],
    ['failed', '\u001b[31mfailed\u001b[39m'],
    ['expired', '\u001b[2mexpired\u001b[22m'],
    ['cancelled', '\u001b[2mcancelled\u001b[22m'],
    ['unheard-of', 'unheard-of'],
  ])('%s → %j with colour', (status, expected) => {
    expect(statusText(status, colour)).toBe(expected);
    expect(statusText(status, plainStyle)).toBe(status);
  });
});

describe('small formatters', () => {
  it.each([
    [12000, 'Rp 12.000', true, 'Rp 12.000'],
    [12000, 'Rp 12.000', false, '12000'],
    [0, 'Rp 0', false, '0'],
  ])('amountText(%i, %s, terminal %s) → %s', (raw, formatted, terminal, expected) => {
    expect(amountText(raw, formatted, terminal)).toBe(expected);
  });

  it.each([
    [null, '-'],
    [undefined, '-'],
    ['', '-'],
    ['x', 'x'],
    [0, '0'],
  ])('orDash(%j) → %s', (value, expected) => {
    expect(orDash(value)).toBe(expected);
  });

  it('plainCell keeps a TSV row on one line: a tab or line break is shown as its escape', () => {
    expect(plainCell('a\tb\r\nc\n\nd')).toBe('a\\x09b\\x0d\\x0ac\\x0a\\x0ad');
  });

  it('clockText: the time of day in the given zone, with its offset', () => {
    expect(clockText(Date.UTC(2026, 2, 2, 9, 5, 7), { timeZone: 'UTC' })).toBe('09:05:07 +00:00');
    expect(clockText(Date.UTC(2026, 2, 2, 9, 5, 7), { timeZone: 'Asia/Jakarta' })).toBe('16:05:07 +07:00');
  });
});

describe('renderRecord', () => {
  const fieldsIn = (style: typeof colour): RecordField[] => [
    { key: 'payment_status', label: 'status', plain: 'paid', pretty: style.green('paid') },
    { key: 'total_amount', label: 'total', plain: '12000', pretty: 'Rp 12.000' },
    { key: 'client_reference', label: 'reference', plain: 'line\tone\nline two' },
  ];

  it('piped: API keys, plain values on one line each, no title, no colour', () => {
    expect(renderRecord(fieldsIn(colour), { terminal: false, style: colour, title: 'Order' })).toBe(
      'payment_status: paid\ntotal_amount: 12000\nclient_reference: line\\x09one\\x0aline two\n',
    );
  });

  it('terminal: a bold title, then aligned labels with pretty values', () => {
    expect(renderRecord(fieldsIn(plainStyle).slice(0, 2), { terminal: true, style: plainStyle, title: 'Order' })).toBe(
      'Order\nstatus  paid\ntotal   Rp 12.000\n',
    );
    expect(renderRecord(fieldsIn(colour).slice(0, 1), { terminal: true, style: colour, title: 'Order' })).toBe(
      '\u001b[1mOrder\u001b[22m\n\u001b[2mstatus\u001b[22m  \u001b[32mpaid\u001b[39m\n',
    );
  });
});

describe('option parsers', () => {
  it.each([
    ['1', 1],
    ['100', 100],
    [' 7 ', 7],
  ])('parseWholeNumber accepts %j', (value, expected) => {
    expect(parseWholeNumber('--per-page', 1, 100)(value)).toBe(expected);
  });

  it.each([
    ['0', '--per-page must be from 1 to 100.'],
    ['101', '--per-page must be from 1 to 100.'],
    ['1e2', '--per-page must be a whole number.'],
    // -1 is a whole number: what it breaks is the range.
    ['-1', '--per-page must be from 1 to 100.'],
    [' -20 ', '--per-page must be from 1 to 100.'],
    ['-1.5', '--per-page must be a whole number.'],
    ['', '--per-page must be a whole number.'],
  ])('parseWholeNumber refuses %j', (value, message) => {
    expect(() => parseWholeNumber('--per-page', 1, 100)(value)).toThrow(message);
  });

  it('an open-ended range says only the minimum', () => {
    expect(() => parseWholeNumber('--timeout', 1)('0')).toThrow('--timeout must be at least 1.');
    expect(() => parseWholeNumber('--timeout', 1)('-1')).toThrow('--timeout must be at least 1.');
  });

  // Past 2^53 - 1 the digits round: "at least 1" would be untrue of them, and the number sent would not be the one typed.
  it.each(['9007199254740992', '9007199254740993', '99999999999999999999'])('an open-ended range refuses %s as past its top', (value) => {
    expect(() => parseWholeNumber('--place', 1)(value)).toThrow('--place must be from 1 to 9007199254740991.');
  });

  it.each([
    ['INV20261121000001', 'INV20261121000001'],
    ['inv123', 'INV123'],
  ])('parseInvoiceCode(%s)', (value, expected) => {
    expect(parseInvoiceCode(value)).toBe(expected);
  });

  it.each(['INV', 'INV12a', '123', 'INV 1', '../INV1'])('parseInvoiceCode refuses %j', (value) => {
    expect(() => parseInvoiceCode(value)).toThrow('An invoice code is INV followed by up to 32 digits');
  });

  it('parseInvoiceCode takes 32 digits and refuses more, however many', () => {
    expect(parseInvoiceCode(`INV${'1'.repeat(32)}`)).toBe(`INV${'1'.repeat(32)}`);
    for (const digits of [33, 100_000]) expect(() => parseInvoiceCode(`INV${'1'.repeat(digits)}`)).toThrow('up to 32 digits');
  });

  it.each(['Bad', 'a--b', '-a', 'a/b', '..', 'a'.repeat(201)])('parseSlug refuses %#', (value) => {
    expect(() => parseSlug(value)).toThrow('A slug is lower-case');
  });

  it('watch seconds: the minimum is enforced, bare --watch means the recommended interval', () => {
    expect(parseWatchSeconds('balance', 30)('30')).toBe(30);
    expect(() => parseWatchSeconds('balance', 30)('29')).toThrow(
      'The balance may be refreshed at most every 30 seconds; use --watch 30 or more.',
    );
    expect(() => parseWatchSeconds('balance', 30)('1.5')).toThrow('--watch takes a whole number of seconds.');
    expect(watchInterval(true, 30)).toBe(30);
    expect(watchInterval(45, 30)).toBe(45);
    expect(watchInterval(undefined, 30)).toBeUndefined();
  });
});

describe('spinner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('off a terminal it writes nothing but the final line', () => {
    const out = sink();
    const spinner = startSpinner(out.stream, 'Waiting', { enabled: false });
    spinner.update('Still waiting');
    spinner.stop('Done');
    expect(out.text()).toBe('Done\n');
  });

  it('on a terminal it animates in place, and stop clears the line', () => {
    vi.useFakeTimers();
    const out = sink();
    const spinner = startSpinner(out.stream, 'Waiting', { enabled: true, frameMs: 100 });
    vi.advanceTimersByTime(250);
    spinner.update('Paid?');
    spinner.stop('✓ Paid');
    spinner.stop('again');
    vi.advanceTimersByTime(1000);
    expect(out.text()).toBe('\r\u001b[K⠋ Waiting\r\u001b[K⠙ Waiting\r\u001b[K⠹ Waiting\r\u001b[K⠹ Paid?\r\u001b[K✓ Paid\n');
  });

  // A line that wraps leaves its first rows behind at every frame: the clear reaches only the last.
  it('keeps each frame within the terminal width, read at every frame (a resize)', () => {
    vi.useFakeTimers();
    const out = sink();
    let columns = 20;
    const text = `Waiting for INV20261127000001 to be paid: ${colour.cyan('pending')} at 11:13:41 +00:00; next check in 15 s.`;
    const spinner = startSpinner(out.stream, text, { enabled: true, frameMs: 100, columns: () => columns });
    columns = 40;
    vi.advanceTimersByTime(100);
    spinner.stop();
    const frames = out
      .text()
      .split('\r\u001b[K')
      .filter((frame) => frame !== '');
    expect(frames).toEqual(['⠋ Waiting for INV2…', '⠙ Waiting for INV20261127000001 to be …']);
    for (const [i, frame] of frames.entries()) expect(frame.length).toBeLessThan([20, 40][i]!);
    // A line that fits is drawn as it is, colours and all.
    const short = sink();
    startSpinner(short.stream, colour.cyan('pending'), { enabled: true, columns: () => 80 }).stop();
    expect(short.text()).toContain(`⠋ ${colour.cyan('pending')}`);
  });
});

describe('redraw', () => {
  it.each([
    ['one\ntwo\n', undefined, 2],
    ['one\ntwo', undefined, 2],
    ['x'.repeat(25) + '\n', 10, 3],
    ['\n\n', 80, 2],
    ['\u001b[1m' + 'x'.repeat(10) + '\u001b[22m\n', 10, 1],
  ])('rowsOf(%j, %s) = %i', (frame, columns, rows) => {
    expect(rowsOf(frame, columns)).toBe(rows);
  });

  it('draws the first frame as-is, then moves up over it and clears before the next', () => {
    const out = sink(80);
    const draw = createRedraw(out.stream);
    draw('a\nb\n');
    draw('c');
    draw('d\n');
    expect(out.text()).toBe('a\nb\n\u001b[2A\r\u001b[Jc\n\u001b[1A\r\u001b[Jd\n');
  });
});

describe('creditText: one way to show credits', () => {
  it.each([
    [1700, true, 'IDR', '1.700'],
    [22500, true, undefined, '22.500'],
    [1_000_000, true, null, '1.000.000'],
    [80, true, 'IDR', '80'],
    [1700, false, 'IDR', '1700'],
    [undefined, true, 'IDR', '-'],
    [null, false, 'IDR', '-'],
  ] as const)('creditText(%s, terminal %s, %s) → %s', (raw, terminal, currency, expected) => {
    expect(creditText(raw, terminal, currency)).toBe(expected);
  });

  it('groups as the rupiah formatter does', () => {
    expect(amountText(1700, undefined, true, 'IDR')).toBe(`Rp ${creditText(1700, true, 'IDR')}`);
  });
});
