import { beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import {
  AuthError,
  ConflictError,
  ConnectionError,
  createClient,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  TopupError,
  UsageError,
  ValidationError,
  type FetchFunction,
  type TopupClient,
} from '../../src/index.js';
import { reachableStrings, recordingFetch, type Exchange } from './helpers.js';

const order = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };

let sandbox: Sandbox;
let exchanges: Exchange[];
let fetch: FetchFunction;

beforeEach(async () => {
  sandbox = await createSandbox();
  ({ fetch, exchanges } = recordingFetch(sandbox.fetch));
});

function clientFor(token: string, options: Partial<Parameters<typeof createClient>[0]> = {}): TopupClient {
  return createClient({ baseUrl: sandbox.baseUrl, token, fetch, clock: { random: () => 0 }, ...options });
}

async function caught(promise: Promise<unknown>): Promise<TopupError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TopupError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('errors from the sandbox map to their classes, and none is retried', () => {
  it.each([
    {
      name: '401 for an unknown token',
      run: (_s: Sandbox) => clientFor('topup_live_not_a_real_token').account.profile(),
      type: AuthError,
      expected: {
        name: 'AuthError',
        status: 401,
        code: undefined,
        fields: undefined,
        message: 'Unauthorized: the API token is missing or invalid.',
      },
    },
    {
      name: '401 for a client without a token, which sends no Authorization at all',
      run: (s: Sandbox) => createClient({ baseUrl: s.baseUrl, fetch }).balance.get(),
      type: AuthError,
      expected: { name: 'AuthError', status: 401, code: undefined },
    },
    {
      name: '401 for a revoked token on a keyed POST',
      run: (s: Sandbox) => clientFor(s.fixtures().revoked_tokens[0]!).orders.create(order, { idempotencyKey: 'revoked-1' }),
      type: AuthError,
      expected: { name: 'AuthError', status: 401, code: undefined, idempotencyKey: 'revoked-1' },
    },
    {
      name: "404 for another account's invoice",
      run: async (s: Sandbox) => {
        const created = await clientFor(s.account('demo').token).orders.create(order);
        exchanges.length = 0;
        return clientFor(s.account('rich').token).invoices.get(created.invoice.invoice_code);
      },
      type: NotFoundError,
      expected: { name: 'NotFoundError', status: 404, code: 'NOT_FOUND' },
    },
    {
      name: '422 FORBIDDEN_FIELDS with the fields',
      run: (s: Sandbox) =>
        clientFor(s.account('demo').token).orders.create({ ...order, price: 1, status: 'paid' } as never, {
          idempotencyKey: 'forbidden-1',
        }),
      type: ValidationError,
      expected: {
        name: 'ValidationError',
        status: 422,
        code: 'FORBIDDEN_FIELDS',
        fields: ['price', 'status'],
        idempotencyKey: 'forbidden-1',
        message: 'These fields may not be sent: price, status. The server sets prices, amounts and statuses itself.',
      },
    },
    {
      name: '422 PLATFORM_VALIDATION_FAILED',
      run: (s: Sandbox) => clientFor(s.account('demo').token).orders.create(s.fixtures().platform.invalid_orders[0]!),
      type: ValidationError,
      expected: { name: 'ValidationError', status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
    },
    {
      name: '422 CHAT_LINK_REQUIRED without X-Chat-User-ID',
      run: (s: Sandbox) => clientFor(s.account('rich').token).orders.create({ ...order, payment_method: 'balance' }),
      type: ValidationError,
      expected: { name: 'ValidationError', status: 422, code: 'CHAT_LINK_REQUIRED' },
    },
    {
      name: '422 INSUFFICIENT_BALANCE',
      run: (s: Sandbox) =>
        clientFor(s.account('broke').token).orders.create({ ...order, payment_method: 'balance' }, { chatUserId: '700000002' }),
      type: ValidationError,
      expected: { name: 'ValidationError', status: 422, code: 'INSUFFICIENT_BALANCE' },
    },
    {
      name: '422 for a bad list query',
      run: (s: Sandbox) =>
        clientFor(s.account('demo').token)
          .orders.list({ per_page: 1000 })
          .then((page) => page),
      type: ValidationError,
      expected: { name: 'ValidationError', status: 422, code: 'VALIDATION_FAILED', fields: ['per_page'] },
    },
  ])('$name', async ({ run, type, expected }) => {
    const error = await caught(run(sandbox));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject(expected);
    expect(exchanges).toHaveLength(1);
  });

  it('409 IDEMPOTENCY_KEY_MISMATCH for the same key with a different body, carrying the key', async () => {
    const client = clientFor(sandbox.account('demo').token);
    await client.orders.create(order, { idempotencyKey: 'order-42' });
    const error = await caught(client.orders.create({ ...order, client_reference: 'changed' }, { idempotencyKey: 'order-42' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_MISMATCH', idempotencyKey: 'order-42' });
    expect(exchanges).toHaveLength(2);
  });

  it('429 with retryAfter when pacing is off and retries are off', async () => {
    const client = clientFor(sandbox.account('demo').token, { pacing: false, maxRetries: 0 });
    for (let i = 0; i < 10; i++) await client.orders.create(order);
    const error = await caught(client.orders.create(order, { idempotencyKey: 'eleventh' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: undefined, retryAfter: 60, idempotencyKey: 'eleventh' });
    expect(error.message).toBe('Too many requests. Retry in 60 seconds.');
  });

  it('a POST without a key (token.validate) is not retried, even on a retryable 429', async () => {
    const client = clientFor(sandbox.account('demo').token, { pacing: false });
    for (let i = 0; i < 30; i++) await client.token.validate();
    exchanges.length = 0;
    await expect(client.token.validate()).rejects.toBeInstanceOf(RateLimitError);
    expect(exchanges).toHaveLength(1);
  });

  it('a local misuse is a UsageError that carries the key, and nothing is sent', async () => {
    const client = clientFor(sandbox.account('rich').token);
    const error = await caught(client.orders.create(order, { idempotencyKey: 'k-1', chatUserId: '7000\n00001' }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.idempotencyKey).toBe('k-1');
    expect(exchanges).toHaveLength(0);
  });
});

describe('no error ever contains the token', () => {
  /** A connection that fails with the Authorization header in its messages, as a careless proxy or library might. */
  const hostileTransport: FetchFunction = async (input, init) => {
    const authorization = new Request(input, init).headers.get('authorization');
    throw new TypeError(`fetch failed for ${authorization}`, {
      cause: Object.assign(new Error(`socket hang up (${authorization})`), { code: 'ECONNRESET' }),
    });
  };
  const hangingTransport: FetchFunction = (input, init) =>
    new Promise((_, reject) => {
      const signal = new Request(input, init).signal;
      signal.addEventListener('abort', () => reject(signal.reason));
    });

  it.each([
    {
      name: 'AuthError',
      type: AuthError,
      run: (s: Sandbox, token: string) => createClient({ baseUrl: s.baseUrl, token: `${token}x`, fetch: s.fetch }).account.profile(),
      leaked: (t: string) => `${t}x`,
    },
    // A token as a path parameter is refused before sending, so no server can echo it into a 404 message.
    {
      name: 'UsageError (token as a path parameter)',
      type: UsageError,
      run: (s: Sandbox, token: string) => createClient({ baseUrl: s.baseUrl, token, fetch: s.fetch }).orders.get(token),
    },
    {
      name: 'NotFoundError',
      type: NotFoundError,
      run: (s: Sandbox, token: string) => createClient({ baseUrl: s.baseUrl, token, fetch: s.fetch }).orders.get('INV99999999'),
    },
    {
      name: 'ValidationError',
      type: ValidationError,
      run: (s: Sandbox, token: string) =>
        createClient({ baseUrl: s.baseUrl, token, fetch: s.fetch }).orders.create({ ...order, client_reference: token, price: 5 } as never),
    },
    {
      name: 'ConflictError',
      type: ConflictError,
      run: async (s: Sandbox, token: string) => {
        const client = createClient({ baseUrl: s.baseUrl, token, fetch: s.fetch });
        await client.orders.create(order, { idempotencyKey: 'same' });
        return client.orders.create({ ...order, client_reference: 'other' }, { idempotencyKey: 'same' });
      },
    },
    {
      name: 'RateLimitError',
      type: RateLimitError,
      run: async (s: Sandbox, token: string) => {
        const client = createClient({ baseUrl: s.baseUrl, token, fetch: s.fetch, pacing: false, maxRetries: 0 });
        for (let i = 0; i < 11; i++) await client.orders.create(order);
      },
    },
    {
      name: 'ConnectionError',
      type: ConnectionError,
      run: (s: Sandbox, token: string) =>
        createClient({ baseUrl: s.baseUrl, token, fetch: hostileTransport, maxRetries: 0 }).account.profile(),
    },
    {
      name: 'TimeoutError',
      type: TimeoutError,
      run: (s: Sandbox, token: string) =>
        createClient({ baseUrl: s.baseUrl, token, fetch: hangingTransport, maxRetries: 0, timeout: 20 }).account.profile(),
    },
  ])('$name', async ({ type, run, leaked }) => {
    const token = sandbox.account('demo').token;
    const secret = leaked?.(token) ?? token;
    const error = await caught(run(sandbox, token));
    expect(error).toBeInstanceOf(type);
    expect(String(error)).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(error.stack).not.toContain(secret);
    for (const text of reachableStrings(error)) expect(text).not.toContain(secret);
  });

  it('keeps a scrubbed reason for a transport failure', async () => {
    const token = sandbox.account('demo').token;
    const client = createClient({ baseUrl: sandbox.baseUrl, token, fetch: hostileTransport, maxRetries: 0 });
    const error = await caught(client.account.profile());
    expect(error.message).toBe('Could not reach http://sandbox.localhost: the connection was reset (ECONNRESET).');
    expect(error.status).toBeUndefined();
  });
});

describe("a connection failure names the server's origin and the cause", () => {
  const failWith =
    (code: string): typeof fetch =>
    async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
    };
  it.each([
    ['ECONNREFUSED', 'connection refused: nothing is listening there (ECONNREFUSED)'],
    ['ENOTFOUND', 'DNS: the host name was not found (ENOTFOUND)'],
    ['EAI_AGAIN', 'DNS: the host name was not found (EAI_AGAIN)'],
    ['CERT_HAS_EXPIRED', "TLS: the server's certificate was refused (CERT_HAS_EXPIRED)"],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', "TLS: the server's certificate was refused (DEPTH_ZERO_SELF_SIGNED_CERT)"],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "TLS: the server's certificate was refused (ERR_TLS_CERT_ALTNAME_INVALID)"],
    ['ETIMEDOUT', 'the connection timed out (ETIMEDOUT)'],
    ['EHOSTUNREACH', 'the network or host is unreachable (EHOSTUNREACH)'],
    ['EWEIRD', 'fetch failed: connect EWEIRD: EWEIRD'],
  ])('%s', async (code, reason) => {
    const client = createClient({ baseUrl: 'https://shop.example.com/', token: 'topup_live_x', fetch: failWith(code), maxRetries: 0 });
    const error = await caught(client.account.profile());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(`Could not reach https://shop.example.com: ${reason}.`);
  });
});
