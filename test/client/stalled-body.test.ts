import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LEAN } from '../support/cli-assertions.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { httpFetch } from '../../src/cli/http-fetch.js';
import { ConnectionError, createClient, TimeoutError, type TopupError, type FetchFunction, type TopupClient } from '../../src/index.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
/** Hang guard: a stalled body that is not timed out would run into this instead of finishing. */
const GUARD = { timeout: 5_000 };

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  /** The status of an answer sent whole, or what was done to it after its headers and half its body went out. */
  outcome: number | 'pending' | 'stalled' | 'reset';
  /** Resolves when the connection closes. */
  closed: Promise<void>;
}

/**
 * A gateway on 127.0.0.1 in front of the real sandbox, which can stall an answer mid-body (the sandbox itself
 * always answers whole): the sandbox has handled (and committed) the request, the status line, the headers and
 * half the body are sent, and then nothing more ('stall'), or the connection is cut ('reset').
 */
async function stallingGateway(sandbox: Sandbox, treat: (index: number) => 'answer' | 'stall' | 'reset') {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
      // Seen when it arrives, not when answered: on a loaded machine the sandbox may still be handling it when the
      // client's timeout fires, and the request did reach the server all the same.
      const entry: Seen = {
        method: req.method!,
        path: req.url!,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        outcome: 'pending',
        closed,
      };
      const treatment = treat(seen.length);
      seen.push(entry);
      const body = await readText(req);
      const reply = await sandbox.handle({
        method: req.method!,
        url: `${sandbox.baseUrl}${req.url}`,
        headers: req.headers as Record<string, string>,
        body: body === '' ? null : body,
        clientAddress: '127.0.0.1',
      });
      if ('drop' in reply) throw new Error('the test sandbox has no faults configured');
      entry.outcome = treatment === 'answer' ? reply.status : treatment === 'stall' ? 'stalled' : 'reset';
      res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) });
      if (treatment === 'answer') {
        res.end(reply.body);
        return;
      }
      res.write(reply.body.slice(0, reply.body.length >> 1), () => {
        if (treatment === 'reset') res.destroy();
      });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, server };
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

let sandbox: Sandbox;
let gateway: Awaited<ReturnType<typeof stallingGateway>> | undefined;

beforeEach(async () => {
  sandbox = await createSandbox();
  // Its first answer pays for warming up: paid here, not inside a test's timeout.
  await sandbox.handle({ method: 'GET', url: `${sandbox.baseUrl}/api/v1/catalog`, headers: {}, body: null, clientAddress: '127.0.0.1' });
});
afterEach(async () => {
  if (gateway === undefined) return;
  gateway.server.closeAllConnections();
  await new Promise((resolve) => gateway!.server.close(resolve));
  gateway = undefined;
});

async function orderCount(): Promise<number> {
  const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('demo').token, fetch: sandbox.fetch });
  // Counted from the list itself, with every order on one page: pagination is not something every server sends.
  return (await client.orders.list({ per_page: 100 })).orders!.length;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

// The global fetch hands over the answer at its headers, so the body is read after fetch resolves; the CLI's
// httpFetch buffers the body before resolving, so for it the same timeout covers the stall inside fetch.
/*
 * Long enough that a loaded machine still gets the request to the gateway before the client gives up (at 200 ms a busy
 * CI runner sometimes timed out before the request was seen), short enough to keep the file quick.
 */
const STALL_TIMEOUT_MS = 600;

const transports: [string, FetchFunction][] = [
  ['the global fetch', globalThis.fetch],
  ["the CLI's httpFetch", httpFetch],
];

