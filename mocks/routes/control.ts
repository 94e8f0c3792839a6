import { ApiError, successReply, type SandboxReply, type SandboxRequest } from '../core/exchange.js';
import { checkClockAdvance, type ControlMoves, type SandboxControl } from './control-moves.js';
import { depositRequest } from './deposit-body.js';
import type { Fixtures } from '../store/fixtures.js';
import { FaultConfigError, parseFaultSpec, validateFaultConfig, type FaultConfig, type FaultInjector } from '../core/faults.js';
import { bearerToken } from '../rules/auth.js';
import { Router } from '../core/router.js';
import {
  compileFilter,
  RequestFilterError,
  type JournalEntry,
  type RequestFilter,
  type RequestJournal,
} from '../inspect/request-journal.js';
import type { Store } from '../store/store.js';
import type { SandboxSnapshot } from '../state/snapshot.js';
import { accountViews, invoiceView, invoiceViews, type StateFilter } from '../inspect/state-views.js';
import {
  CONTROL_HEADER,
  CONTROL_PREFIX,
  parseResetKeep,
  RESET_PARTS,
  unknownResetPart,
  type ResetPart,
} from '../../src/contract/sandbox-control.js';
import { isoTime, parseFilterTime } from '../core/iso-time.js';
import { accountsNamed } from '../rules/worlds.js';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../../src/contract/values.js';
import { nextMoveAtAll } from '../rules/timed-moves.js';

/** Control operations over HTTP, under a prefix outside /api/v1 (CONTROL_PREFIX). They need no token: the sandbox is local. */
export { CONTROL_HEADER, CONTROL_PREFIX };

/** The request journal over HTTP: list, one entry, clear; `/stream` is served by the node:http adapter (SSE). */
export const JOURNAL_PATH = `${CONTROL_PREFIX}/requests`;
/** Back to how the sandbox started; `?keep=` names what stays. */
export const RESET_PATH = `${CONTROL_PREFIX}/reset`;

