import { ApiError, errorReply, type SandboxReply } from './exchange.js';
import type { ErrorCode } from '../../src/contract/errors.js';
import { validateFaultConfig, type FaultConfig, type FaultKind, type FaultRule, type FaultRuleFields } from './fault-config.js';

export {
  FaultConfigError,
  FAULT_ROUTE_IDS,
  MAX_FAULT_RULES,
  validateFaultConfig,
  type FaultConfig,
  type FaultKind,
  type FaultRule,
  type FaultRouteId,
  type FaultWhen,
} from './fault-config.js';
export { parseFaultSpec, faultSpecOf } from './fault-spec.js';

/** How one rule has done since it was configured. */
export interface FaultRuleStats {
  /** Requests on the rule's routes, whether it fired or not. */
  matched: number;
  /** Requests it hit. */
  fired: number;
}

/** Totals by kind, and `rules`: each rule's counts, in the order of `config.rules`. */
export type FaultStats = Record<FaultKind, number> & { requests: number; rules: FaultRuleStats[] };

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
  #stats: Record<FaultKind, number> & { requests: number } = emptyTotals();
  #rules: FaultRuleStats[] = [];

  configure(config: FaultConfig): void {
    validateFaultConfig(config);
    this.#config = { seed: config.seed ?? 0, rules: config.rules.map((r) => ({ ...r })) };
    this.#random = prng(this.#config.seed ?? 0);
    this.#stats = emptyTotals();
    this.#rules = config.rules.map(() => ({ matched: 0, fired: 0 }));
  }

  /**
   * Adds rules after the ones there, keeping what has happened so far: each rule's counts (a `times: 1` rule that
   * fired stays spent) and the decisions' sequence. A bad rule, or too many, changes nothing.
   */
  add(rules: readonly FaultRule[]): void {
    const config: FaultConfig = { seed: this.#config.seed ?? 0, rules: [...this.#config.rules, ...rules] };
    validateFaultConfig(config);
    this.#config = { seed: config.seed ?? 0, rules: config.rules.map((r) => ({ ...r })) };
    this.#rules.push(...rules.map(() => ({ matched: 0, fired: 0 })));
  }

  get config(): FaultConfig {
    return { seed: this.#config.seed ?? 0, rules: this.#config.rules.map((r) => ({ ...r })) };
  }

  get stats(): FaultStats {
    return { ...this.#stats, rules: this.#rules.map((r) => ({ ...r })) };
  }

  get active(): boolean {
    return this.#config.rules.length > 0;
  }

  /**
   * Decides, once per request, which faults hit it. The faults that replace or lose the answer exclude each other,
   * so they share one draw: each rule's rate is its real share of the route's requests (while the rates add up to
   * at most 1), earlier rules first. Latency stacks on top with a draw of its own. Every rule draws on every request,
   * so one rule's outcome never shifts another's sequence. A rule with `after` or `times` takes no part (and no share)
   * before its first `after` matching requests have passed or once it has fired `times` times.
   */
  decide(routeId: string): FaultDecision {
    if (this.#config.rules.length === 0) return NONE;
    this.#stats.requests += 1;
    const decision: FaultDecision = { latencyMs: 0, dropAfter: false };
    const shared = this.#random();
    let cumulative = 0;
    for (const [i, rule] of this.#config.rules.entries()) {
      const draw = this.#random();
      const extra = this.#random();
      if (rule.routes !== undefined && !(rule.routes as readonly string[]).includes(routeId)) continue;
      const counts = this.#rules[i]!;
      counts.matched += 1;
      if (counts.matched <= (rule.after ?? 0) || (rule.times !== undefined && counts.fired >= rule.times)) continue;
      const rate = rule.rate ?? 1;
      if (rule.kind === 'latency') {
        if (draw >= rate) continue;
        const ms = Array.isArray(rule.latency_ms)
          ? rule.latency_ms[0] + extra * (rule.latency_ms[1] - rule.latency_ms[0])
          : (rule.latency_ms ?? 0);
        decision.latencyMs += Math.round(ms);
        this.#stats.latency += 1;
        counts.fired += 1;
        continue;
      }
      const from = cumulative;
      cumulative += rate;
      if (shared < from || shared >= cumulative || decision.before !== undefined || decision.dropAfter) continue;
      if (rule.kind === 'drop_after') decision.dropAfter = true;
      else decision.before = replyFor(rule);
      this.#stats[rule.kind] += 1;
      counts.fired += 1;
    }
    return decision;
  }
}

function replyFor(rule: FaultRuleFields): SandboxReply | 'drop' {
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

function emptyTotals(): Record<FaultKind, number> & { requests: number } {
  return { requests: 0, latency: 0, error: 0, rate_limit: 0, drop_before: 0, drop_after: 0 };
}