describe.each(transports)('an answer that stalls mid-body, over %s', (_, fetch) => {
  function clientOn(url: string, options: Partial<Parameters<typeof createClient>[0]> = {}): TopupClient {
    return createClient({
      baseUrl: url,
      token: sandbox.account('demo').token,
      fetch,
      timeout: STALL_TIMEOUT_MS,
      pacing: false,
      clock: { random: () => 0 },
      ...options,
    });
  }

  it.each([
    { name: 'a GET', call: (c: TopupClient) => c.balance.get(), requests: 'GET /api/v1/me/balance' },
    {
      name: 'a keyed POST (orders.create)',
      call: (c: TopupClient) => c.orders.create(order, { idempotencyKey: 'stall-every' }),
      requests: 'POST /api/v1/me/orders',
    },
    {
      name: 'an unkeyed POST (token.validate)',
      call: (c: TopupClient) => c.token.validate(),
      requests: 'POST /api/v1/auth/token/validate',
    },
  ])('fails $name with TimeoutError when it never finishes, and closes the connection', GUARD, async ({ call, requests }) => {
    gateway = await stallingGateway(sandbox, () => 'stall');
    const error = await caught(call(clientOn(gateway.url, { maxRetries: 0 })));
    expect(error).toBeInstanceOf(TimeoutError);
    // The same error as for a stalled wait for the headers, saying that the answer had begun.
    expect((error as TimeoutError).message).toBe(`${gateway.url} began its answer but did not finish it within ${STALL_TIMEOUT_MS} ms.`);
    expect(gateway.seen.map((s) => `${s.method} ${s.path}`)).toEqual([requests]);
    // The client cancelled the body: the socket is not left open.
    await gateway.seen[0]!.closed;
  });

  it('retries a GET whose first answer stalled, and returns the second', GUARD, async () => {
    gateway = await stallingGateway(sandbox, (index) => (index === 0 ? 'stall' : 'answer'));
    const balance = await clientOn(gateway.url).balance.get();
    expect(balance).toEqual(LEAN ? {} : expect.objectContaining({ balance: expect.any(Number) }));
    expect(gateway.seen.map((s) => s.outcome)).toEqual(['stalled', 200]);
  });

  it('retries an order whose first answer stalled after the server committed, with the same key, leaving one order', GUARD, async () => {
    gateway = await stallingGateway(sandbox, (index) => (index === 0 ? 'stall' : 'answer'));
    const result = await clientOn(gateway.url).orders.create(order);
    expect(gateway.seen.map((s) => [s.method, s.outcome, s.idempotencyKey])).toEqual([
      ['POST', 'stalled', result.idempotencyKey],
      ['POST', 200, result.idempotencyKey],
    ]);
    expect(result.idempotent).toBe(true);
    expect(await orderCount()).toBe(1);
  });

  it('does not retry an unkeyed POST whose answer stalled', GUARD, async () => {
    gateway = await stallingGateway(sandbox, (index) => (index === 0 ? 'stall' : 'answer'));
    await expect(clientOn(gateway.url).token.validate()).rejects.toBeInstanceOf(TimeoutError);
    // The gateway notes a request once the sandbox has answered it, which a loaded machine may finish after the
    // client gave up; a retry would have been sent before that, so it would be noted too.
    await expect.poll(() => gateway!.seen.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gateway.seen).toHaveLength(1);
  });

  it('still reports a connection cut mid-body as ConnectionError, and retries it', GUARD, async () => {
    gateway = await stallingGateway(sandbox, () => 'reset');
    const error = await caught(clientOn(gateway.url, { maxRetries: 1 }).balance.get());
    expect(error).toBeInstanceOf(ConnectionError);
    // node's fetch reports the cut as ECONNRESET or as undici's own socket error, depending on timing.
    // When the fetch had resolved with the headers, the message says the answer was cut (the server was reached);
    // a fetch that reads the whole body before it resolves cannot tell the two apart.
    const origin = gateway.url.replace(/\./g, '\\.');
    const reset = 'the connection was reset \\((ECONNRESET|UND_ERR_SOCKET)\\)';
    expect((error as ConnectionError).message).toMatch(
      new RegExp(
        `^(Could not reach ${origin}: ${reset}|${origin} closed the connection before its answer was complete \\(${reset}\\))\\.$`,
      ),
    );
    expect(gateway.seen.map((s) => s.outcome)).toEqual(['reset', 'reset']);
  });

  it('when every answer stalls, the order error carries the key, and that key finds the one order the server made', GUARD, async () => {
    gateway = await stallingGateway(sandbox, () => 'stall');
    const error = await caught(clientOn(gateway.url, { maxRetries: 2 }).orders.create(order));
    expect(error).toBeInstanceOf(TimeoutError);
    const key = (error as TopupError).idempotencyKey;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(gateway.seen.map((s) => [s.outcome, s.idempotencyKey])).toEqual([
      ['stalled', key],
      ['stalled', key],
      ['stalled', key],
    ]);
    const again = await createClient({
      baseUrl: sandbox.baseUrl,
      token: sandbox.account('demo').token,
      fetch: sandbox.fetch,
    }).orders.create(order, { idempotencyKey: key });
    expect(again.idempotent).toBe(true);
    expect(await orderCount()).toBe(1);
  });
});

