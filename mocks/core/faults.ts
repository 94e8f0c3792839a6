import { ApiError, errorReply, type SandboxReply } from './exchange.js';
import type { ErrorCode } from '../../src/contract/errors.js';

/**
 * Injected faults, the way WireMock simulates them: each rule fires on a share of the requests of its routes.
 * - latency: answer late (fixed ms, or uniform in [min, max]);
 * - error: a 5xx envelope, with or without Retry-After, before the handler runs;
 * - rate_limit: a 429 envelope with Retry-After (a storm, at rate 1);
 * - drop_before: the connection is cut before the handler runs (nothing changes);
 * - drop_after: the handler runs and commits, then the answer is lost — what makes naive clients order twice.
 */
export type FaultKind = 'latency' | 'error' | 'rate_limit' | 'drop_before' | 'drop_after';

export interface FaultRule {
  kind: FaultKind;
  /** Share of matching requests, 0 to 1. */
  rate: number;
  /** Endpoint ids (e.g. `createOrder`) this rule applies to; all /api/v1 routes when absent. */
  routes?: string[];
  /** For latency: fixed milliseconds, or [min, max]. */
  latency_ms?: number | [number, number];
  /** For error: 500, 502, 503 or 504. */
  status?: number;
  /** Seconds for Retry-After (error and rate_limit); no header when absent for errors, 1 s for 429s. */
  retry_after?: number;
}

export interface FaultConfig {
  /** Same seed, same sequence of decisions for the same sequence of requests. */
  seed?: number;
  rules: FaultRule[];
}

export type FaultStats = Record<FaultKind, number> & { requests: number };

export interface FaultDecision {
  latencyMs: number;
  /** A reply that replaces the handler's, or a drop. */
  before?: SandboxReply | 'drop';
  dropAfter: boolean;
}

const NONE: FaultDecision = { latencyMs: 0, dropAfter: false };

/** mulberry32: small, fast, and the same everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  #config: FaultConfig = { rules: [] };
  #random: () => number = prng(0);
  #stats: FaultStats = emptyStats();

  configure(config: FaultConfig): void {
    validateFaultConfig(config);
    this.#config = { seed: config.seed ?? 0, rules: config.rules.map((r) => ({ ...r })) };
    this.#random = prng(this.#config.seed ?? 0);
    this.#stats = emptyStats();
  }

  get config(): FaultConfig {
    return { seed: this.#config.seed ?? 0, rules: this.#config.rules.map((r) => ({ ...r })) };
  }

  get stats(): FaultStats {
    return { ...this.#stats };
  }

  get active(): boolean {
    return this.#config.rules.length > 0;
  }

  /**
   * Decides, once per request, which faults hit it. The faults that replace or lose the answer exclude each other,
   * so they share one draw: each rule's rate is its real share of the route's requests (while the rates add up to
   * at most 1). Latency stacks on top with a draw of its own. Every rule draws on every request, so one rule's
   * outcome never shifts another's sequence.
   */
  decide(routeId: string): FaultDecision {
    if (this.#config.rules.length === 0) return NONE;
    this.#stats.requests += 1;
    const decision: FaultDecision = { latencyMs: 0, dropAfter: false };
    const shared = this.#random();
    let cumulative = 0;
    for (const rule of this.#config.rules) {
      const draw = this.#random();
      const extra = this.#random();
      if (rule.routes !== undefined && !rule.routes.includes(routeId)) continue;
      if (rule.kind === 'latency') {
        if (draw >= rule.rate) continue;
        const ms = Array.isArray(rule.latency_ms)
          ? rule.latency_ms[0] + extra * (rule.latency_ms[1] - rule.latency_ms[0])
          : (rule.latency_ms ?? 0);
        decision.latencyMs += Math.round(ms);
        this.#stats.latency += 1;
        continue;
      }
      const from = cumulative;
      cumulative += rule.rate;
      if (shared < from || shared >= cumulative || decision.before !== undefined || decision.dropAfter) continue;
      if (rule.kind === 'drop_after') decision.dropAfter = true;
      else decision.before = replyFor(rule);
      this.#stats[rule.kind] += 1;
    }
    return decision;
  }
}

function replyFor(rule: FaultRule): SandboxReply | 'drop' {
  if (rule.kind === 'drop_before') return 'drop';
  if (rule.kind === 'rate_limit') {
    const seconds = rule.retry_after ?? 1;
    // The X-RateLimit-* headers a real 429 carries are added by the pipeline, which knows the route's class.
    return errorReply(
      new ApiError(429, `Too many requests. Retry in ${seconds} seconds.`, undefined, undefined, { 'retry-after': String(seconds) }),
    );
  }
  const status = rule.status ?? 503;
  // A 503 always says when to come back, as the document's 503 does; other statuses only when the rule says.
  const retryAfter = rule.retry_after ?? (status === 503 ? 1 : undefined);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
  const [code, message] = faultErrors[status] ?? faultErrors[500]!;
  return errorReply(new ApiError(status, message, code, undefined, headers));
}

const faultErrors: Record<number, [ErrorCode, string]> = {
  500: ['INTERNAL_ERROR', 'The server failed; retry shortly.'],
  502: ['BAD_GATEWAY', 'The gateway got no valid answer from the service; retry shortly.'],
  503: ['SERVICE_UNAVAILABLE', 'The service is briefly unavailable; retry shortly.'],
  504: ['GATEWAY_TIMEOUT', 'The gateway gave up waiting for the service; retry shortly.'],
};

