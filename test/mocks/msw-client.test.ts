import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, createSandbox } from '../../mocks/index.js';
import { createClient, ResponseTooLargeError } from '../../src/index.js';

const base = 'https://shop.example.com';
// As a bot's module makes it: before the test file's msw listens (and replaces the global fetch).
const sandbox = await createSandbox({ rateLimit: false });
const client = createClient({ baseUrl: base, token: sandbox.account('rich').token, pacing: false, maxRetries: 0 });
const server = setupServer(...createHandlers(sandbox, { baseUrl: base }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('the client under msw (docs/testing-your-bot.md)', () => {
  it('a client made before msw listens sends through msw, never to the network', async () => {
    const direct = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch, pacing: false });
    expect(await client.balance.get()).toEqual(await direct.balance.get());
    expect(sandbox.requests.list({ path: '/api/v1/me/balance' }).map((entry) => entry.status)).toEqual([200, 200]);
  });

  it('an answer past maxResponseBytes fails at once as too large, though msw never settles the cancel of its stream', async () => {
    server.use(http.get(`${base}/api/v1/me/balance`, () => new Response(`{"data":"${'x'.repeat(64 * 1024)}"}`)));
    const small = createClient({
      baseUrl: base,
      token: sandbox.account('rich').token,
      pacing: false,
      timeout: 2000,
      maxResponseBytes: 1024,
    });
    // Before, each attempt waited for the cancel until its timeout: a TimeoutError, retried.
    await expect(small.balance.get()).rejects.toBeInstanceOf(ResponseTooLargeError);
    server.resetHandlers();
  });
});
