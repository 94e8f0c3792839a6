import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/*
 * Ctrl-C ends every command at once, whatever it is waiting for: an answer that never comes, or a Retry-After the
 * server asked for. (health, packages and payment-methods once sat out two 30 s timeouts, or the whole Retry-After.)
 * The run's signal is aborted once the server has the request; without it reaching the client, the run would wait
 * past this test's timeout.
 */

let server: Server;
let base = '';
/** Requests that have arrived; each test waits for its own. */
const arrived: IncomingMessage[] = [];
let onArrive: (() => void) | undefined;
let mode: 'hang' | 'retry-after' = 'hang';
const config = tempConfigDir();

beforeAll(async () => {
  server = createServer((req, res) => {
    arrived.push(req);
    onArrive?.();
    if (mode === 'retry-after') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end(JSON.stringify({ success: false, message: 'Too many requests.' }));
    }
    // 'hang': never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  config.cleanup();
});

/** Runs `args` against the server and interrupts it (as Ctrl-C does) once the server has the request. */
async function interrupted(args: string[]): Promise<{ code: number; requests: number }> {
  const before = arrived.length;
  const controller = new AbortController();
  onArrive = () => controller.abort(Object.assign(new Error('Interrupted.'), { signal: 'SIGINT' }));
  const result = await runCli(config.dir, args, {
    env: { TOPUP_BASE_URL: base, TOPUP_TOKEN: 'topup_test_interruptinterruptinterrupt00' },
    signal: controller.signal,
  });
  onArrive = undefined;
  return { code: result.code, requests: arrived.length - before };
}

const COMMANDS = [
  ['health'],
  ['packages'],
  ['payment-methods'],
  ['articles', 'list'],
  ['me'],
  ['balance'],
  ['transactions'],
  ['deposits', 'list'],
  ['orders', 'list'],
  ['dashboard'],
];

describe.each(['hang', 'retry-after'] as const)('Ctrl-C while the server %s', (how) => {
  beforeAll(() => {
    mode = how;
  });

  it.each(COMMANDS)('%s ends with exit 130 after one request', async (...args) => {
    expect(await interrupted(args)).toEqual({ code: 130, requests: 1 });
  });
});