export function isControlPath(url: string): boolean {
  const path = url.startsWith('/') ? url : new URL(url).pathname;
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

export interface ControlDeps {
  control: SandboxControl;
  /** The same moves, answering with the invoice as they left it. */
  moves: ControlMoves;
  snapshot(this: void): SandboxSnapshot;
  journal: RequestJournal;
  store: Store;
  fixtures(this: void): Fixtures;
  now(this: void): number;
  /** How far the clock has been moved from the one the sandbox was given (the real one when served). */
  clockOffset(this: void): number;
  faults: FaultInjector;
}

type ControlHandler = (deps: ControlDeps, params: Record<string, string>, request: SandboxRequest) => Promise<SandboxReply>;

const ok = (message: string, data: unknown = {}) => successReply(200, message, data);

function jsonBody(request: SandboxRequest): Record<string, unknown> {
  if (request.body === null || request.body.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body);
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.', 'INVALID_JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ApiError(400, 'The request body must be a JSON object.', 'INVALID_BODY');
  return parsed as Record<string, unknown>;
}

// Each move answers with what it changed, as GET /__sandbox/invoices/{code} shows it; invoice_code stays for older callers.
const invoiceMove =
  (verb: keyof ControlMoves, done: string): ControlHandler =>
  async ({ moves }, { invoice }) =>
    ok(`Invoice ${invoice} ${done}.`, { invoice_code: invoice, invoice: await moves[verb](invoice!) });

/**
 * The sandbox clock (`now`), how far it runs ahead of the real one (`offset_ms`, a duration), and when it next moves
 * something by itself (`next_move_at`, on that clock, or null). Times in ISO 8601 like every control view.
 */
function clockView({ now, clockOffset, store }: Pick<ControlDeps, 'now' | 'clockOffset' | 'store'>) {
  const at = now();
  // A move due by `at` but not yet made (the next request makes it) is due now, never in the past.
  const next = nextMoveAtAll(store, at);
  // The offset the clock keeps, not `at - Date.now()`: two readings a millisecond apart said -1 on a clock never moved.
  return { now: isoTime(at), offset_ms: clockOffset(), next_move_at: next === undefined ? null : isoTime(next) };
}

export const controlRouter = new Router<ControlHandler>()
  .add('GET', `${CONTROL_PREFIX}/fixtures`, async ({ fixtures }) => ok('Sandbox fixtures.', fixtures()))
  .add('POST', `${CONTROL_PREFIX}/invoices/{invoice}/pay`, invoiceMove('pay', 'paid'))
  .add('POST', `${CONTROL_PREFIX}/invoices/{invoice}/expire`, invoiceMove('expire', 'expired'))
  .add('POST', `${CONTROL_PREFIX}/invoices/{invoice}/fail`, invoiceMove('fail', 'failed'))
  .add('POST', `${CONTROL_PREFIX}/orders/{invoice}/complete`, invoiceMove('complete', 'completed'))
  .add('POST', `${CONTROL_PREFIX}/orders/{invoice}/fail`, invoiceMove('failOrder', 'failed and refunded'))
  .add('POST', `${CONTROL_PREFIX}/deposits`, async ({ control }, _params, request) => {
    const deposit = await control.deposit(depositRequest(jsonBody(request), bearerToken(request.headers.authorization) ?? undefined));
    return successReply(201, `Deposit ${deposit.invoice_code} created.`, { invoice_code: deposit.invoice_code, deposit });
  })
  .add('POST', `${CONTROL_PREFIX}/clock`, async (deps, _params, request) => {
    const { control, now } = deps;
    // The body's key, not advanceClock's argument, is what a caller can correct; a key it does not know is refused, as a
    // deposit's are (a misspelt advance_seconds would otherwise be told it is missing, or worse, pass).
    const body = jsonBody(request);
    const unknown = Object.keys(body).filter((key) => key !== 'advance_seconds');
    if (unknown.length > 0)
      throw new ApiError(422, `A clock move takes advance_seconds; not ${unknown.join(', ')}.`, 'VALIDATION_FAILED', unknown);
    const seconds = body.advance_seconds;
    checkClockAdvance(seconds, 'advance_seconds', now());
    await control.advanceClock(seconds);
    return ok('Sandbox clock moved.', clockView(deps));
  })
  .add('GET', `${CONTROL_PREFIX}/faults`, async ({ faults }) => ok('Injected faults.', { ...faults.config, stats: faults.stats }))
  .add('PUT', `${CONTROL_PREFIX}/faults`, async ({ faults }, _params, request) => {
    const config = faultConfigOf(jsonBody(request));
    faults.configure(config);
    return ok('Faults configured.', { ...faults.config, stats: faults.stats });
  })
  // Adds rules after the ones there, which keep their counts: `topup mock faults add`.
  .add('POST', `${CONTROL_PREFIX}/faults`, async ({ faults }, _params, request) => {
    const body = jsonBody(request);
    if ('seed' in body)
      throw new ApiError(422, 'Adding rules keeps the seed; PUT the whole configuration to change it.', 'VALIDATION_FAILED', ['seed']);
    const { rules } = faultConfigOf(body);
    asFaultRefusal(() => faults.add(rules));
    return ok(`${rules.length === 1 ? 'Fault' : 'Faults'} added.`, { ...faults.config, stats: faults.stats });
  })
  .add('DELETE', `${CONTROL_PREFIX}/faults`, async ({ faults }) => {
    faults.configure({ rules: [] });
    return ok('Faults cleared.', { ...faults.config, stats: faults.stats });
  })
  // The whole state as a snapshot, and back: a bot's CI starts every run from the same named state.
  .add('GET', `${CONTROL_PREFIX}/state`, async ({ snapshot }) => ok('Sandbox state.', snapshot()))
  .add('PUT', `${CONTROL_PREFIX}/state`, async ({ control, snapshot }, _params, request) => {
    const body = jsonBody(request);
    // What GET answered, envelope and all, loads as it is: `curl …/state > s.json` then `curl -T s.json …/state`.
    await control.loadState(body.success === true && 'data' in body ? body.data : body);
    const { counters, clock_offset_ms } = snapshot();
    return ok('Sandbox state loaded.', { clock_offset_ms, counters });
  })
  .add('POST', RESET_PATH, async ({ control }, _params, request) => {
    const keep = resetKeep(request);
    await control.reset({ keep });
    return ok(
      keep.length === 0 ? 'Sandbox reset to how it started.' : `Sandbox reset to how it started, keeping its ${keep.join(' and ')}.`,
      {
        kept: keep,
      },
    );
  })
  .add('GET', `${CONTROL_PREFIX}/invoices/{invoice}`, async ({ store }, { invoice }) => {
    const view = invoiceView(store, invoice!);
    if (view === undefined) throw new ApiError(404, `Invoice ${invoice} was not found.`, 'NOT_FOUND');
    return ok(`Invoice ${invoice}.`, { invoice: view });
  })
  // The page is loaded on first visit: most sandboxes (tests, the CLI's embedded one) never serve it.
  .add('GET', `${CONTROL_PREFIX}/`, async () => (await import('../web/dashboard.js')).dashboardPage())
  // The state, for the dashboard and for bots in any language: newest first, filtered by account, status, since.
  .add('GET', `${CONTROL_PREFIX}/accounts`, async ({ store }) => ok('Sandbox accounts.', { accounts: accountViews(store) }))
  .add('GET', `${CONTROL_PREFIX}/orders`, async ({ store }, _params, request) =>
    ok('Orders, newest first.', { orders: invoiceViews(store, stateFilter(request, store), 'order') }),
  )
  .add('GET', `${CONTROL_PREFIX}/deposits`, async ({ store }, _params, request) =>
    ok('Deposits, newest first.', { deposits: invoiceViews(store, stateFilter(request, store), 'deposit') }),
  )
  .add('GET', `${CONTROL_PREFIX}/invoices`, async ({ store }, _params, request) =>
    ok('Invoices, newest first.', { invoices: invoiceViews(store, stateFilter(request, store)) }),
  )
  .add('GET', `${CONTROL_PREFIX}/clock`, async (deps) => ok('Sandbox clock.', clockView(deps)))
  .add('GET', JOURNAL_PATH, async ({ journal }, _params, request) => {
    const query = new URL(request.url).searchParams;
    const filter = filterFromQuery(query, ['limit']);
    // What the in-process verifier checks before it trusts a count: requests of this query the journal let go.
    return ok('Requests, oldest first.', {
      requests: newestOf(journal.list(filter), query),
      journal_size: journal.size,
      let_go: journal.letGo(filter),
    });
  })
  .add('DELETE', JOURNAL_PATH, async ({ journal }) => {
    journal.clear();
    return ok('Request journal cleared.');
  })
  .add('GET', `${JOURNAL_PATH}/{id}`, async ({ journal }, { id }) => {
    const entry = /^\d+$/.test(id!) ? journal.get(Number(id)) : undefined;
    if (entry === undefined) throw new ApiError(404, `No request ${id} is in the journal.`, 'NOT_FOUND');
    return ok(`Request ${id}.`, { request: entry });
  });

/** The entries a `/__sandbox/requests` query asks for (its filters, then the newest `limit`), oldest first. */
export function selectRequests(list: (filter: RequestFilter) => JournalEntry[], query: URLSearchParams): JournalEntry[] {
  return newestOf(list(filterFromQuery(query, ['limit'])), query);
}

/** The newest `limit` of the entries a query matched (all of them without it), oldest first. */
function newestOf(entries: JournalEntry[], query: URLSearchParams): JournalEntry[] {
  const limit = query.has('limit') ? wholeNumber(query.get('limit')!, 'limit') : entries.length;
  return entries.slice(-limit || entries.length);
}

/** The journal's filters as query parameters (a listing takes `limit` too). */
const JOURNAL_FILTER_PARAMS = ['method', 'path', 'status', 'account', 'idempotency_key', 'since', 'after_id'] as const;
/** The state listings' filters. */
const STATE_FILTER_PARAMS = ['account', 'status', 'since', 'limit'] as const;
/** What a state listing's `status` matches: an order's status, or an invoice's or deposit's payment status. */
const STATUSES = [...new Set<string>([...PAYMENT_STATUSES, ...ORDER_STATUSES])];

/**
 * The journal's filters as query parameters: method=GET,POST; path=/api/v1/me/orders/* ; status=4xx,429;
 * account=rich; idempotency_key=k; since=ISO 8601 or epoch ms; after_id=N. The same names the CLI's flags use.
 */
export function filterFromQuery(query: URLSearchParams, also: readonly string[] = []): RequestFilter {
  refuseUnknownParams(query, [...JOURNAL_FILTER_PARAMS, ...also]);
  const list = (name: string) =>
    (query.get(name) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const filter: RequestFilter = {};
  if (query.has('method')) filter.method = list('method');
  if (query.has('path')) filter.path = query.get('path')!;
  if (query.has('status')) filter.status = list('status');
  if (query.has('account')) filter.account = query.get('account')!;
  if (query.has('idempotency_key')) filter.idempotencyKey = query.get('idempotency_key')!;
  if (query.has('since')) filter.since = sinceParam(query.get('since')!);
  if (query.has('after_id')) filter.afterId = wholeNumber(query.get('after_id')!, 'after_id');
  // Refused here, as a query's other mistakes are, rather than matching nothing (compileFilter says what is wrong).
  try {
    compileFilter(filter);
  } catch (error) {
    if (error instanceof RequestFilterError) throw new ApiError(422, error.message, 'VALIDATION_FAILED', [error.field]);
    throw error;
  }
  return filter;
}

/**
 * A fault configuration as a body gives it: `{"rules": [...], "seed": 7}`, or the compact form of `mock serve --faults`
 * as `{"spec": "503/times=1@createOrder", "seed": 7}`, read by the same parser. Refused whole with the field at fault.
 */
function faultConfigOf(body: Record<string, unknown>): FaultConfig {
  return asFaultRefusal(() => {
    if (!('spec' in body)) {
      validateFaultConfig(body);
      return body;
    }
    const { spec, seed, ...rest } = body;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw new FaultConfigError(`Invalid faults: give either spec or ${extra}, not both.`, extra);
    if (typeof spec !== 'string') throw new FaultConfigError('Invalid faults: `spec` is the compact form, a string.', 'spec');
    if (seed !== undefined && !Number.isSafeInteger(seed)) throw new FaultConfigError('Invalid faults: `seed` must be an integer.', 'seed');
    try {
      return parseFaultSpec(spec, seed as number | undefined);
    } catch (error) {
      // The parser names `rules`; here the caller wrote `spec`.
      if (error instanceof FaultConfigError && error.field === 'rules') throw new FaultConfigError(error.message, 'spec');
      throw error;
    }
  });
}

/** A refused fault configuration as the 422 its field names. */
function asFaultRefusal<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof FaultConfigError) throw new ApiError(422, error.message, 'VALIDATION_FAILED', [error.field]);
    throw error;
  }
}

