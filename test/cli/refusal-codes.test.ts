import { afterAll, expect, it } from 'vitest';
import { useAnswerServer } from '../support/answer-server.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/*
 * A server of the document's API may refuse a balance order with any 4xx: the document names CHAT_LINK_REQUIRED and
 * INSUFFICIENT_BALANCE by code, not status. The CLI exits 5 (rejected) for them whatever the status, as it does for
 * 403, 409 and 422, and keeps the server's sentence.
 */

const server = useAnswerServer();
const config = tempConfigDir();
afterAll(() => config.cleanup());

const ORDER = ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'];
const BALANCE = [...ORDER, '--payment-method', 'balance', '--chat-user-id', '5', '--yes'];

it.each([
  [400, 'INSUFFICIENT_BALANCE'],
  [402, 'INSUFFICIENT_BALANCE'],
  [400, 'CHAT_LINK_REQUIRED'],
])('%i %s → exit 5, the server’s sentence, kind validation with --json', async (status, code) => {
  server.answer = { status, body: JSON.stringify({ success: false, message: 'Not enough balance.', error: { code } }) };
  const env = { TOPUP_BASE_URL: server.url, TOPUP_TOKEN: 'topup_test_refusalrefusalrefusalrefusal00' };
  const text = await runCli(config.dir, BALANCE, { env });
  expect(text.code).toBe(5);
  expect(text.err).toContain('Not enough balance.');
  const json = await runCli(config.dir, ['--json', ...BALANCE], { env });
  expect(json.code).toBe(5);
  expect(JSON.parse(json.err)).toMatchObject({ success: false, message: 'Not enough balance.', error: { code, kind: 'validation' } });
});
