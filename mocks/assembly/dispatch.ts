import { isTopupError } from '../../src/errors.js';
import { ApiError, errorReply, jsonReply, type SandboxErrorCode, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';
import type { WriteLock } from '../core/write-lock.js';
import { requestUrl, type RequestUrl } from './request-url.js';
import { apiRouter, handleApiRequest, notFoundMessage, type PipelineEnv } from './pipeline.js';
import type { RequestNotes } from '../inspect/request-journal.js';
import { nearestRoute } from '../inspect/near-miss.js';
import { controlRefusal, hostRefusal } from '../rules/control-guard.js';
import { CONTROL_PREFIX, controlRouter, type ControlDeps } from '../routes/control.js';
import { SANDBOX_PATHS, spaceOf, type SandboxSpace } from '../routes/paths.js';
import { mayBeDue, nextDueMove, settleDue } from '../rules/timed-moves.js';
import { SnapshotError } from '../state/snapshot.js';
import type { Store } from '../store/store.js';

export const OPENAPI_PATH = SANDBOX_PATHS.openApi;
/** The dashboard's page (mocks/web/dashboard.ts, loaded only when asked for). */
const DASHBOARD_PATH = `${CONTROL_PREFIX}/`;

/** What answering a request needs: the API pipeline's environment and what the control routes act on. */
export interface DispatchParts extends ControlDeps {
  env: PipelineEnv;
  store: Store;
  writeLock: WriteLock;
  commit(this: void): Promise<void>;
  /** Told about unexpected errors (they are answered with a 500 envelope). */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * One request answered, whatever it throws: an ApiError or a refused control move as its envelope, anything else a
 * 500. Answered at once when nothing on its way waits (the catalog, the balance): a promise only when something does.
 */
export function answer(
  parts: DispatchParts,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  notes: RequestNotes,
): SandboxResponse | Promise<SandboxResponse> {
  let answered: SandboxResponse | Promise<SandboxResponse>;
  try {
    answered = dispatch(parts, request, url, at, notes);
  } catch (error) {
    return failed(parts, error);
  }
  return answered instanceof Promise ? answered.catch((error: unknown) => failed(parts, error)) : answered;
}

function failed(parts: DispatchParts, error: unknown): SandboxResponse {
  if (error instanceof ApiError) return errorReply(error);
  // The history a head-only open left to read (Store.deferLoad) could not be read: said as what it is.
  if (error instanceof SnapshotError) {
    parts.onError?.(error);
    return errorReply(new ApiError(500, `The sandbox cannot read its state: ${error.message}`, 'INTERNAL_ERROR'));
  }
  // A control move refused: sandbox.control rejects with the client's error classes (control-moves.ts).
  if (isTopupError(error) && error.status !== undefined)
    return errorReply(new ApiError(error.status, error.message, error.code as SandboxErrorCode | undefined, error.fields));
  parts.onError?.(error);
  return errorReply(new ApiError(500, 'The sandbox failed unexpectedly.', 'INTERNAL_ERROR'));
}

/** What came due first (when something may have), then the request; a history still to be read before both. */
function dispatch(
  parts: DispatchParts,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  notes: RequestNotes,
): SandboxResponse | Promise<SandboxResponse> {
  if (parts.store.loadPending && historyWantedAt(parts.store, request.method, url.pathname, at))
    return parts.store.loadDeferred().then(() => dispatch(parts, request, url, at, notes));
  if (mayBeDue(parts.store, at)) return settle(parts, at).then(() => route(parts, request, url, at, notes));
  return route(parts, request, url, at, notes);
}

/**
 * The endpoints that read nothing of an account's history (HISTORY_TABLES: orders, invoices, deposits, transactions,
 * idempotency keys) and nothing a move the sandbox makes by itself changes (those may wait for a later request, each
 * stamped with when it was due): the catalog, articles, a token check, a profile.
 */
const HEAD_ONLY_ENDPOINTS: ReadonlySet<string> = new Set([
  'getHealth',
  'listCreditPackages',
  'listPaymentMethods',
  'listArticles',
  'getArticle',
  'validateToken',
  'getProfile',
]);

/** Reads no history, but a move the sandbox makes by itself (a refund, a deposit paid) changes its answer. */
const MOVED_BY_HISTORY: ReadonlySet<string> = new Set(['getBalance']);

type HistoryNeed = 'never' | 'when-moving' | 'always';

function historyNeedAt(method: string, pathname: string): HistoryNeed {
  const space = spaceOf(pathname);
  if (space === 'openApi' || space === undefined) return 'never';
  if (space !== 'api') return 'always';
  const lookup = apiRouter.lookup(method === 'HEAD' ? 'GET' : method, pathname);
  // Refused without a route (404, 405): nothing read.
  if (lookup === null || !('found' in lookup)) return 'never';
  const id = lookup.found.handler.id;
  return HEAD_ONLY_ENDPOINTS.has(id) ? 'never' : MOVED_BY_HISTORY.has(id) ? 'when-moving' : 'always';
}

function historyWantedAt(store: Store, method: string, pathname: string, at: number): boolean {
  const need = historyNeedAt(method, pathname);
  return need === 'always' || (need === 'when-moving' && store.deferredMayMoveBy(at));
}

/** The request's path, or undefined when its URL does not parse (it is refused later, reading nothing). */
function pathOf(request: Pick<SandboxRequest, 'url'>): string | undefined {
  try {
    return requestUrl(request.url).pathname;
  } catch {
    return undefined;
  }
}

/**
 * Whether every answer to this request needs the state's history (Store.deferLoad): the offline CLI reads a state
 * file's history before such a request (mocks/assembly/persistent-sandbox.ts `reads`), and leaves it unread for the
 * others until `historyWanted` says one needs it.
 */
export function needsHistory(request: Pick<SandboxRequest, 'method' | 'url'>): boolean {
  const path = pathOf(request);
  return path === undefined || historyNeedAt(request.method, path) === 'always';
}

/** Whether this request, answered now, needs the history the store has yet to read (the balance, when a move may be due). */
export function historyWanted(store: Store, request: Pick<SandboxRequest, 'method' | 'url'>, now: number): boolean {
  if (!store.loadPending) return false;
  const path = pathOf(request);
  return path === undefined || historyWantedAt(store, request.method, path, now);
}

type Serve = (
  parts: DispatchParts,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  notes: RequestNotes,
) => SandboxResponse | Promise<SandboxResponse>;

const isRead = (request: SandboxRequest) => request.method === 'GET' || request.method === 'HEAD';

/**
 * The URL spaces the sandbox answers (routes/paths.ts, the list the msw handlers intercept too): the API, the invoice
 * pages, the payment links, the OpenAPI document, the control API. A space without its server is a compile error.
 */
const SERVE: Record<SandboxSpace, Serve> = {
  api: (parts, request, url, at, notes) => handleApiRequest(parts.env, request, url, at, notes),
  invoicePage: (parts, request, url, at, notes) =>
    isRead(request) ? serveInvoicePage(parts.store, request, url, at, notes) : notFound(request, url, notes),
  paymentPage: (parts, request, url, _at, notes) =>
    isRead(request) ? servePaymentPage(parts.store, request, url, notes) : notFound(request, url, notes),
  openApi: (_parts, request) => serveOpenApi(request),
  control: (parts, request, url, _at, notes) =>
    serveControl(parts, request, url, notes).then((reply) => reply ?? notFound(request, url, notes)),
};

function route(
  parts: DispatchParts,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  notes: RequestNotes,
): SandboxResponse | Promise<SandboxResponse> {
  const space = spaceOf(url.pathname);
  return space === undefined ? notFound(request, url, notes) : SERVE[space](parts, request, url, at, notes);
}

function notFound(request: SandboxRequest, url: RequestUrl, notes: RequestNotes): SandboxResponse {
  notes.nearMiss = nearestRoute(request.method, url.pathname, [...apiRouter.routes, ...controlRouter.routes]);
  return errorReply(new ApiError(404, notFoundMessage(url.pathname, notes.nearMiss), 'ROUTE_NOT_FOUND'));
}

/** What came due by this request's time happens before it is answered, and is committed like any change (when mayBeDue). */
async function settle(parts: DispatchParts, at: number): Promise<void> {
  const { store } = parts;
  if (nextDueMove(store, at) === undefined) return;
  const moves = await parts.writeLock.run(() => settleDue(store, at));
  if (moves > 0) await parts.commit();
}

/** The invoice_url of every order and deposit: a page the bot's user opens. */
async function serveInvoicePage(
  store: Store,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  notes: RequestNotes,
): Promise<SandboxResponse> {
  notes.route = 'invoicePage';
  // A DNS-rebinding page must not read it either (rules/control-guard.ts).
  const refused = request.controlGuard === undefined ? undefined : hostRefusal(request, request.controlGuard);
  if (refused !== undefined) return errorReply(refused);
  return (await import('../web/invoice-page.js')).invoicePage(store, url.pathname.slice(SANDBOX_PATHS.invoicePage.length), at);
}

/** A gateway order's payment_url: on the sandbox, the way to its invoice page (web/invoice-page.ts). */
async function servePaymentPage(store: Store, request: SandboxRequest, url: RequestUrl, notes: RequestNotes): Promise<SandboxResponse> {
  notes.route = 'paymentPage';
  // The same Host check as the invoice page it leads to: a DNS-rebinding page learns nothing from it either.
  const refused = request.controlGuard === undefined ? undefined : hostRefusal(request, request.controlGuard);
  if (refused !== undefined) return errorReply(refused);
  return (await import('../web/invoice-page.js')).paymentLink(store, url.pathname.slice(SANDBOX_PATHS.paymentPage.length));
}

async function serveOpenApi(request: SandboxRequest): Promise<SandboxResponse> {
  if (request.method === 'GET' || request.method === 'HEAD') return jsonReply(200, await openApiDocument());
  return errorReply(new ApiError(405, `${request.method} is not allowed on ${OPENAPI_PATH}; use GET.`, 'METHOD_NOT_ALLOWED'), {
    allow: 'GET',
  });
}

/** A control route's answer, or undefined for a path no control route has (answered as not found). */
async function serveControl(
  parts: DispatchParts,
  request: SandboxRequest,
  url: RequestUrl,
  notes: RequestNotes,
): Promise<SandboxResponse | undefined> {
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
    return lookup.found.handler(parts, lookup.found.params, request);
  }
  if (lookup !== null)
    return errorReply(new ApiError(405, `${request.method} is not allowed on ${url.pathname}.`, 'METHOD_NOT_ALLOWED'), {
      allow: lookup.allow.join(', '),
    });
  return undefined;
}

let openApiCache: Promise<unknown> | undefined;
/** Built on first request only: most sandboxes never serve it. */
function openApiDocument(): Promise<unknown> {
  openApiCache ??= import('../../src/contract/openapi.js').then((m) => m.buildOpenApiDocument());
  return openApiCache;
}