// Over httpFetch an abort mid-body ends inside fetch itself (test/cli/http-fetch.test.ts).
describe("the caller's abort, over the global fetch", () => {
  it('rejects with its reason while the body is stalled, and closes the connection', GUARD, async () => {
    gateway = await stallingGateway(sandbox, () => 'stall');
    let startReading: () => void = () => undefined;
    const readingBody = new Promise<void>((resolve) => (startReading = resolve));
    // Tells when the headers are in and the client goes on to read the body (as text or as a stream counted against
    // maxResponseBytes), so the abort surely comes after the headers.
    const watched: FetchFunction = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      setTimeout(startReading, 50);
      return response;
    };
    const controller = new AbortController();
    const reason = new Error('stop');
    // The default 30 s timeout: only the abort can end this call within the guard.
    const pending = createClient({ baseUrl: gateway.url, token: sandbox.account('demo').token, fetch: watched, pacing: false }).balance.get(
      { signal: controller.signal },
    );
    await readingBody;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(gateway.seen).toHaveLength(1);
    await gateway.seen[0]!.closed;
  });
});

describe('the per-attempt timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is cleared once a body that arrives after the headers has been read', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const body = JSON.stringify({ success: true, data: { status: 'ok', version: '1', time: '2026-01-01 00:00:00' } });
    // The headers at once, the body a macrotask later (setImmediate is not faked).
    const lateBody: FetchFunction = async () =>
      new Response(
        new ReadableStream({
          start: (stream) =>
            void setImmediate(() => {
              stream.enqueue(new TextEncoder().encode(body));
              stream.close();
            }),
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const client = createClient({ baseUrl: 'http://127.0.0.1:1', fetch: lateBody, pacing: false });
    expect(await client.health()).toMatchObject({ status: 'ok' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a fetch that never answers and ignores its signal', () => {
  /** Never settles; keeps the signal it was given, to show that the client aborted it. */
  function silent(): { fetch: FetchFunction; given: () => AbortSignal | undefined } {
    let given: AbortSignal | undefined;
    const fetch: FetchFunction = (_input, init) => {
      given = init?.signal ?? undefined;
      return new Promise<never>(() => undefined);
    };
    return { fetch, given: () => given };
  }

  it('ends at the per-attempt timeout with TimeoutError, its signal aborted', GUARD, async () => {
    const { fetch, given } = silent();
    const client = createClient({ baseUrl: 'http://127.0.0.1:1', fetch, pacing: false, timeout: 100, maxRetries: 0 });
    const error: unknown = await client.health().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(given()?.aborted).toBe(true);
  });

  it("ends at the caller's abort with its reason, however long the timeout", GUARD, async () => {
    const { fetch, given } = silent();
    const client = createClient({ baseUrl: 'http://127.0.0.1:1', fetch, pacing: false });
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = client.health({ signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(given()?.reason).toBe(reason);
  });
});
