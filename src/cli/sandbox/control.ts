import type { FaultConfig, FaultRule, FaultStats, Fixtures, InvoiceView } from '../../../mocks/facade/control.js';
import type { JournalEntry } from '../../../mocks/facade/requests.js';
import type { EmbeddedSandbox } from './embedded.js';
import type { Sandbox } from '../../../mocks/facade/embedded.js';
import { CONTROL_HEADER, CONTROL_PREFIX, CONTROL_SECRET_HEADER, type ResetPart } from '../../contract/sandbox-control.js';
import { ConnectionError, errorForStatus, isTopupError, TimeoutError } from '../../errors.js';
import { UsageError } from '../errors.js';
import { parseBaseUrl } from '../../client/base-url.js';
import { createClient } from '../../client/index.js';

export type InvoiceMove = 'pay' | 'expire' | 'fail' | 'complete' | 'failOrder';

export interface DepositOptions {
  amount: number;
  account?: string | undefined;
  token?: string | undefined;
  /** The world of an account with both keys: its test data (`sandbox`) or its live data. */
  mode?: 'sandbox' | 'production' | undefined;
  paid: boolean;
}

export interface NewDeposit {
  invoice_code: string;
  deposit: InvoiceView;
}

/** The faults a sandbox injects, as GET /__sandbox/faults answers them: the rules, their seed, how each has done. */
export type FaultsView = Required<FaultConfig> & { stats: FaultStats };

/** The sandbox clock as GET /__sandbox/clock answers it (`now`, how far it is ahead, when it next moves something). */
export type ClockView = Record<string, unknown>;

/** The sandbox's control operations, on the embedded sandbox or on a served one (`--base-url`). */
export interface SandboxControlClient {
  move(verb: InvoiceMove, invoiceCode: string): Promise<void>;
  /** The new deposit, as the control API answers it (`--json` prints this). */
  deposit(options: DepositOptions): Promise<NewDeposit>;
  /** Back to how the sandbox started, except the parts in `keep`. */
  reset(keep?: readonly ResetPart[]): Promise<void>;
  faults(): Promise<FaultsView>;
  /** Adds rules after the sandbox's own, which keep their counts (POST /__sandbox/faults). */
  addFaults(rules: readonly FaultRule[]): Promise<FaultsView>;
  clearFaults(): Promise<FaultsView>;
  clock(): Promise<ClockView>;
  advanceClock(seconds: number): Promise<ClockView>;
  /** Empties the request journal (the served sandbox's, or the embedded one's log). */
  clearRequests(): Promise<void>;
  fixtures(): Promise<Fixtures>;
  /** The request journal, filtered by `query` (method, path, status, … as /__sandbox/requests takes them). */
  requests(query: URLSearchParams): Promise<JournalEntry[]>;
  /** The whole state as a snapshot (GET /__sandbox/state). */
  saveState(): Promise<unknown>;
  /** Replaces the whole state with a snapshot (PUT /__sandbox/state); a bad one changes nothing. */
  loadState(snapshot: unknown): Promise<void>;
}

/** Each move loads the embedded sandbox as it is on disk, under its lock, and writes it back (embedded.ts). */
export function embeddedControl(embedded: EmbeddedSandbox): SandboxControlClient {
  // sandbox.control rejects with the client's error classes, which carry the kind that decides the exit code.
  return {
    move: (verb, code) => embedded.use((sandbox) => sandbox.control[verb](code)),
    deposit: (o) =>
      embedded.use(async (sandbox) => {
        const deposit = await sandbox.control.deposit({
          amount: o.amount,
          paid: o.paid,
          ...(o.account ? { account: o.account } : {}),
          ...(o.token ? { token: o.token } : {}),
          ...(o.mode ? { mode: o.mode } : {}),
        });
        return { invoice_code: deposit.invoice_code, deposit };
      }),
    // From the seed, without reading the file: reset must work when the state is damaged. The embedded sandbox
    // lives one command long, so it holds no faults; its journal is the log beside its state.
    reset: async (keep = []) => {
      const state = !keep.includes('state');
      const requests = !keep.includes('requests');
      // The log is appended under the state's lock, so it is cleared under it too.
      await embedded.use(
        async (sandbox) => {
          if (state) await sandbox.control.reset({ keep: ['faults', 'requests'] });
          if (requests) await embedded.requestLog.clear();
        },
        { fresh: state },
      );
    },
    faults: async () => noFaults(),
    addFaults: async () => {
      throw new UsageError(
        'The embedded sandbox lives only while one command runs, so a fault would fire on nothing; start `topup mock serve --faults …`, or add faults to a served sandbox (--base-url).',
      );
    },
    clearFaults: async () => noFaults(),
    clock: () => embedded.use((sandbox) => inProcessCall(sandbox, 'GET', `${CONTROL_PREFIX}/clock`)) as Promise<ClockView>,
    advanceClock: (seconds) =>
      embedded.use((sandbox) =>
        inProcessCall(sandbox, 'POST', `${CONTROL_PREFIX}/clock`, { advance_seconds: seconds }),
      ) as Promise<ClockView>,
    // Under the state's lock, as every append is.
    clearRequests: () => embedded.use(() => embedded.requestLog.clear()),
    fixtures: () => embedded.use(async (sandbox) => sandbox.fixtures()),
    saveState: () => embedded.use(async (sandbox) => sandbox.snapshot()),
    loadState: (snapshot) => embedded.use((sandbox) => sandbox.control.loadState(snapshot)),
    // Each command's requests are kept in the log beside the state (mocks/state/request-log.ts), filtered here as a
    // served sandbox filters its journal.
    requests: async (query) => {
      const [{ selectRequests, compileFilter }, { ApiError }] = await Promise.all([
        import('../../../mocks/facade/requests.js'),
        import('../../../mocks/facade/exchange.js'),
      ]);
      const entries = await embedded.requestLog.read();
      try {
        return selectRequests((filter) => entries.filter(compileFilter(filter)), query);
      } catch (error) {
        // A filter the sandbox would answer with 422 (`since` that is no time) is the user's mistake here.
        throw error instanceof ApiError ? new UsageError(error.message) : error;
      }
    },
  };
}

