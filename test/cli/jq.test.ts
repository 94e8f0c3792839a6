import { describe, expect, it } from 'vitest';
import { firstError } from '../../src/cli/io/jq.js';
import { EMBEDDED_NOTICE, expectUsageError, LEAN } from '../support/cli-assertions.js';
import { REMOTE_TARGET, seedRichHistory, useHarness, type Harness } from './read-harness.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

const PENDING = 'INV20260302000002';

/** The sandbox's fetch, counting what was sent. */
function counting(): { fetch: typeof globalThis.fetch; sent: () => number } {
  let sent = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent += 1;
    return h.sandbox.fetch(input, init);
  };
  return { fetch, sent: () => sent };
}

/** What --json prints for `args`, so that a filter's result can be compared with the data it ran on. */
async function jsonOf(args: string[]): Promise<unknown> {
  const result = await h.run(['--json', ...args]);
  expect(result.code).toBe(0);
  return JSON.parse(result.out);
}

describe('--jq on the --json output (gh semantics): strings as text, other values as one JSON line, one result a line', () => {
  /** `lean`: what a server that sends only what the document guarantees gives instead (no pagination, no balance). */
  const cases: { args: string[]; jq: string; out: string; lean?: { out: string; err: string } }[] = [
    { args: ['packages'], jq: '.packages[0].code', out: 'CR80\n' },
    { args: ['packages'], jq: '.packages | length', out: '7\n' },
    { args: ['packages'], jq: '.packages[:2][] | {code, price}', out: '{"code":"CR80","price":10000}\n{"code":"CR400","price":48000}\n' },
    { args: ['packages'], jq: '[.packages[] | select(.price > 1000000) | .code]', out: '["CR10000","CR22500"]\n' },
    { args: ['packages'], jq: '.packages[0] | "\\(.code) costs \\(.price)"', out: 'CR80 costs 10000\n' },
    { args: ['packages'], jq: '.packages[0].code, .packages[0].price, true, null', out: 'CR80\n10000\ntrue\nnull\n' },
    { args: ['packages'], jq: '.no_such_field', out: 'null\n' },
    { args: ['packages'], jq: 'empty', out: '' },
    { args: ['packages'], jq: '.packages[1].name | @json', out: '"400 Credits"\n' },
    {
      args: ['orders', 'list'],
      jq: '.orders[] | .invoice_code',
      out: 'INV20260302000005\nINV20260302000004\nINV20260302000003\nINV20260302000002\n',
    },
    {
      args: ['orders', 'list', '--all'],
      jq: '.orders | map(.status) | join(",")',
      out: 'processing,cancelled,processing,pending\n',
      lean: {
        out: 'processing,cancelled,processing,pending\n',
        err: 'The server does not say whether there are more orders than these (its answer has no pagination); only the first page is shown.\n',
      },
    },
    { args: ['orders', 'show', PENDING], jq: '.order | [.status, .credit_amount]', out: '["pending",100]\n' },
    { args: ['invoices', 'status', PENDING], jq: '.payment_status', out: 'pending\n' },
    { args: ['balance'], jq: '.balance', out: '10044000\n', lean: { out: 'null\n', err: '' } },
  ];

  it.each(cases.flatMap((c) => [true, false].map((tty) => ({ ...c, tty }))))(
    '$args --jq $jq (tty: $tty)',
    async ({ args, jq, out, lean, tty }) => {
      const result = await h.run([...args, '--jq', jq], { tty });
      expect(result).toEqual({ code: 0, ...(LEAN && lean ? lean : { out, err: '' }) });
    },
  );

  it('runs on exactly what --json prints', async () => {
    const data = (await jsonOf(['orders', 'show', PENDING])) as { order: unknown };
    const result = await h.run(['orders', 'show', PENDING, '--jq', '.order']);
    expect(JSON.parse(result.out)).toEqual(data.order);
    expect(result.out.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['before the command', ['--jq', '.packages[0].code', 'packages']],
    ['after the command', ['packages', '--jq', '.packages[0].code']],
    ['as --jq=EXPR', ['packages', '--jq=.packages[0].code']],
    ['with --json as well', ['--json', 'packages', '--jq', '.packages[0].code']],
  ])('%s', async (_, args) => {
    expect(await h.run(args)).toEqual({ code: 0, out: 'CR80\n', err: '' });
  });

  it("jq's debug goes to stderr through the CLI's streams", async () => {
    const result = await h.run(['packages', '--jq', '.packages[0].code | debug | ascii_downcase']);
    expect(result).toEqual({ code: 0, out: 'cr80\n', err: '["DEBUG:","CR80"]\n' });
  });

  it('embedded sandbox: the notice on stderr, jq results on stdout', async () => {
    const result = await h.runEmbedded(['--mock', 'packages', '--jq', '.packages[0].code']);
    expect(result).toEqual({ code: 0, out: 'CR80\n', err: EMBEDDED_NOTICE });
  });

  it('--watch: jq runs on each refresh, one result a refresh', async () => {
    const controller = new AbortController();
    h.time.onSleep = (count) => void (count === 3 && controller.abort());
    const result = await h.run(['balance', '--watch', '30', '--jq', '[type, (.currency | type)] | join(" ")'], {
      signal: controller.signal,
    });
    expect(result).toEqual({ code: 130, out: LEAN ? 'object null\n'.repeat(3) : 'object string\n'.repeat(3), err: '' });
  });

  it('a stream of records (mock state save, one JSON document) goes through jq too', async () => {
    const result = await h.runEmbedded(['--mock', 'mock', 'state', 'save', '--jq', 'keys']);
    expect(result).toEqual({ code: 0, out: '["clock_offset_ms","counters","tables","version"]\n', err: EMBEDDED_NOTICE });
  });
});

describe('server text stays safe through --jq', () => {
  const HOSTILE = '\u001b]0;pwned\u0007\u202e';
  const hostileFetch: typeof globalThis.fetch = async (input, init) => {
    const answer = await h.sandbox.fetch(input, init);
    const body = JSON.parse(await answer.text()) as { data: { packages: { name: string }[] } };
    for (const item of body.data.packages) item.name = `${item.name}${HOSTILE}\tand\nmore`;
    return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it.each([
    { jq: '.packages[0].name', out: '80 Credits\\x1b]0;pwned\\x07\\u202e\tand\nmore\n' },
    { jq: '.packages[0] | {name}', out: '{"name":"80 Credits\\u001b]0;pwned\\u0007\\u202e\\tand\\nmore"}\n' },
  ])('--jq $jq', async ({ jq, out }) => {
    for (const tty of [true, false]) {
      const result = await h.run(['packages', '--jq', jq], { fetch: hostileFetch, tty });
      expect(result).toEqual({ code: 0, out, err: '' });
    }
  });
});

describe('errors', () => {
  it.each([
    { jq: '.[', message: 'Invalid --jq expression: syntax error, unexpected end of file at line 1.' },
    { jq: '.packages[0] |', message: 'Invalid --jq expression: syntax error, unexpected end of file at line 1.' },
    { jq: 'nosuchfunction', message: 'Invalid --jq expression: nosuchfunction/0 is not defined at line 1.' },
    { jq: '.a as $x | $y', message: 'Invalid --jq expression: $y is not defined at line 1.' },
    { jq: '.a\n| .b(', message: "Invalid --jq expression: syntax error, unexpected '(', expecting end of file at line 2." },
    { jq: '', message: 'Invalid --jq expression: Top-level program not given (try ".").' },
    // jq-web hands the expression to jq as a word of its command line, where `--help` was jq's option, run after sending.
    ...['--help', '--version', '-r', '--arg', '-n', '--build-configuration'].map((jq) => ({
      jq,
      message: `Invalid --jq expression '${jq}': --jq takes a jq expression, not jq's options (strings already print raw, one result a line).`,
    })),
  ])('a bad expression $jq → exit 2 before any request, jq’s reason as the error envelope', async ({ jq, message }) => {
    for (const tty of [true, false]) {
      const { fetch, sent } = counting();
      const result = await h.run(['orders', 'list', '--jq', jq], { fetch, tty });
      expectUsageError(result, /^\{/);
      expect(JSON.parse(result.err)).toEqual({ success: false, message, error: { code: 'USAGE', kind: 'usage' } });
      expect(sent()).toBe(0);
    }
  });

  it('an expression that starts with a minus is still an expression', async () => {
    expect(await h.run(['packages', '--jq', '-1'])).toEqual({ code: 0, out: '-1\n', err: '' });
    const count = (await h.run(['packages', '--jq', '.packages | length'])).out.trim();
    expect(Number(count)).toBeGreaterThan(0);
    expect(await h.run(['packages', '--jq', '-(.packages | length)'])).toEqual({ code: 0, out: `-${count}\n`, err: '' });
  });

  it('a filter that fails on the data → exit 1, nothing on stdout, jq’s reason', async () => {
    const result = await h.run(['packages', '--jq', '.packages[0].code, (.packages | splits("x"))']);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: 'The --jq expression failed on the data: array ([{"code":"C...) cannot be matched, as it is not a string.',
      error: { code: 'FAILED', kind: 'failed' },
      target: REMOTE_TARGET,
    });
  });

  it('error("…") of the filter is its reason', async () => {
    const result = await h.run(['packages', '--jq', 'error("no luck")']);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: `{"success":false,"message":"The --jq expression failed on the data: no luck.","error":{"code":"FAILED","kind":"failed"},"target":${JSON.stringify(REMOTE_TARGET)}}\n`,
    });
  });

  it.each([
    { args: ['completion', 'bash'], message: '--jq filters JSON output, and `topup completion` prints none.' },
    { args: ['mock', 'open'], message: '--jq filters JSON output, and `topup mock open` prints none.' },
    { args: ['help', 'environment'], message: '--jq filters JSON output, and `topup help` prints none.' },
  ])('$args has no JSON output → exit 2', async ({ args, message }) => {
    const result = await h.run([...args, '--jq', '.']);
    expectUsageError(result, /^\{/);
    expect(JSON.parse(result.err)).toEqual({ success: false, message, error: { code: 'USAGE', kind: 'usage' } });
  });

  // --json promises JSON on stdout and nothing else: a command that prints none refuses it, as it refuses --jq.
  it.each([
    { args: ['completion', 'bash'], name: 'topup completion' },
    { args: ['mock', 'open'], name: 'topup mock open' },
    { args: ['help', 'environment'], name: 'topup help' },
  ])('$args with --json → exit 2, nothing on stdout', async ({ args, name }) => {
    const result = await h.run([...args, '--json']);
    expectUsageError(result, /^\{/);
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: `--json asks for JSON output, and \`${name}\` prints none.`,
      error: { code: 'USAGE', kind: 'usage' },
    });
  });

  // The version is data too: with --json, JSON; --jq cannot run on it (no command starts) and says so.
  it.each([
    ['--version', '--json'],
    ['--json', '-V'],
    ['packages', '--version', '--json'],
  ])('%s prints the version as JSON', async (...argv) => {
    const plain = await h.run(['--version']);
    expect(plain).toMatchObject({ code: 0, err: '' });
    expect(plain.out).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    const result = await h.run(argv);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(result.out)).toEqual({ version: plain.out.trim() });
  });

  it('--version with --jq → exit 2, one envelope, nothing on stdout', async () => {
    const result = await h.run(['--version', '--jq', '.version']);
    expectUsageError(result, /^\{/);
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: '--jq does not filter --version; `topup --version --json` prints it as JSON.',
      error: { code: 'USAGE', kind: 'usage' },
    });
  });

  it.each([
    { args: ['orders'], name: 'topup orders' },
    { args: ['mock', 'state'], name: 'topup mock state' },
    { args: [], name: 'topup' },
  ])('a command group without its subcommand, with --json: one JSON envelope, not its help', async ({ args, name }) => {
    for (const argv of [
      ['--json', ...args],
      [...args, '--json'],
    ]) {
      const result = await h.run(argv);
      expectUsageError(result, /^\{/);
      expect(result.err.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(result.err)).toEqual({
        success: false,
        message: `\`${name}\` needs a subcommand; \`${name} --help\` lists them.`,
        error: { code: 'USAGE', kind: 'usage' },
      });
    }
  });

  it('a missing expression is commander’s usage error, as JSON (--jq asks for JSON)', async () => {
    const result = await h.runEmbedded(['packages', '--jq']);
    expectUsageError(result, /^\{/);
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: "Option '--jq <expression>' argument missing.",
      error: { code: 'USAGE', kind: 'usage' },
    });
  });

  it('an API error with --jq is the JSON error envelope on stderr, and jq does not run', async () => {
    const result = await h.run(['orders', 'show', 'INV20260302009999', '--jq', '.order.status']);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(JSON.parse(result.err)).toMatchObject({ success: false });
  });
});

describe('firstError', () => {
  it.each([
    [
      'jq: error: syntax error, unexpected end of file (Unix shell quoting issues?) at <top-level>, line 1:\n.[ \njq: 1 compile error',
      'syntax error, unexpected end of file at line 1',
    ],
    ['jq: error (at inputString:0): boom', 'boom'],
    ['jq: error (at inputString:0) (not a string): {"a":1}', '{"a":1}'],
    ['jq: error: Top-level program not given (try ".")\njq: 1 compile error', 'Top-level program not given (try ".")'],
    ['', ''],
  ])('%j → %j', (stderr, reason) => {
    expect(firstError(stderr)).toBe(reason);
  });
});