function emptyStats(): FaultStats {
  return { requests: 0, latency: 0, error: 0, rate_limit: 0, drop_before: 0, drop_after: 0 };
}

const KINDS: readonly FaultKind[] = ['latency', 'error', 'rate_limit', 'drop_before', 'drop_after'];
const ERROR_STATUSES = [500, 502, 503, 504];

export class FaultConfigError extends Error {
  override name = 'FaultConfigError';
}

export function validateFaultConfig(config: unknown): asserts config is FaultConfig {
  const fail = (why: string) => {
    throw new FaultConfigError(`Invalid faults: ${why}.`);
  };
  if (config === null || typeof config !== 'object') fail('expected an object with `rules`');
  const { seed, rules } = config as Partial<FaultConfig>;
  if (seed !== undefined && !Number.isSafeInteger(seed)) fail('`seed` must be an integer');
  if (!Array.isArray(rules)) fail('`rules` must be an array');
  for (const [i, rule] of (rules as FaultRule[]).entries()) {
    if (rule === null || typeof rule !== 'object') fail(`rule ${i + 1} is not an object`);
    if (!KINDS.includes(rule.kind)) fail(`rule ${i + 1} has kind '${String(rule.kind)}'; use one of ${KINDS.join(', ')}`);
    if (typeof rule.rate !== 'number' || !(rule.rate >= 0 && rule.rate <= 1)) fail(`rule ${i + 1} needs a rate from 0 to 1`);
    if (rule.routes !== undefined && (!Array.isArray(rule.routes) || rule.routes.some((r) => typeof r !== 'string')))
      fail(`rule ${i + 1} has bad routes`);
    if (rule.kind === 'latency') {
      const ms = rule.latency_ms;
      const ok = (n: unknown) => typeof n === 'number' && n >= 0 && n <= 60_000;
      if (!(ok(ms) || (Array.isArray(ms) && ms.length === 2 && ok(ms[0]) && ok(ms[1]) && ms[0] <= ms[1])))
        fail(`rule ${i + 1} needs latency_ms from 0 to 60000, or [min, max]`);
    }
    if (rule.status !== undefined && !ERROR_STATUSES.includes(rule.status))
      fail(`rule ${i + 1} has status ${rule.status}; use 500, 502, 503 or 504`);
    if (rule.retry_after !== undefined && !(Number.isInteger(rule.retry_after) && rule.retry_after >= 0 && rule.retry_after <= 3600))
      fail(`rule ${i + 1} needs retry_after in whole seconds, 0 to 3600`);
  }
}

/**
 * The compact form of `topup mock serve --faults`: comma-separated items such as
 * `drop-after=20%`, `503=10%/retry-after=1`, `500=5%`, `429=10%`, `drop-before=1%`, `latency=5-50ms`, `latency=100ms/25%`,
 * each optionally limited to routes with `@createOrder+getOrder`.
 */
export function parseFaultSpec(spec: string, seed?: number): FaultConfig {
  const rules: FaultRule[] = [];
  for (const raw of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [body, routePart] = raw.split('@') as [string, string | undefined];
    const [head, ...options] = body.split('/');
    const [name, value] = (head ?? '').split('=') as [string, string | undefined];
    const routes = routePart === undefined ? undefined : routePart.split('+').filter(Boolean);
    const opts = Object.fromEntries(options.map((o) => o.split('=') as [string, string]));
    const bad = () =>
      new FaultConfigError(`Invalid fault '${raw}'. Examples: drop-after=20%, 503=10%/retry-after=1, 429=10%, latency=5-50ms@createOrder.`);
    const retryAfter = opts['retry-after'] === undefined ? undefined : Number(opts['retry-after']);
    let rule: FaultRule;
    if (name === 'latency') {
      const match = /^(\d+)(?:-(\d+))?ms$/.exec(value ?? '');
      if (!match) throw bad();
      const latency: number | [number, number] = match[2] === undefined ? Number(match[1]) : [Number(match[1]), Number(match[2])];
      rule = { kind: 'latency', rate: rateOf(options.find((o) => !o.includes('=')) ?? '100%', bad), latency_ms: latency };
    } else {
      const rate = rateOf(value ?? '', bad);
      if (name === 'drop-after') rule = { kind: 'drop_after', rate };
      else if (name === 'drop-before') rule = { kind: 'drop_before', rate };
      else if (name === '429') rule = { kind: 'rate_limit', rate, ...(retryAfter === undefined ? {} : { retry_after: retryAfter }) };
      else if (/^5\d\d$/.test(name))
        rule = { kind: 'error', rate, status: Number(name), ...(retryAfter === undefined ? {} : { retry_after: retryAfter }) };
      else throw bad();
    }
    if (routes !== undefined) rule.routes = routes;
    rules.push(rule);
  }
  const config: FaultConfig = { rules, ...(seed === undefined ? {} : { seed }) };
  validateFaultConfig(config);
  return config;
}

function rateOf(text: string, bad: () => Error): number {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(text);
  if (!match) throw bad();
  const n = Number(match[1]);
  return match[2] === '%' ? n / 100 : n;
}
