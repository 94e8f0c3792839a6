import type { EndpointId } from '../../src/contract/endpoints.js';
import { rateClasses } from '../../src/contract/rate-limits.js';
import { endpointRoutes, type EndpointRoute } from '../../src/contract/routes.js';
import type { RequestUrl } from './request-url.js';
import {
  ApiError,
  errorReply,
  SerializedData,
  successReply,
  type SandboxReply,
  type SandboxRequest,
  type SandboxResponse,
} from '../core/exchange.js';
import type { FaultDecision, FaultInjector } from '../core/faults.js';
import type { RequestNotes } from '../inspect/request-journal.js';
import { nearestRoute } from '../inspect/near-miss.js';
import { authenticate, bearerToken, refuseTokenInUrl, unauthorized } from '../rules/auth.js';
import { type InFlightLimiter, type RateLimiter } from '../rules/rate-limit.js';
import { Router } from '../core/router.js';
import { routeHandlers } from '../routes/index.js';
import { orderRequest } from '../routes/orders.js';
import { onDemand } from '../core/on-demand.js';
import type { RouteContext, RouteResult } from '../routes/context.js';
import type { Store } from '../store/store.js';
import type { WriteLock } from '../core/write-lock.js';

export interface PipelineEnv {
  /** The origin written into links when the sandbox has a publicUrl; else each request's own origin. */
  publicOrigin: string | undefined;
  store: Store;
  writeLock: WriteLock;
  rateLimit: boolean;
  /** Answer only what the interface document guarantees (mocks/routes/lean.ts). */
  lean: boolean;
  rateLimiter: RateLimiter;
  inFlight: InFlightLimiter;
  faults: FaultInjector;
  sleep(ms: number): Promise<void>;
  commit(this: void): Promise<void>;
}

const DROP = { drop: true } as const;

/** An endpoint as the pipeline routes it: plain data (src/contract/routes.ts), no schema. */
type Endpoint = EndpointRoute & { readonly id: EndpointId };

export const apiRouter = new Router<Endpoint>();
for (const [id, route] of Object.entries(endpointRoutes)) apiRouter.add(route.method, route.path, { id: id as EndpointId, ...route });

/**
 * The endpoints' zod schemas (endpoint-schemas.ts): a query to parse, an answer to cut for the lean sandbox. A sandbox
 * made by `createSandbox()` has them before its first request (loadContractParts). The offline CLI's embedded sandbox
 * loads them the first time a request needs them, so that a command that reads the catalog, a profile or an order
 * builds no zod schema at all; such a request is admitted and counted on arrival, then waits for them.
 */
const schemas = onDemand(() => import('./endpoint-schemas.js'));

/** What the contract's zod schemas serve (the endpoints' queries, the lean cut, an order's body), loaded once. */
export function loadContractParts(): Promise<unknown> {
  return Promise.all([schemas.load(), orderRequest.load()]);
}

function schemasNeeded(env: PipelineEnv, endpoint: Endpoint): boolean {
  return schemas.current === undefined && (env.lean || endpoint.queried === true);
}

/**
 * Serves one /api/v1 request. The layers wrap each other as in the real service:
 * URL hygiene, then rate limits (which also count refused tokens), then auth, then the route.
 * Answered at once when nothing waits (no injected latency, a route that answers at once); else a promise.
 */