/**
 * What a reset leaves as it is (RESET_PARTS): `?keep=faults,requests`, or a body `{"keep": ["faults", "requests"]}` (or
 * `"faults,requests"`), as a caller of the other control calls would send it; both together keep what either names.
 * A name that is none, another key, or a body that is not JSON is refused, never ignored: a reset that drops what its
 * caller meant to keep cannot be undone.
 */
export function resetKeep(request: SandboxRequest): ResetPart[] {
  const body = jsonBody(request);
  const unknown = Object.keys(body).filter((key) => key !== 'keep');
  if (unknown.length > 0) throw new ApiError(422, `A reset takes keep; not ${unknown.join(', ')}.`, 'VALIDATION_FAILED', unknown);
  const fromBody = body.keep;
  const bodyNames =
    fromBody === undefined ? [] : typeof fromBody === 'string' ? [fromBody] : Array.isArray(fromBody) ? fromBody : undefined;
  if (bodyNames === undefined || bodyNames.some((name) => typeof name !== 'string'))
    throw new ApiError(422, `keep is a list of the parts to keep: ${RESET_PARTS.join(', ')}.`, 'VALIDATION_FAILED', ['keep']);
  const names = [...new URL(request.url).searchParams.getAll('keep'), ...(bodyNames as string[])];
  const parsed = parseResetKeep(names.join(','));
  if ('unknown' in parsed) throw new ApiError(422, unknownResetPart(parsed.unknown), 'VALIDATION_FAILED', ['keep']);
  return parsed.keep;
}