const movePaths: Record<InvoiceMove, (code: string) => string> = {
  pay: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/pay`,
  expire: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/expire`,
  fail: (c) => `/__sandbox/invoices/${encodeURIComponent(c)}/fail`,
  complete: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/complete`,
  failOrder: (c) => `/__sandbox/orders/${encodeURIComponent(c)}/fail`,
};

/**
 * The control API's own answer limit, above the client's 8 MiB: `mock state save` fetches a whole state, which may be
 * as large as the sandbox loads (64 MiB, MAX_STATE_BYTES in mocks/rules/json-body.ts), inside its envelope.
 */
export const CONTROL_MAX_RESPONSE_BYTES = 80 * 1024 * 1024;

/** How the control calls reach a served sandbox. */
export interface RemoteTransport {
  fetch: typeof globalThis.fetch;
  /** Milliseconds one call may take, up to the last byte of the answer: the client's per-attempt timeout. */
  timeout: number;
  /** Ctrl-C: ends the wait at once. */
  signal?: AbortSignal | undefined;
  /** The sandbox's control secret (TOPUP_SANDBOX_CONTROL_SECRET), sent with every control call when set. */
  controlSecret?: string | undefined;
}

/**
 * Control calls through the client's raw `request()`: its timeout, abort and connection errors. Each call is sent
 * once: the control POSTs change state and carry no idempotency key, and GET /fixtures is cheap to ask again by hand.
 * A call that changes anything or carries a token goes only to a server that has first shown, to a token-less GET,
 * that it is a topup sandbox: a real server never sees a control POST, nor the token with one.
 */
export async function remoteControl(baseUrl: string, transport: RemoteTransport): Promise<SandboxControlClient> {
  // The one rule of every command: no credentials, query or fragment in a base URL (refused, never cut off). Plain
  // http:// to another host (a container) is checked per call, by whether a token goes with it.
  const base = parseBaseUrl(baseUrl, { allowInsecureHttp: true });
  const origin = new URL(base).origin;
  const send = async (method: string, path: string, body?: unknown, token?: string) => {
    const client = createClient({
      baseUrl: base,
      token,
      fetch: transport.fetch,
      timeout: transport.timeout,
      maxResponseBytes: CONTROL_MAX_RESPONSE_BYTES,
      maxRetries: 0,
      pacing: false,
      allowInsecureHttp: token === undefined,
      userAgent: 'topup-cli',
    });
    try {
      return await client.request({
        method,
        path,
        // Tells the sandbox this is a tool on this machine, not a cross-site form post (mocks/rules/control-guard.ts).
        headers: {
          [CONTROL_HEADER]: '1',
          ...(transport.controlSecret === undefined ? {} : { [CONTROL_SECRET_HEADER]: transport.controlSecret }),
        },
        ...(body === undefined ? {} : { body }),
        signal: transport.signal,
        throwOnError: false,
      });
    } catch (error) {
      if (isTopupError(error, 'timeout'))
        throw new TimeoutError(`The sandbox at ${origin} did not answer within ${transport.timeout / 1000} s.`);
      // Nothing answered at all: perhaps no sandbox runs there.
      if (isTopupError(error, 'connection') && error.message.startsWith('Could not reach'))
        throw new ConnectionError(`${error.message.replace(/\.$/, '')}. Is \`topup mock serve\` running there?`);
      throw error;
    }
  };
  // A real server must never be driven as if it were a sandbox, whatever it answers at these paths.
  const requireSandbox = (answer: { headers: { get(name: string): string | null } }, probe: boolean) => {
    if (answer.headers.get(CONTROL_HEADER) !== '1')
      throw new UsageError(
        `${origin} is not a topup sandbox (no /__sandbox control API answers there); \`topup mock\` commands act only on a sandbox${probe ? ', so no token and no change were sent to it' : ''}: pass --mock for the embedded one, or --base-url of \`topup mock serve\`.`,
      );
  };
  let known: Promise<void> | undefined;
  // Once per command: the cheapest control GET, sent without a token.
  const knownSandbox = () => (known ??= send('GET', `${CONTROL_PREFIX}/clock`).then((answer) => requireSandbox(answer, true)));
  const call = async (method: string, path: string, body?: unknown, token?: string): Promise<unknown> => {
    // A GET without a token is itself the check: it changes nothing and its answer says what answered.
    if (method !== 'GET' || token !== undefined) await knownSandbox();
    const answer = await send(method, path, body, token);
    requireSandbox(answer, false);
    const envelope = answer.body as Envelope;
    // The error class of its status, with its code and fields, as the embedded sandbox's control rejects (409 and 422 exit 5).
    if (!answer.ok || envelope?.success !== true)
      throw errorForStatus(answer.status, envelope?.message ?? `The sandbox answered ${answer.status}.`, {
        code: envelope?.error?.code,
        fields: envelope?.error?.fields,
      });
    return envelope.data;
  };
  return {
    move: async (verb, code) => {
      await call('POST', movePaths[verb](code));
    },
    deposit: async (o) =>
      (await call(
        'POST',
        '/__sandbox/deposits',
        { amount: o.amount, paid: o.paid, ...(o.account ? { account: o.account } : {}), ...(o.mode ? { mode: o.mode } : {}) },
        o.token,
      )) as NewDeposit,
    reset: async (keep = []) => {
      await call('POST', `/__sandbox/reset${keep.length === 0 ? '' : `?keep=${keep.join(',')}`}`);
    },
    faults: async () => (await call('GET', '/__sandbox/faults')) as FaultsView,
    addFaults: async (rules) => (await call('POST', '/__sandbox/faults', { rules })) as FaultsView,
    clearFaults: async () => (await call('DELETE', '/__sandbox/faults')) as FaultsView,
    clock: async () => (await call('GET', '/__sandbox/clock')) as ClockView,
    advanceClock: async (seconds) => (await call('POST', '/__sandbox/clock', { advance_seconds: seconds })) as ClockView,
    clearRequests: async () => {
      await call('DELETE', '/__sandbox/requests');
    },
    fixtures: async () => (await call('GET', '/__sandbox/fixtures')) as Fixtures,
    requests: async (query) => ((await call('GET', `/__sandbox/requests?${query.toString()}`)) as { requests: JournalEntry[] }).requests,
    saveState: () => call('GET', '/__sandbox/state'),
    loadState: async (snapshot) => {
      await call('PUT', '/__sandbox/state', snapshot);
    },
  };
}

