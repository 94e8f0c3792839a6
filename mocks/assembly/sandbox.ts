import { abortableSleep } from '../../src/abort.js';
import type { TokenMode } from '../../src/contract/index.js';
import type { SandboxRequest, SandboxResponse } from '../core/exchange.js';
import { createControl, type ResetOptions, type SandboxControl } from '../routes/control-moves.js';
import type { ResetPart } from '../../src/contract/sandbox-control.js';
import { buildFixtures, fixtureAccount, type FixtureAccount, type FixtureAccountName, type Fixtures } from '../store/fixtures.js';
import { loadContractParts, type PipelineEnv } from './pipeline.js';
import { DEFAULT_JOURNAL_SIZE, RequestJournal, type RequestNotes } from '../inspect/request-journal.js';
import { CONTROL_HEADER, isControlPath } from '../routes/control.js';
import { invoiceDelays } from '../rules/timed-moves.js';
import { invoiceCapacity } from '../rules/capacity.js';
import { InFlightLimiter, RateLimiter } from '../rules/rate-limit.js';
import { seed } from '../store/seed.js';
import { restoreSnapshot, SnapshotError, takeSnapshot, type SandboxSnapshot, type StateWriter } from '../state/snapshot.js';
import { Store } from '../store/store.js';
import { GroupCommit } from '../state/group-commit.js';
import { writerFlush } from '../state/flush.js';
import { ApiError } from '../core/exchange.js';
import { WriteLock } from '../core/write-lock.js';
import { monotonicMs } from '../core/builtins.js';
import { createFetch } from '../core/fetch.js';
import { publicOrigin } from '../core/public-origin.js';
import { FaultInjector, type FaultConfig, type FaultStats } from '../core/faults.js';
import { answer, type DispatchParts } from './dispatch.js';
import { requestUrl } from './request-url.js';
import { recordRequest } from './record.js';

export interface SandboxOptions {
  /**
   * The clock, in epoch milliseconds. Inject a fake one to test expiry and rate limits without waiting. Read in whole
   * milliseconds (fractions are dropped), so one built on `performance.now()` works too.
   */
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
  /**
   * The state the sandbox starts from and `reset()` goes back to: a snapshot (`sandbox.snapshot()`, a `topup mock
   * state save` file). Default: the built-in seed. Checked whole at creation; a bad one rejects with `SnapshotError`.
   */
  seed?: unknown;
  /** Start from this state instead of the seed; `reset()` still goes back to the seed. (A state file's content.) */
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
  /** Faults to inject from the start (and again after each `reset()`); change them with `sandbox.faults.configure()`. */
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
  /**
   * The most invoices (orders and deposits together) the sandbox keeps: a request for one more is answered 507 with
   * `error.code` SANDBOX_FULL, and changes nothing. 1 to 200,000, the default, which keeps the whole state under what
   * can be saved and loaded as one JSON text. Set it low to test how a bot takes a server that refuses orders.
   */
  maxInvoices?: number;
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
  /**
   * Back to how the sandbox started, for a test suite's `beforeEach`: the seed (or the `seed` option's state) with
   * its clock, the `faults` it was created with, an empty request journal. `keep` names what stays as it is now.
   */
  reset(this: void, options?: ResetOptions): Promise<void>;
}

export type { FaultConfig, FaultStats, ResetOptions, ResetPart };

export const DEFAULT_SANDBOX_URL = 'http://sandbox.localhost';
export { OPENAPI_PATH } from './dispatch.js';

/**
 * A sandbox, assembled in steps: its time, its store (seeded or restored), how changes are committed, the API
 * pipeline's environment, the control moves, the request journal; then one handler that answers (dispatch.ts) and
 * records (record.ts) each request. The contract's schemas that requests use (queries, an order's body) are loaded
 * before it answers anything, so that its first answers come in the order and at the pace of any later ones.
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const contract = loadContractParts();
  const sandbox = await assembleSandbox(options);
  await contract;
  return sandbox;
}

/**
 * createSandbox() without loading the contract's schemas first: each loads with the first request that needs it (a
 * query, an order, the lean cut). For the offline CLI's embedded sandbox (mocks/assembly/persistent-sandbox.ts), which
 * answers one request a process, most of them reads that need none: building them was about a third of such a
 * command's start-up. A request that waits for them is admitted and counted on arrival (mocks/assembly/pipeline.ts).
 */
export function createSandboxOnDemand(options: SandboxOptions = {}): Promise<Sandbox> {
  return assembleSandbox(options);
}

