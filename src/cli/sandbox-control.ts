import type { Fixtures } from '../../mocks/store/fixtures.js';
import type { EmbeddedSandbox } from './embedded-sandbox.js';
import { CONTROL_HEADER } from '../contract/sandbox-control.js';
import { ConnectionError, errorForStatus, TimeoutError } from '../errors.js';
import { exchange, TransportFailure } from '../client/http.js';
import { UsageError } from './errors.js';

export type InvoiceMove = 'pay' | 'expire' | 'fail' | 'complete' | 'failOrder';

export interface DepositOptions {
  amount: number;
  account?: string | undefined;
  token?: string | undefined;
  paid: boolean;
}

/** The sandbox's control operations, on the embedded sandbox or on a served one (`--base-url`). */
export interface SandboxControlClient {
  move(verb: InvoiceMove, invoiceCode: string): Promise<void>;
  deposit(options: DepositOptions): Promise<{ invoice_code: string }>;
  reset(): Promise<void>;
  fixtures(): Promise<Fixtures>;
}

/** Each move loads the embedded sandbox as it is on disk, under its lock, and writes it back (embedded-sandbox.ts). */
export function embeddedControl(embedded: EmbeddedSandbox): SandboxControlClient {
  // sandbox.control rejects with the client's error classes, which carry the kind that decides the exit code.
  return {
    move: (verb, code) => embedded.use((sandbox) => sandbox.control[verb](code)),
    deposit: (o) => embedded.use((sandbox) => sandbox.control.deposit({ amount: o.amount, paid: o.paid, ...(o.account ? { account: o.account } : {}), ...(o.token ? { token: o.token } : {}) })),
    // From the seed, without reading the file: reset must work when the state is damaged.
    reset: () => embedded.use((sandbox) => sandbox.control.reset(), { fresh: true }),
    fixtures: () => embedded.use(async (sandbox) => sandbox.fixtures()),
  };
}

const movePaths: Record<InvoiceMove, (code: string) => string> = {
  pay: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/pay`,
  expire: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/expire`,
  fail: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/fail`,
  complete: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/complete`,
  failOrder: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/fail`,
};

/** How the control calls reach a served sandbox. */
export interface RemoteTransport {
  fetch: typeof globalThis.fetch;
  /** Milliseconds one call may take, up to the last byte of the answer: the client's per-attempt timeout. */
  timeout: number;
  /** Ctrl-C: ends the wait at once. */
  signal?: AbortSignal | undefined;
}

/** Each call is sent once: the control POSTs change state and carry no idempotency key, so they are never retried. */
export function remoteControl(baseUrl: string, transport: RemoteTransport): SandboxControlClient {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    throw new UsageError(`The base URL '${baseUrl}' is not a valid URL.`);
  }
  const call = async (method: string, path: string, body?: unknown, token?: string): Promise<unknown> => {
    const answer = await exchangeWith(origin, path, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }, transport);
    // A real server must never be driven as if it were a sandbox, whatever it answers at these paths.
    if (!answer.fromSandbox) throw new UsageError(`${origin} is not a topup sandbox (no /__sandbox control API answers there); \`topup mock\` commands act only on a sandbox: pass --mock for the embedded one, or --base-url of \`topup mock serve\`.`);
    const envelope = parseEnvelope(answer.text);
    // The error class of its status, with its code and fields, as the embedded sandbox's control rejects (409 and 422 exit 5).
    if (!answer.ok || envelope?.success !== true) throw errorForStatus(answer.status, envelope?.message ?? `The sandbox answered ${answer.status}.`, { code: envelope?.error?.code, fields: envelope?.error?.fields });
    return envelope.data;
  };
  return {
    move: async (verb, code) => {
      await call('POST', movePaths[verb](code));
    },
    deposit: async (o) => (await call('POST', '/__sandbox/deposits', { amount: o.amount, paid: o.paid, ...(o.account ? { account: o.account } : {}) }, o.token)) as { invoice_code: string },
    reset: async () => {
      await call('POST', '/__sandbox/reset');
    },
    fixtures: async () => (await call('GET', '/__sandbox/fixtures')) as Fixtures,
  };
}

/**
 * One request and its whole answer within the timeout, as the client sends an attempt (src/client/http.ts).
 * A timeout is a TimeoutError, Ctrl-C rejects with the signal's reason, anything else is a ConnectionError.
 */
async function exchangeWith(origin: string, path: string, request: { method: string; headers: Record<string, string>; body?: string | undefined }, transport: RemoteTransport): Promise<{ status: number; ok: boolean; text: string; fromSandbox: boolean }> {
  try {
    const { answer, body } = await exchange(transport.fetch, `${origin}${path}`, request, transport);
    return { status: answer.status, ok: answer.ok, text: body, fromSandbox: answer.headers.get(CONTROL_HEADER) === '1' };
  } catch (error) {
    if (error instanceof TimeoutError) throw new TimeoutError(`The sandbox at ${origin} did not answer within ${transport.timeout / 1000} s.`);
    if (!(error instanceof TransportFailure)) throw error;
    const { connectionFailure } = await import('../client/transport-failure.js');
    const cause = connectionFailure(error.reason, origin, undefined).message.replace(/\.$/, '');
    const message = error.during === 'request' ? `${cause}. Is \`topup mock serve\` running there?` : `The sandbox at ${origin} closed the connection before its answer was complete.`;
    throw new ConnectionError(message);
  }
}

type Envelope = { success?: boolean; message?: string; data?: unknown; error?: { code?: string; fields?: string[] } } | null;

function parseEnvelope(text: string): Envelope {
  try {
    return JSON.parse(text) as Envelope;
  } catch {
    return null;
  }
}