/** The filters of the state listings; an account or a status that is none is refused, as an unknown name is. */
function stateFilter(request: SandboxRequest, store: Store): StateFilter {
  const query = new URL(request.url).searchParams;
  refuseUnknownParams(query, STATE_FILTER_PARAMS);
  const filter: StateFilter = {};
  if (query.has('account')) {
    const account = query.get('account')!;
    if (accountsNamed(store, account).length === 0) {
      const names = store.db.accounts.all().map((a) => a.name);
      throw new ApiError(422, `No account is named ${account}; the accounts are ${names.join(', ')}.`, 'VALIDATION_FAILED', ['account']);
    }
    filter.account = account;
  }
  if (query.has('status')) {
    const status = query.get('status')!;
    if (!(STATUSES as readonly string[]).includes(status))
      throw new ApiError(422, `status is one of ${STATUSES.join(', ')}; not ${status}.`, 'VALIDATION_FAILED', ['status']);
    filter.status = status;
  }
  if (query.has('since')) filter.since = sinceParam(query.get('since')!);
  if (query.has('limit')) filter.limit = wholeNumber(query.get('limit')!, 'limit');
  return filter;
}

/** `since`: ISO 8601 (UTC when it names no zone) or epoch milliseconds, on the sandbox clock. */
function sinceParam(since: string): number {
  const at = parseFilterTime(since);
  if (!Number.isFinite(at))
    throw new ApiError(422, 'since is a time: ISO 8601 (UTC unless it names a zone) or epoch milliseconds.', 'VALIDATION_FAILED', [
      'since',
    ]);
  return at;
}

/**
 * A query parameter a listing does not take is refused, naming it, rather than ignored: `?methd=POST` or
 * `?route=createOrder` would otherwise list everything, and a test counting on the filter could pass by mistake.
 */
function refuseUnknownParams(query: URLSearchParams, known: readonly string[]): void {
  for (const name of query.keys()) {
    if (!known.includes(name)) throw new ApiError(422, `This listing takes ${known.join(', ')}; not ${name}.`, 'VALIDATION_FAILED', [name]);
  }
}

function wholeNumber(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new ApiError(422, `${name} is a whole number.`, 'VALIDATION_FAILED', [name]);
  return Number(value);
}