async function assembleSandbox(options: SandboxOptions): Promise<Sandbox> {
  const time = sandboxTime(options.now === undefined ? Date.now : wholeMilliseconds(options.now));
  const store = await openStore(options, time);
  // What reset goes back to. The closures below keep `options`; a state file's snapshot must not stay alive with them
  // (at 100k orders it is 60 MB), while the seed state is kept on purpose.
  const start: StartPoint = { seed: options.seed, faults: options.faults };
  options = { ...options, snapshot: undefined, seed: undefined };

  const commit = committer(store, options.stateWriter, time);
  const writeLock = new WriteLock();
  const rateLimiter = new RateLimiter();
  const faults = new FaultInjector();
  if (start.faults !== undefined) faults.configure(start.faults);
  const env = pipelineEnv(options, { store, writeLock, rateLimiter, faults, commit });
  const journal = new RequestJournal({ size: options.journalSize ?? DEFAULT_JOURNAL_SIZE });
  const { control, moves } = createControl({
    store,
    writeLock,
    now: time.now,
    commit,
    ...stateMoves(store, rateLimiter, time),
    reset: resetTo(start, { store, rateLimiter, time, faults, journal }),
  });
  const fixtures = () => buildFixtures(store);
  const snapshot = () => takeSnapshot(store, time.offsetMs);
  const parts: DispatchParts = {
    env,
    control,
    moves,
    fixtures,
    now: time.now,
    clockOffset: () => time.offsetMs,
    faults,
    journal,
    store,
    snapshot,
    writeLock,
    commit,
    onError: options.onError,
  };
  const immediate = requestHandler(parts, time.now);
  const handle = async (request: SandboxRequest) => immediate(request);

  const baseUrl = (options.baseUrl ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, '');
  const sandbox: Sandbox = {
    baseUrl,
    handle,
    fetch: createFetch(handle, { rateLimits: env.rateLimit }),
    control,
    fixtures,
    account: (name, mode) => fixtureAccount(fixtures(), name, mode),
    snapshot,
    now: time.now,
    store,
    faults,
    requests: journal,
    reset: control.reset,
  };
  rateLimitClearers.set(sandbox, () => rateLimiter.clear());
  immediateHandlers.set(sandbox, immediate);
  return sandbox;
}

const rateLimitClearers = new WeakMap<Sandbox, () => void>();

/**
 * What `sandbox.handle` does, answering at once (no promise) when nothing on the way waits; it may also throw. Given
 * `recording`, it leaves the request's keeping in the journal there (`recording.keep`), for the caller to run once it
 * has written the answer: see requestHandler.
 */
export type ImmediateHandler = (request: SandboxRequest, recording?: DeferredRecording) => SandboxResponse | Promise<SandboxResponse>;

/** Where an ImmediateHandler leaves what keeps its request in the journal, when its caller runs that itself. */
export interface DeferredRecording {
  keep?: (() => void) | undefined;
}
const immediateHandlers = new WeakMap<Sandbox, ImmediateHandler>();

/**
 * For a transport that answers many requests (the node:http adapter): `sandbox.handle` without the promise it wraps
 * every answer in, which the catalog and the balance do not need. Any other Sandbox object: its own `handle`.
 */
export function immediateHandler(sandbox: Sandbox): ImmediateHandler {
  return immediateHandlers.get(sandbox) ?? sandbox.handle;
}

/**
 * Starts every rate-limit window of the sandbox over, as a new sandbox on the same state would have them: for a
 * sandbox kept between the offline CLI's commands (persistent-sandbox.ts), whose requests never shared windows.
 */
export function clearRateLimits(sandbox: Sandbox): void {
  rateLimitClearers.get(sandbox)?.();
}

/** Sandbox time: the injected clock plus how far `control.advanceClock` (or a restored state) moved it. */
interface SandboxTime {
  readonly clock: () => number;
  offsetMs: number;
  readonly now: () => number;
}

/** An injected clock, read in whole milliseconds: every time a record holds is one (src/contract: an integer). */
function wholeMilliseconds(clock: () => number): () => number {
  return () => Math.floor(clock());
}

function sandboxTime(clock: () => number): SandboxTime {
  const time: SandboxTime = { clock, offsetMs: 0, now: () => clock() + time.offsetMs };
  return time;
}

/** What a reset goes back to: the state and the faults the sandbox was created with (auto-pay never changes). */
interface StartPoint {
  seed: unknown;
  faults: FaultConfig | undefined;
}