export function handleApiRequest(
  env: PipelineEnv,
  request: SandboxRequest,
  url: RequestUrl,
  now: number,
  notes: RequestNotes = {},
): SandboxResponse | Promise<SandboxResponse> {
  // HEAD is GET without the body (the adapters leave it out), as HTTP expects wherever GET works.
  const lookup = apiRouter.lookup(request.method === 'HEAD' ? 'GET' : request.method, url.pathname);
  if (lookup === null) {
    notes.nearMiss = nearestRoute(request.method, url.pathname, apiRouter.routes);
    return errorReply(new ApiError(404, notFoundMessage(url.pathname, notes.nearMiss), 'ROUTE_NOT_FOUND'));
  }
  if ('allow' in lookup) {
    // The path is right; the methods it takes are what was meant.
    notes.nearMiss = `${[...lookup.allow].sort().join(' or ')} ${url.pathname}`;
    return errorReply(
      new ApiError(405, `${request.method} is not allowed on ${url.pathname}; use ${lookup.allow.join(', ')}.`, 'METHOD_NOT_ALLOWED'),
      { allow: lookup.allow.join(', ') },
    );
  }
  const endpoint = lookup.found.handler;
  notes.route = endpoint.id;
  // Injected faults act like the network and the gateway in front of the service: before and after it.
  const fault = env.faults.decide(endpoint.id);
  notes.fault = faultLabel(fault);
  // What stands in for the network and the gateway answers after the latency, without reaching the service.
  if (fault.before !== undefined) {
    const before =
      fault.before === 'drop' ? DROP : fault.before.status === 429 ? withLimitHeaders(fault.before, endpoint, now) : fault.before;
    return fault.latencyMs > 0 ? env.sleep(fault.latencyMs).then(() => before) : before;
  }
  // Latency otherwise is a slow service: the request is admitted on arrival (counted, in flight), then waits, so a
  // bot can meet the in-flight cap (a fourth request of one token is 429) over any transport.
  const reply = serveEndpoint(env, endpoint, lookup.found.params, request, url, now, notes, fault.latencyMs);
  if (!fault.dropAfter) return reply;
  return reply instanceof Promise ? reply.then(() => DROP) : DROP;
}

/** "No endpoint X exists", with the route it was probably meant for. */
export function notFoundMessage(path: string, nearMiss: string | undefined): string {
  return nearMiss === undefined ? `No endpoint ${path} exists.` : `No endpoint ${path} exists; did you mean ${nearMiss}?`;
}

