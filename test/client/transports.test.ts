import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../mocks/adapters/msw.js';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { AuthError, ConnectionError, createClient, NotFoundError, type TopupClient } from '../../src/index.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

import { LEAN } from '../support/cli-assertions.js';

/** The same short script on every transport: read, create twice with one key, pay, wait, and two errors. */
async function script(client: TopupClient, sandbox: Sandbox): Promise<void> {
  expect((await client.health()).status).toBe(LEAN ? undefined : 'ok');
  expect((await client.token.validate()).mode).toBe('sandbox');
  const first = await client.orders.create(order, { idempotencyKey: 'transport-1' });
  const again = await client.orders.create(order, { idempotencyKey: 'transport-1' });
  expect([first.idempotent, again.idempotent]).toEqual([false, true]);
  await sandbox.control.pay(first.invoice.invoice_code);
  expect(await client.invoices.wait(first.invoice.invoice_code)).toMatchObject({
    payment_status: 'paid',
    ...(LEAN ? {} : { is_final: true }),
  });
  const codes: string[] = [];
  for await (const o of client.orders.list()) codes.push(o.invoice_code!);
  expect(codes).toEqual([first.invoice.invoice_code]);
  await expect(client.orders.get('INV404')).rejects.toBeInstanceOf(NotFoundError);
}

describe('through msw setupServer with the sandbox handlers', () => {
  let sandbox: Sandbox;
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());
  beforeEach(async () => {
    sandbox = await createSandbox();
    server.resetHandlers(...createHandlers(sandbox));
  });
  afterEach(() => server.resetHandlers());

  it('runs the script with the global fetch', async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token });
    await script(client, sandbox);
  });

  it('maps a bad token to AuthError', async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token: 'topup_test_wrong' });
    await expect(client.account.profile()).rejects.toBeInstanceOf(AuthError);
  });
});

describe('over real HTTP on loopback', () => {
  let sandbox: Sandbox;
  let http: HttpSandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
    http = await startHttpSandbox(sandbox, { port: 0, host: '127.0.0.1' });
  });
  afterEach(async () => {
    await http.close();
  });

  it('runs the script with the global fetch against http://127.0.0.1', async () => {
    const client = createClient({ baseUrl: http.url, token: sandbox.account('demo').token });
    await script(client, sandbox);
  });

  it('reports a refused connection as ConnectionError after its retries', async () => {
    const url = http.url;
    await http.close();
    const client = createClient({ baseUrl: url, token: sandbox.account('demo').token, maxRetries: 1, clock: { random: () => 0 } });
    const error = await client.account.profile().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toBe(
      `Could not reach ${new URL(url).origin}: connection refused: nothing is listening there (ECONNREFUSED).`,
    );
    http = await startHttpSandbox(sandbox, { port: 0 });
  });
});