/** A reset, part by part: the state (records, counters, clock, rate-limit windows), the faults, the journal. */
function resetTo(
  start: StartPoint,
  parts: { store: Store; rateLimiter: RateLimiter; time: SandboxTime; faults: FaultInjector; journal: RequestJournal },
) {
  const { store, rateLimiter, time, faults, journal } = parts;
  return async (keep: readonly ResetPart[]) => {
    if (!keep.includes('state')) {
      rateLimiter.clear();
      if (start.seed === undefined) {
        store.clear();
        time.offsetMs = 0;
        await seed(store);
      } else time.offsetMs = await restoreSnapshot(store, start.seed, time.clock());
    }
    // configure() also starts the rules' counts and the decisions' sequence over, as at creation.
    if (!keep.includes('faults')) faults.configure(start.faults ?? { rules: [] });
    if (!keep.includes('requests')) journal.clear();
  };
}

/** What the control moves do to the sandbox as a whole: move its clock, load a state into it. */
function stateMoves(store: Store, rateLimiter: RateLimiter, time: SandboxTime) {
  return {
    advance: (ms: number) => {
      time.offsetMs += ms;
    },
    load: async (snapshot: unknown) => {
      // restoreSnapshot checks the whole state before it changes anything: a bad one leaves the state as it was.
      try {
        time.offsetMs = await restoreSnapshot(store, snapshot, time.clock());
      } catch (error) {
        if (error instanceof SnapshotError)
          throw new ApiError(422, error.message, 'VALIDATION_FAILED', error.field === undefined ? undefined : [error.field]);
        throw error;
      }
      rateLimiter.clear();
    },
  };
}

/**
 * The store the sandbox starts from: the given snapshot, else the `seed` state, else the built-in seed (a snapshot
 * also sets the clock's offset). A `seed` state is checked even when a snapshot is used, so a reset never meets a bad one.
 */
async function openStore(options: SandboxOptions, time: SandboxTime): Promise<Store> {
  const store = new Store();
  store.delays = invoiceDelays(options);
  store.maxInvoices = invoiceCapacity(options.maxInvoices);
  if (options.seed !== undefined) {
    try {
      time.offsetMs = await restoreSnapshot(options.snapshot === undefined ? store : new Store(), options.seed, time.clock());
    } catch (error) {
      // Said as the seed's fault, not a state file's.
      if (error instanceof SnapshotError) throw new SnapshotError(error.message.replace(/^The state /, 'The seed state '), error.field);
      throw error;
    }
  }
  if (options.snapshot !== undefined) time.offsetMs = await restoreSnapshot(store, options.snapshot, time.clock());
  else if (options.seed === undefined) await seed(store);
  return store;
}

/** What makes a change durable: nothing without a state writer, else one grouped write for the commits waiting. */
function committer(store: Store, stateWriter: StateWriter | undefined, time: SandboxTime): () => Promise<void> {
  const flush = stateWriter !== undefined ? writerFlush(store, stateWriter, () => time.offsetMs) : undefined;
  const group = flush ? new GroupCommit(flush) : null;
  return () => (group ? group.request() : Promise.resolve());
}

function pipelineEnv(
  options: SandboxOptions,
  parts: Pick<PipelineEnv, 'store' | 'writeLock' | 'rateLimiter' | 'faults' | 'commit'>,
): PipelineEnv {
  return {
    ...parts,
    publicOrigin: options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl),
    rateLimit: options.rateLimit ?? true,
    lean: options.lean ?? false,
    inFlight: new InFlightLimiter(),
    sleep: options.sleep ?? abortableSleep,
  };
}

/**
 * `sandbox.handle` without its promise when nothing on the way waits: answer the request, mark control answers, and
 * keep it in the request journal. With `recording`, the keeping is left there for the caller (the node:http adapter),
 * which writes the answer first: the client has it some microseconds sooner, and its next request is on its way while
 * the journal (and its live stream) take theirs. The caller runs it before anything else, so that no later request
 * (a read of the journal) comes before it.
 */
function requestHandler(parts: DispatchParts, now: () => number): ImmediateHandler {
  return (request, recording) => {
    const url = requestUrl(request.url);
    const at = now();
    const startedAt = monotonicMs();
    const notes: RequestNotes = {};
    const answered = answer(parts, request, url, at, notes);
    const finish = (reply: SandboxResponse): SandboxResponse => {
      // The CLI's `topup mock …` commands act only on a server that says it is a sandbox (see CONTROL_HEADER).
      if (!('drop' in reply) && isControlPath(url.pathname)) reply.headers[CONTROL_HEADER] = '1';
      const durationMs = monotonicMs() - startedAt;
      if (recording === undefined) recordRequest(parts.journal, request, url, at, durationMs, reply, notes);
      else recording.keep = () => recordRequest(parts.journal, request, url, at, durationMs, reply, notes);
      return reply;
    };
    return answered instanceof Promise ? answered.then(finish) : finish(answered);
  };
}
