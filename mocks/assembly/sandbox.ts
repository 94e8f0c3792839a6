import { abortableSleep } from '../../src/abort.js';
import { isTopupError } from '../../src/errors.js';
import type { TokenMode } from '../../src/contract/index.js';
import { ApiError, errorReply, jsonReply, type SandboxErrorCode, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';
import { createControl, type SandboxControl } from '../routes/control-moves.js';
import { buildFixtures, fixtureAccount, type FixtureAccount, type FixtureAccountName, type Fixtures } from '../store/fixtures.js';
import { apiRouter, handleApiRequest, notFoundMessage, type PipelineEnv } from './pipeline.js';
import { DEFAULT_JOURNAL_SIZE, RequestJournal, type RequestNotes } from '../inspect/request-journal.js';
import { nearestRoute } from '../inspect/near-miss.js';
import { INVOICE_PAGE_PREFIX } from '../inspect/state-views.js';
import { controlRefusal, hostRefusal } from '../rules/control-guard.js';
import { CONTROL_HEADER, CONTROL_PREFIX, controlRouter, isControlPath, JOURNAL_PATH } from '../routes/control.js';
import { invoiceDelays, mayBeDue, nextDueMove, settleDue } from '../rules/timed-moves.js';
import { InFlightLimiter, RateLimiter } from '../rules/rate-limit.js';
import { seed } from '../store/seed.js';
import { restoreSnapshot, SnapshotError, takeSnapshot, type SandboxSnapshot, type StateWriter } from '../state/snapshot.js';
import { Store } from '../store/store.js';
import { GroupCommit } from '../state/group-commit.js';
import { writerFlush } from '../state/flush.js';
import { WriteLock } from '../core/write-lock.js';
import { createFetch } from '../core/fetch.js';
import { publicOrigin } from '../core/public-origin.js';
import { FaultInjector, type FaultConfig, type FaultStats } from '../core/faults.js';

export interface SandboxOptions {
  /** The clock, in epoch milliseconds. Inject a fake one to test expiry and rate limits without waiting. */
  now?: () => number;
  /** Rate limits and the in-flight cap; off for load tests. Default on. */
  rateLimit?: boolean;
  /**
   * Answer only what the interface document guarantees (src/contract/guaranteed.ts): every field we designed beyond it
   * (pagination, timestamps, `is_final`, `poll_after_seconds`, …) is left out. Proves a client tolerates a minimal server.
   */
  lean?: boolean;
  /** Origin the fetch adapter answers for. Default `http://sandbox.localhost`. */
  baseUrl?: string;
  /**
   * The origin written into absolute links (`invoice_url`, `payment_url`, article links), e.g. the address a bot in
   * another container reaches the sandbox at. Default: the origin of each request's URL, which every adapter sets to
   * the server's own (the node:http adapter's listen address or its `publicUrl`), never from the Host header.
   */
  publicUrl?: string;
  /** Start from this state instead of the seed. */
  snapshot?: unknown;
  /**
   * Where the state goes after each committed change; the request is answered only once the write resolves.
   * Handed only what changed since its last write, unless it asks for the whole state: what a state file needs to
   * stay cheap at 100k orders (`openPersistentSandbox()` in mocks/state/ makes one). `snapshotWriter(fn)` makes a
   * writer that is handed the whole state every time.
   */
  stateWriter?: StateWriter;
  /** Told about unexpected errors (they are answered with a 500 envelope). */
  onError?: (error: unknown) => void;
  /** Faults to inject from the start; change them later with `sandbox.faults.configure()`. */
  faults?: FaultConfig;
  /** Requests kept in `sandbox.requests` (the request journal). Default 1,000; 0 keeps none, for load tests. */
  journalSize?: number;
  /** How injected latency waits. Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Every new invoice (orders and deposits) pays itself `after` milliseconds of sandbox time, unless a control call,
   * the bot or its expiry decides first. Settled at the next request, stamped with the moment it was due.
   */
  autoPay?: { after: number };
  /** Every new invoice expires `after` milliseconds of sandbox time after its creation, instead of after the usual TTL. */
  autoExpire?: { after: number };
}

export interface Sandbox {
  readonly baseUrl: string;
  /** The framework-free core: one request in, one response (or a dropped connection) out. */
  handle(this: void, request: SandboxRequest): Promise<SandboxResponse>;
  /**
   * A WHATWG fetch served by the core, with no network and no msw. With `rateLimit: false` it tells topup's client so,
   * and the client does not pace itself (unless given `pacing: true`).
   */
  readonly fetch: typeof globalThis.fetch;
  readonly control: SandboxControl;
  fixtures(this: void): Fixtures;
  /**
   * One fixture account by name, with its balance now: `sandbox.account('rich').token`. `dual` holds both keys: its
   * live world by default, `sandbox.account('dual', 'sandbox')` for its test world.
   */
  account(this: void, name: FixtureAccountName, mode?: TokenMode): FixtureAccount;
  snapshot(this: void): SandboxSnapshot;
  now(this: void): number;
  /** The state, for tests and inspection. */
  readonly store: Store;
  /** Fault injection: `configure(config)`, `config`, `stats`. */
  readonly faults: FaultInjector;
  /** Every request the sandbox answered, newest last: `list(filter)`, `find`, `count`, `clear`, `subscribe`. */
  readonly requests: RequestJournal;
}

export type { FaultConfig, FaultStats };

export const DEFAULT_SANDBOX_URL = 'http://sandbox.localhost';
export const OPENAPI_PATH = '/openapi.json';
/** The dashboard's page (mocks/web/dashboard.ts, loaded only when asked for). */
const DASHBOARD_PATH = `${CONTROL_PREFIX}/`;

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.now ?? Date.now;
  let offsetMs = 0;
  const now = () => clock() + offsetMs;
  const store = new Store();
  store.delays = invoiceDelays(options);
  if (options.snapshot === undefined) await seed(store.db);
  else offsetMs = await restoreSnapshot(store, options.snapshot, clock());
  // The closures below keep `options`; the snapshot must not stay alive with them (at 100k orders it is 60 MB).
  options = { ...options, snapshot: undefined };

  const { stateWriter } = options;
  const flush = stateWriter !== undefined ? writerFlush(store, stateWriter, () => offsetMs) : undefined;
  const group = flush ? new GroupCommit(flush) : null;
  const commit = () => (group ? group.request() : Promise.resolve());
  const writeLock = new WriteLock();
  const rateLimiter = new RateLimiter();
  const faults = new FaultInjector();
  if (options.faults !== undefined) faults.configure(options.faults);
  const sleep = options.sleep ?? abortableSleep;
  const env: PipelineEnv = {
    publicOrigin: options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl),
    store,
    writeLock,
    rateLimit: options.rateLimit ?? true,
    lean: options.lean ?? false,
    rateLimiter,
    inFlight: new InFlightLimiter(),
    faults,
    sleep,
    commit,
  };
  const { control, moves } = createControl({
    store,
    writeLock,
    now,
    commit,
    advance: (ms) => {
      offsetMs += ms;
    },
    reseed: async () => {
      store.clear();
      rateLimiter.clear();
      offsetMs = 0;
      await seed(store.db);
    },
    load: async (snapshot) => {
      // restoreSnapshot checks the whole state before it changes anything: a bad one leaves the state as it was.
      try {
        offsetMs = await restoreSnapshot(store, snapshot, clock());
      } catch (error) {
        if (error instanceof SnapshotError)
          throw new ApiError(422, error.message, 'VALIDATION_FAILED', error.field === undefined ? undefined : [error.field]);
        throw error;
      }
      rateLimiter.clear();
    },
  });
  const fixtures = () => buildFixtures(store);
  const snapshot = () => takeSnapshot(store, offsetMs);

  const journal = new RequestJournal({ size: options.journalSize ?? DEFAULT_JOURNAL_SIZE });

  /** What came due by this request's time happens before it is answered, and is committed like any change. */
  async function settle(at: number): Promise<void> {
    if (!mayBeDue(store, at) || nextDueMove(store, at) === undefined) return;
    const moves = await writeLock.run(() => settleDue(store, at));
    if (moves > 0) await commit();
  }

  async function route(request: SandboxRequest, url: URL, at: number, notes: RequestNotes): Promise<SandboxResponse> {
    await settle(at);
    if (url.pathname.startsWith('/api/')) return handleApiRequest(env, request, url, at, notes);
    // The invoice_url of every order and deposit: a page the bot's user opens.
    if (url.pathname.startsWith(INVOICE_PAGE_PREFIX) && (request.method === 'GET' || request.method === 'HEAD')) {
      notes.route = 'invoicePage';
      // A DNS-rebinding page must not read it either (rules/control-guard.ts).
      const refused = request.controlGuard === undefined ? undefined : hostRefusal(request, request.controlGuard);
      if (refused !== undefined) return errorReply(refused);
      return (await import('../web/invoice-page.js')).invoicePage(store, url.pathname.slice(INVOICE_PAGE_PREFIX.length), at);
    }
    if (url.pathname === OPENAPI_PATH) {
      if (request.method === 'GET' || request.method === 'HEAD') return jsonReply(200, await openApiDocument());
      return errorReply(new ApiError(405, `${request.method} is not allowed on ${OPENAPI_PATH}; use GET.`, 'METHOD_NOT_ALLOWED'), {
        allow: 'GET',
      });
    }
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      // Over a network, only this machine's own tools may drive it (rules/control-guard.ts); refusals are journaled.
      const dashboardPage = url.pathname === DASHBOARD_PATH && (request.method === 'GET' || request.method === 'HEAD');
      const refused = request.controlGuard === undefined ? undefined : controlRefusal(request, request.controlGuard, dashboardPage);
      if (refused !== undefined) {
        notes.route = 'control';
        return errorReply(refused);
      }
      const lookup = controlRouter.lookup(request.method, url.pathname);
      if (lookup !== null && 'found' in lookup) {
        notes.route = 'control';
        return lookup.found.handler({ control, moves, fixtures, now, faults, journal, store, snapshot }, lookup.found.params, request);
      }
      if (lookup !== null)
        return errorReply(new ApiError(405, `${request.method} is not allowed on ${url.pathname}.`, 'METHOD_NOT_ALLOWED'), {
          allow: lookup.allow.join(', '),
        });
    }
    notes.nearMiss = nearestRoute(request.method, url.pathname, [...apiRouter.routes, ...controlRouter.routes]);
    return errorReply(new ApiError(404, notFoundMessage(url.pathname, notes.nearMiss), 'ROUTE_NOT_FOUND'));
  }

  async function handle(request: SandboxRequest): Promise<SandboxResponse> {
    const url = new URL(request.url);
    const at = now();
    const startedAt = performance.now();
    const notes: RequestNotes = {};
    const reply = await answer(request, url, at, notes);
    // The CLI's `topup mock …` commands act only on a server that says it is a sandbox (see CONTROL_HEADER).
    if (!('drop' in reply) && isControlPath(request.url)) reply.headers[CONTROL_HEADER] = '1';
    // Reading the control API (the dashboard, `topup mock logs`) and clearing the journal are not what a bot did.
    // A control read that went wrong (a mistyped path) is shown, though.
    const ownRead =
      url.pathname.startsWith(JOURNAL_PATH) ||
      (isControlPath(url.pathname) && (request.method === 'GET' || request.method === 'HEAD') && !('drop' in reply) && reply.status < 400);
    if (journal.active && !ownRead) {
      // Built only when read: a busy sandbox keeps references, not copies (BENCHMARKS.md, journal cost).
      const dropped = 'drop' in reply;
      journal.keep({
        at,
        durationMs: performance.now() - startedAt,
        method: request.method,
        path: url.pathname,
        search: url.search,
        headers: request.headers,
        requestBody: request.body,
        status: dropped ? null : reply.status,
        responseBody: dropped ? null : reply.body,
        notes,
      });
    }
    return reply;
  }

  async function answer(request: SandboxRequest, url: URL, at: number, notes: RequestNotes): Promise<SandboxResponse> {
    try {
      return await route(request, url, at, notes);
    } catch (error) {
      if (error instanceof ApiError) return errorReply(error);
      // A control move refused: sandbox.control rejects with the client's error classes (control.ts).
      if (isTopupError(error) && error.status !== undefined)
        return errorReply(new ApiError(error.status, error.message, error.code as SandboxErrorCode | undefined, error.fields));
      options.onError?.(error);
      return errorReply(new ApiError(500, 'The sandbox failed unexpectedly.', 'INTERNAL_ERROR'));
    }
  }

  const baseUrl = (options.baseUrl ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, '');
  return {
    baseUrl,
    handle,
    fetch: createFetch(handle, { rateLimits: env.rateLimit }),
    control,
    fixtures,
    account: (name, mode) => fixtureAccount(fixtures(), name, mode),
    snapshot,
    now,
    store,
    faults,
    requests: journal,
  };
}

let openApiCache: Promise<unknown> | undefined;
/** Built on first request only: most sandboxes never serve it. */
function openApiDocument(): Promise<unknown> {
  openApiCache ??= import('../../src/contract/openapi.js').then((m) => m.buildOpenApiDocument());
  return openApiCache;
}
