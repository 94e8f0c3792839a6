import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deepPackages, deepServerError, nestedList, useAnswerServer } from '../support/answer-server.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, type RunResult } from './run-cli.js';

/**
 * An answer that came whole but cannot be used, from a server we did not write: nested far deeper than any answer of
 * this API (which once overflowed the stack of the sanitiser and of the --json writer, and read as "Could not reach",
 * retried), or a body that is not what its Content-Encoding says (once "Could not reach …: Z_DATA_ERROR", retried). It
 * is one sentence saying the server answered, exit 1, after exactly one request; in human and --json output alike.
 */

const server = useAnswerServer();
let config: { dir: string; cleanup: () => void };

beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

function run(args: string[]): Promise<RunResult> {
  return runCli(config.dir, [...args, '--base-url', server.url], { env: { TOPUP_TOKEN: 'topup_test_unreadable_answers' } });
}

const TOO_DEEP = 'it nests arrays and objects more than 512 levels deep';
const UNDECODABLE = 'its body could not be decoded as its Content-Encoding says (incorrect header check)';

/** The one sentence, as a person sees it piped, and as --json writes it. */
function expectRefused(result: RunResult, json: boolean, why: string): void {
  const message = `${server.url} answered, but its answer could not be read: ${why}.`;
  expect(result.out).toBe('');
  if (json) {
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message,
      error: { code: 'UNREADABLE_ANSWER', kind: 'api' },
      target: { origin: server.url, profile: null, mode: 'sandbox' },
    });
  } else expect(result.err).toBe(`Error: ${message}\n`);
  expect(result.code).toBe(1);
  expect(server.requests).toBe(1);
}

const modes = [
  ['piped', false],
  ['--json', true],
] as const;

describe('an answer nested too deeply', () => {
  describe.each(modes)('%s', (_mode, json) => {
    it.each([
      ['200, nested 100,000 deep', 200, deepPackages(100_000)],
      ['200, nested one level past the limit', 200, deepPackages(511)],
      ['500, nested 100,000 deep', 500, deepServerError(100_000)],
      ['500, nested one level past the limit', 500, deepServerError(511)],
    ])('%s: one sentence, exit 1, not retried', async (_name, status, body) => {
      server.answer = { status, body };
      expectRefused(await run([...(json ? ['--json'] : []), 'packages']), json, TOO_DEEP);
    });
  });

  // A package's name nested 508 deep inside envelope, data, list and record: 512 levels, every one walked.
  const atLimit = {
    packages: [{ code: 'DEEP', name: JSON.parse(nestedList(508)) as unknown, credit_amount: 100, price: 15000, currency: 'IDR' }],
  };

  it('at the limit: shown, the deep value as its JSON in its cell', async () => {
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data: atLimit }) };
    const result = await run(['packages']);
    expect(result.err).toBe('');
    expect(result.out).toBe(`DEEP\t${nestedList(508)}\t100\t15000\n`);
    expect(result.code).toBe(0);
  });

  it('at the limit: --json writes it back exactly', async () => {
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data: atLimit }) };
    const result = await run(['--json', 'packages']);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual(atLimit);
    expect(result.code).toBe(0);
  });
});

describe('a body that is not what its Content-Encoding says', () => {
  const packages = { packages: [{ code: 'P100', name: '100 credits', credit_amount: 100, price: 15000, currency: 'IDR' }] };
  const body = JSON.stringify({ success: true, message: 'ok', data: packages });

  it.each(modes)('%s: one sentence, exit 1, not retried', async (_mode, json) => {
    server.answer = { status: 200, body, headers: { 'content-encoding': 'gzip' } };
    expectRefused(await run([...(json ? ['--json'] : []), 'packages']), json, UNDECODABLE);
  });

  it('really gzipped: shown as any answer', async () => {
    server.answer = { status: 200, body: gzipSync(body), headers: { 'content-encoding': 'gzip' } };
    const result = await run(['packages']);
    expect(result).toEqual({ code: 0, out: 'P100\t100 credits\t100\t15000\n', err: '' });
    expect(server.requests).toBe(1);
  });

  it('plain: shown as any answer', async () => {
    server.answer = { status: 200, body };
    const result = await run(['packages']);
    expect(result).toEqual({ code: 0, out: 'P100\t100 credits\t100\t15000\n', err: '' });
    expect(server.requests).toBe(1);
  });
});
