import { describe, expect, it } from 'vitest';
import { jsonTextAsSent, messageText, sanitizeBody, sanitizeText } from '../../src/cli/io/sanitize.js';
import { LEAN } from '../support/cli-assertions.js';
import { seedRichHistory, useHarness, type Harness } from './read-harness.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

/** What a hostile server adds to every string it sends: a title change, a screen clear, a C1 CSI, an OSC 8 link, a BiDi override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\\u202e';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\\\u202e';

/** The sandbox's answers with HOSTILE appended to every string value, messages of errors included. */
function hostile(value: unknown): unknown {
  if (typeof value === 'string') return `${value}${HOSTILE}`;
  if (Array.isArray(value)) return value.map(hostile);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'success' ? v : hostile(v)]));
}
const hostileFetch = (): typeof fetch => async (input, init) => {
  const answer = await h.sandbox.fetch(input, init);
  const body = JSON.stringify(hostile(JSON.parse(await answer.text())));
  return new Response(body, { status: answer.status, headers: { 'content-type': 'application/json' } });
};

/** Our own colours are the only escape sequences a run may print: SGR `ESC [ n(;n)* m`, nothing else. */
function expectOnlyOurColours(text: string, where: string): void {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const withoutColour = text.replace(/\u001b\[[0-9;]*m/g, '');
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  expect(withoutColour, where).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
}

const PENDING = 'INV20260302000002';
const commands: string[][] = [
  ['health'],
  ['packages'],
  ['payment-methods'],
  ['articles', 'list'],
  ['articles', 'show', 'keeping-your-api-token-safe'],
  ['me'],
  ['dashboard'],
  ['balance'],
  ['transactions'],
  ['deposits', 'list'],
  ['deposits', 'show', 'INV20260302000001'],
  ['orders', 'list'],
  ['orders', 'show', PENDING],
  ['invoices', 'show', PENDING],
  ['invoices', 'status', PENDING],
  ['auth', 'status'],
  ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'],
  ['orders', 'show', 'INV99999999999999'],
  ['doctor', '--contract'],
];

describe('server text never reaches the output raw', () => {
  it.each(
    commands.flatMap((args) => [
      { args, tty: true },
      { args, tty: false },
    ]),
  )('$args (tty: $tty)', async ({ args, tty }) => {
    const result = await h.run(args, { fetch: hostileFetch(), tty });
    expectOnlyOurColours(result.out, 'stdout');
    expectOnlyOurColours(result.err, 'stderr');
    // The hostile text is shown, escaped, not dropped: what the server sent stays visible (a lean server sends
    // some of these commands no text at all).
    if (!LEAN) expect(`${result.out}${result.err}`).toContain(SHOWN.slice(0, 12));
  });

  it('--json stays the exact JSON the server sent, escapes as JSON escapes', async () => {
    const result = await h.run(['--json', 'packages'], { fetch: hostileFetch() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).packages[0].name).toBe(`80 Credits${HOSTILE}`);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(result.out.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('an error message from the server is escaped; with --json, as the JSON escapes of its exact text', async () => {
    const text = await h.run(['orders', 'show', 'INV99999999999999'], { fetch: hostileFetch() });
    expect(text.code).toBe(1);
    expectOnlyOurColours(text.err, 'stderr');
    expect(text.err).toContain(SHOWN);
    const result = await h.run(['--json', 'orders', 'show', 'INV99999999999999'], { fetch: hostileFetch() });
    expect(result.code).toBe(1);
    expectOnlyOurColours(result.err, 'stderr');
    expect((JSON.parse(result.err) as { message: string }).message).toContain(HOSTILE);
  });
});

describe('what was typed never reaches the terminal raw, nor whole when it is long', () => {
  // Commander's usage errors quote the value they refuse; so do the CLI's own.
  it.each([
    { args: ['orders', 'show', `INV1${HOSTILE}`], quoted: `'INV1${SHOWN}'` },
    { args: [`foo${HOSTILE}`], quoted: `'foo${SHOWN}'` },
    { args: ['packages', `--x${HOSTILE}`], quoted: `'--x${SHOWN}'` },
    { args: ['api', 'me/orders', '-H', 'X-Foo: a\r\nX-Bar: b'], quoted: "'X-Foo: a\\x0d\\x0aX-Bar: b'" },
  ])('$args.0: one line, escaped, exit 2', async ({ args, quoted }) => {
    for (const json of [false, true]) {
      const result = await h.run(json ? ['--json', ...args] : args);
      expect(result.code).toBe(2);
      expectOnlyOurColours(result.err, 'stderr');
      const message = json ? (JSON.parse(result.err) as { message: string }).message : result.err;
      expect(message).toContain(quoted);
      expect(message.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('a 100,000-character argument is quoted by its first 200 characters, and the sentence that explains stays', async () => {
    const code = `INV${'1'.repeat(100_000)}`;
    const result = await h.run(['orders', 'show', code]);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      `Error: command-argument value '${code.slice(0, 200)}…' is invalid for argument 'invoice'. An invoice code is INV followed by up to 32 digits, e.g. INV20261121000001.\n`,
    );
  });
});

describe('messageText', () => {
  it.each<[string, string]>([
    ["value 'a\u001b[2Jb' is bad", "value 'a\\x1b[2Jb' is bad"],
    ["the server's answer and the sandbox's state", "the server's answer and the sandbox's state"],
    [`the server's ${'x'.repeat(300)} sandbox's`, `the server's ${'x'.repeat(300)} sandbox's`],
    [`(=${'y'.repeat(250)}) '${'z'.repeat(250)}'.`, `(=${'y'.repeat(250)}) '${'z'.repeat(200)}…'.`],
  ])('%#', (input, output) => {
    expect(messageText(input)).toBe(output);
  });

  it('cuts a message past 1,000 characters', () => {
    expect(messageText('w '.repeat(1_000))).toBe(`${'w '.repeat(500)}…`);
  });
});

describe('sanitizeText', () => {
  it.each<[string, string, boolean]>([
    ['plain text', 'plain text', true],
    ['tab\tand\nnewline kept in text', 'tab\tand\nnewline kept in text', true],
    ['tab\tand\nnewline escaped on one line', 'tab\\x09and\\x0anewline escaped on one line', false],
    ['\u001b[31mred\u001b[0m', '\\x1b[31mred\\x1b[0m', true],
    ['\u001b]0;title\u0007', '\\x1b]0;title\\x07', true],
    ['\u009b2J', '\\x9b2J', true],
    ['carriage\roverwrite', 'carriage\\x0doverwrite', true],
    ['del\u007f nul\u0000', 'del\\x7f nul\\x00', true],
    ['bidi \u202eevil\u202c', 'bidi \\u202eevil\\u202c', true],
    ['isolate \u2066x\u2069', 'isolate \\u2066x\\u2069', true],
    ['Rp 12.000 · ✓ ümlaut 日本', 'Rp 12.000 · ✓ ümlaut 日本', true],
  ])('%j → %j', (input, output, multiline) => {
    expect(sanitizeText(input, { multiline })).toBe(output);
  });

  it('sanitises keys and values of a JSON body and keeps it JSON; a body that is not JSON as text', () => {
    expect(JSON.parse(sanitizeBody(JSON.stringify({ 'a\u001bb': ['x\u0007'], n: 1, t: true, z: null })))).toEqual({
      'a\\x1bb': ['x\\x07'],
      n: 1,
      t: true,
      z: null,
    });
    expect(sanitizeBody('<html>\u001b[2J')).toBe('<html>\\x1b[2J');
  });
});

describe('jsonTextAsSent', () => {
  // Its callers give it only text that parsed; text cut short anyway (a string never closed) ends, it does not spin.
  it.each(['"never closed', '{"a":"b\\\\', '[1,"x'])('ends on text cut short: %j', (text) => {
    expect(typeof jsonTextAsSent(text, 2)).toBe('string');
  });

  it('escapes what a terminal acts on, inside strings as written', () => {
    expect(jsonTextAsSent('{"s":"\u202e","n":1.50}', 2)).toBe('{\n  "s": "\\u202e",\n  "n": 1.50\n}');
  });
});
