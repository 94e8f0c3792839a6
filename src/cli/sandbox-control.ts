import type { Fixtures } from '../../mocks/fixtures.js';
import type { Sandbox } from '../../mocks/sandbox.js';
import { CliError, RejectedError, UsageError } from './errors.js';

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

/** A refusal from the sandbox, as the error class that gives it the right exit code. */
function refusal(status: number, message: string): Error {
  if (status === 409 || status === 422) return new RejectedError(message);
  if (status === 401) return Object.assign(new CliError(message), { name: 'AuthError' });
  return new CliError(message);
}

export function embeddedControl(sandbox: Sandbox): SandboxControlClient {
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Error && error.name === 'ApiError') throw refusal((error as Error & { status: number }).status, error.message);
      throw error;
    }
  };
  return {
    move: (verb, code) => guard(() => sandbox.control[verb](code)),
    deposit: (o) => guard(() => sandbox.control.deposit({ amount: o.amount, paid: o.paid, ...(o.account ? { account: o.account } : {}), ...(o.token ? { token: o.token } : {}) })),
    reset: () => guard(() => sandbox.control.reset()),
    fixtures: async () => sandbox.fixtures(),
  };
}

const movePaths: Record<InvoiceMove, (code: string) => string> = {
  pay: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/pay`,
  expire: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/expire`,
  fail: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/fail`,
  complete: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/complete`,
  failOrder: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/fail`,
};

export function remoteControl(baseUrl: string, fetchFn: typeof globalThis.fetch = globalThis.fetch): SandboxControlClient {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    throw new UsageError(`The base URL '${baseUrl}' is not a valid URL.`);
  }
  const call = async (method: string, path: string, body?: unknown, token?: string): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetchFn(`${origin}${path}`, {
        method,
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw Object.assign(new CliError(`Cannot reach a sandbox at ${origin}. Is \`topup mock serve\` running?`), { name: 'ConnectionError' });
    }
    const envelope = (await response.json().catch(() => null)) as { success?: boolean; message?: string; data?: unknown } | null;
    if (!response.ok || envelope?.success !== true) {
      if (response.status === 404 && envelope === null) throw new CliError(`${origin} is not a topup sandbox (no control API).`);
      throw refusal(response.status, envelope?.message ?? `The sandbox answered ${response.status}.`);
    }
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