/** What a sandbox without faults answers at GET /__sandbox/faults. */
function noFaults(): FaultsView {
  return { seed: 0, rules: [], stats: { requests: 0, latency: 0, error: 0, rate_limit: 0, drop_before: 0, drop_after: 0, rules: [] } };
}

/**
 * A control call answered by the embedded sandbox's own control API, in this process: the same view a served one
 * answers (its clock, for one), rejected with the error class of its status as remote calls are.
 */
async function inProcessCall(sandbox: Sandbox, method: string, path: string, body?: unknown): Promise<unknown> {
  const { inProcessRequest, isDropped } = await import('../../../mocks/facade/exchange.js');
  const headers: Record<string, string> = { [CONTROL_HEADER]: '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const reply = await sandbox.handle(
    inProcessRequest(method, `${sandbox.baseUrl}${path}`, headers, body === undefined ? null : JSON.stringify(body)),
  );
  if (isDropped(reply)) throw new ConnectionError('The embedded sandbox dropped the answer.');
  const envelope = JSON.parse(reply.body) as Envelope;
  if (reply.status >= 400 || envelope?.success !== true)
    throw errorForStatus(reply.status, envelope?.message ?? `The sandbox answered ${reply.status}.`, {
      code: envelope?.error?.code,
      fields: envelope?.error?.fields,
    });
  return envelope.data;
}

type Envelope = { success?: boolean; message?: string; data?: unknown; error?: { code?: string; fields?: string[] } } | undefined;
