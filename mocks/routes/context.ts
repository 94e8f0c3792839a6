import type { SandboxRequest } from '../core/exchange.js';
import type { Principal } from '../rules/auth.js';
import type { Store } from '../store/store.js';
import type { WriteLock } from '../core/write-lock.js';
import type { RequestNotes } from '../inspect/request-journal.js';

/** What a route may use. Routes never see transports, limits or faults: the pipeline handled those. */
export interface RouteContext {
  store: Store;
  now: number;
  /** Origin written into links (invoice_url, payment_url, article_url). */
  base: string;
  principal: Principal | null;
  params: Record<string, string>;
  /** The endpoint's query, parsed by its contract schema. */
  query: Record<string, unknown>;
  request: SandboxRequest;
  writeLock: WriteLock;
  /** Resolves once the change is durable (persisted when the sandbox has a state file). */
  commit(): Promise<void>;
}

export interface RouteResult {
  status?: number;
  message: string;
  data: unknown;
  /** What the request journal should know of this answer that only the route can tell (an idempotent replay). */
  notes?: RouteNotes;
}

/** The journal notes a route may set; the pipeline sets the rest (route, account, rate limit, fault). */
export type RouteNotes = Pick<RequestNotes, 'idempotentReplay'>;

export type RouteHandler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;

export function principalOf(ctx: RouteContext): Principal {
  if (ctx.principal === null) throw new Error('route needs a principal but the pipeline gave none');
  return ctx.principal;
}
