import { afterAll, expect, it } from 'vitest';
import { useAnswerServer } from '../support/answer-server.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/*
 * What a failed `orders create` tells its user about the order, and the error envelope's message, against a server
 * that answers as set per test.
 */

const server = useAnswerServer();
const config = tempConfigDir();
afterAll(() => config.cleanup());

const env = () => ({ TOPUP_BASE_URL: server.url, TOPUP_TOKEN: 'topup_test_committedcommittedcommitted00' });
const ORDER = ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--payment-method', 'qris'];
const KEY = 'order-after-commit-1';

// A 201 says the order exists: when its body cannot be used, the user still learns how to look it up safely.
it.each([
  ['an empty body', ''],
  ['a body cut short', '{"success":true,"data":{"invoice":{"invoice_co'],
  ['no data', '{"success":true,"message":"Created"}'],
  ['no invoice', '{"success":true,"data":{}}'],
])('a 201 with %s: exit 1, and the key to retry safely with', async (_name, body) => {
  server.answer = { status: 201, body };
  const result = await runCli(config.dir, [...ORDER, '--idempotency-key', KEY], { env: env() });
  expect(result.code).toBe(1);
  expect(result.err).toContain(`Retry safely with: --idempotency-key ${KEY}\n`);
});

// The CLI's own fetch reads the whole body before the client sees the answer: a failure then still means it came.
it('a 201 whose connection drops mid-body: the server was reached, and the key to retry safely with', async () => {
  server.answer = { status: 201, body: '{"success":true,"data":{"invoice":{"invoice_code":"INV-1"}}}', cutAfter: 20 };
  const result = await runCli(config.dir, [...ORDER, '--idempotency-key', KEY], { env: env() });
  expect(result.err).toContain(`${server.url} closed the connection before its answer was complete`);
  expect(result.err).not.toContain('Could not reach');
  expect(result.err).toContain(`Retry safely with: --idempotency-key ${KEY}\n`);
});

it('a 201 whose body is not what its Content-Encoding says: unreadable, and the key to retry safely with', async () => {
  server.answer = { status: 201, body: '{"success":true}', headers: { 'content-encoding': 'gzip' } };
  const result = await runCli(config.dir, [...ORDER, '--idempotency-key', KEY], { env: env() });
  expect(result.code).toBe(1);
  expect(result.err).toContain('answered, but its answer could not be read');
  expect(result.err).toContain(`Retry safely with: --idempotency-key ${KEY}\n`);
  expect(server.requests).toBe(1);
});

it('a read whose connection drops mid-body says the server answered in part, not that it was out of reach', async () => {
  server.answer = { status: 200, body: '{"success":true,"data":{"username":"someone"}}', cutAfter: 10 };
  const result = await runCli(config.dir, ['--json', 'me'], { env: env() });
  expect(result.code).toBe(7);
  expect(JSON.parse(result.err)).toMatchObject({
    message: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+ closed the connection before its answer was complete/),
    error: { kind: 'connection' },
  });
});

it('a refusal (422) does not offer a retry: it would be refused again', async () => {
  server.answer = { status: 422, body: JSON.stringify({ success: false, message: 'No.', error: { code: 'PLATFORM_VALIDATION_FAILED' } }) };
  const result = await runCli(config.dir, [...ORDER, '--idempotency-key', KEY], { env: env() });
  expect(result.code).toBe(5);
  expect(result.err).not.toContain('Retry safely');
});

// scripting.md: --json stays the exact JSON value, with what a terminal acts on written as \u escapes.
it('--json: the envelope carries the server’s message exactly; text output escapes it', async () => {
  const message = 'bad \u001b]0;PWNED\u0007 value\nsecond line';
  server.answer = { status: 422, body: JSON.stringify({ success: false, message, error: { code: 'PLATFORM_VALIDATION_FAILED' } }) };
  const json = await runCli(config.dir, ['--json', 'me'], { env: env() });
  expect(json.code).toBe(5);
  expect(json.err).toContain('"message":"bad \\u001b]0;PWNED\\u0007 value\\nsecond line"');
  expect(JSON.parse(json.err)).toMatchObject({ message, error: { code: 'PLATFORM_VALIDATION_FAILED' } });
  const text = await runCli(config.dir, ['me'], { env: env() });
  expect(text.err).toBe('Error: bad \\x1b]0;PWNED\\x07 value.\n');
});