function faultLabel(fault: FaultDecision): string | undefined {
  const parts: string[] = [];
  if (fault.latencyMs > 0) parts.push(`latency ${fault.latencyMs}ms`);
  if (fault.before === 'drop') parts.push('drop_before');
  else if (fault.before !== undefined) parts.push(fault.before.status === 429 ? 'rate_limit 429' : `error ${fault.before.status}`);
  if (fault.dropAfter) parts.push('drop_after');
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** An injected 429 looks like a real one: the class's X-RateLimit-* headers, nothing left, reset when Retry-After ends. */
function withLimitHeaders(reply: SandboxReply, endpoint: Endpoint, now: number): SandboxReply {
  const retryAfter = Number(reply.headers['retry-after'] ?? '1');
  const headers = Object.assign({}, reply.headers, {
    'x-ratelimit-limit': String(rateClasses[endpoint.rateClass].limit),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(Math.ceil(now / 1000) + retryAfter),
  });
  return { status: reply.status, headers, body: reply.body };
}

function serveEndpoint(
  env: PipelineEnv,
  endpoint: Endpoint,
  params: Record<string, string>,
  request: SandboxRequest,
  url: RequestUrl,
  now: number,
  notes: RequestNotes,
  latencyMs: number,
): SandboxReply | Promise<SandboxReply> {
  let rateHeaders: Record<string, string> = {};
  let leave: (() => void) | undefined;
  /** Set when the route answers later: the in-flight place is then left once it has. */
  let waiting = false;
  try {
    if (url.search !== '') refuseTokenInUrl(url.searchParams);
    const token = bearerToken(request.headers.authorization);
    const principal = endpoint.auth ? authenticate(env.store.db, token) : null;
    if (principal) notes.account = principal.account.username;
    if (env.rateLimit) {
      const key = principal ? `token:${principal.token.token_sha256}` : `address:${request.clientAddress ?? 'local'}`;
      // The in-flight cap first: a request it refuses is not counted against the per-minute quota.
      if (principal) {
        try {
          leave = env.inFlight.enter(key);
        } catch (error) {
          // Its 429 says where the quota stands, without counting it.
          rateHeaders = env.rateLimiter.peek(endpoint.rateClass, key, now);
          notes.rateLimit = { class: endpoint.rateClass, refused: true };
          throw error;
        }
      }
      try {
        rateHeaders = env.rateLimiter.take(endpoint.rateClass, key, now);
      } finally {
        notes.rateLimit = {
          class: endpoint.rateClass,
          limit: Number(rateHeaders['x-ratelimit-limit'] ?? rateClasses[endpoint.rateClass].limit),
          ...(rateHeaders['x-ratelimit-remaining'] === undefined ? {} : { remaining: Number(rateHeaders['x-ratelimit-remaining']) }),
          refused: rateHeaders['x-ratelimit-remaining'] === undefined,
        };
      }
    }
    if (endpoint.auth && principal === null) throw unauthorized();
    // Admitted and counted on arrival, in the order requests came; the schemas it needs may load before it is served.
    const headers = rateHeaders;
    const route = () => routeAnswer(env, endpoint, { principal, params, request, url, now }, notes, headers);
    const serve = () => (schemasNeeded(env, endpoint) ? schemas.load().then(route) : route());
    const answered = latencyMs > 0 ? env.sleep(latencyMs).then(serve) : serve();
    if (!(answered instanceof Promise)) return answered;
    // Most routes answer at once; the others are waited for, and answered the same way.
    waiting = true;
    return answered.catch((error: unknown) => refusal(error, headers)).finally(() => leave?.());
  } catch (error) {
    // A refusal of the slow service (401, 429) is as slow as its answers.
    return latencyMs > 0 ? env.sleep(latencyMs).then(() => refusal(error, rateHeaders)) : refusal(error, rateHeaders);
  } finally {
    if (!waiting) leave?.();
  }
}

/** The route's answer to an admitted request: its context, its handler, and the reply (now, or once it answers). */
function routeAnswer(
  env: PipelineEnv,
  endpoint: Endpoint,
  admitted: Pick<RouteContext, 'principal' | 'params' | 'request' | 'now'> & { url: RequestUrl },
  notes: RequestNotes,
  rateHeaders: Record<string, string>,
): SandboxReply | Promise<SandboxReply> {
  const { url } = admitted;
  const ctx: RouteContext = {
    store: env.store,
    now: admitted.now,
    base: env.publicOrigin ?? url.origin,
    principal: admitted.principal,
    params: admitted.params,
    query: endpoint.queried === true ? schemas.current!.parseQuery(endpoint.id, url.searchParams) : {},
    request: admitted.request,
    writeLock: env.writeLock,
    commit: env.commit,
  };
  const handled = routeHandlers[endpoint.id](ctx);
  if (!(handled instanceof Promise)) return routeReply(env, endpoint, handled, notes, rateHeaders);
  return handled.then((result) => routeReply(env, endpoint, result, notes, rateHeaders));
}

function routeReply(
  env: PipelineEnv,
  endpoint: Endpoint,
  result: RouteResult,
  notes: RequestNotes,
  rateHeaders: Record<string, string>,
): SandboxReply {
  Object.assign(notes, result.notes);
  const data = env.lean
    ? schemas.current!.leanAnswer(endpoint.id, result.data instanceof SerializedData ? JSON.parse(result.data.json) : result.data)
    : result.data;
  // 200 is every endpoint's usual success (endpoints.ts); the one with another (createOrder: 201) always says its own.
  return successReply(result.status ?? 200, result.message, data, rateHeaders);
}

/** An ApiError as its envelope (with the rate-limit headers as they stood); anything else goes on up. */
function refusal(error: unknown, rateHeaders: Record<string, string>): SandboxReply {
  if (error instanceof ApiError) return errorReply(error, rateHeaders);
  throw error;
}
