import { endpointRoutes } from '../../src/contract/routes.js';
import { editDistance } from './edit-distance.js';

/**
 * Injected faults, the way WireMock simulates them: each rule fires on a share of the requests of its routes.
 * - latency: answer late (fixed ms, or uniform in [min, max]);
 * - error: a 5xx envelope, with or without Retry-After, before the handler runs;
 * - rate_limit: a 429 envelope with Retry-After (a storm, at rate 1);
 * - drop_before: the connection is cut before the handler runs (nothing changes);
 * - drop_after: the handler runs and commits, then the answer is lost — what makes naive clients order twice.
 */
export type FaultKind = 'latency' | 'error' | 'rate_limit' | 'drop_before' | 'drop_after';

/**
 * A rule as the validator and the compact form read it: every field of every kind, each optional. The public
 * `FaultRule` is the same object, typed by its kind.
 */
export interface FaultRuleFields {
  kind: FaultKind;
  /** Share of matching requests, 0 to 1. Optional with `times` or `after`, where it defaults to 1 (every one). */
  rate?: number;
  /** Endpoint ids (operationIds, e.g. `createOrder`) this rule applies to; all /api/v1 routes when absent. */
  routes?: string[];
  /** Fire at most this many times, then stop: `times: 1` at rate 1 fails exactly the first matching request. */
  times?: number;
  /** Let this many matching requests pass before the rule starts. */
  after?: number;
  /** For latency: fixed milliseconds, or [min, max]. */
  latency_ms?: number | [number, number];
  /** For error: 500, 502, 503 or 504. */
  status?: number;
  /** Seconds for Retry-After (error and rate_limit); no header when absent for errors, 1 s for 429s. */
  retry_after?: number;
}

/** The operationIds a rule's `routes` may name (`createOrder`, `getBalance`, …). */
export type FaultRouteId = keyof typeof endpointRoutes;

/**
 * When a rule fires: on a share of the requests it covers (`rate`), or counted (`times`, `after`), or both; a rule
 * with none of them is refused.
 */
export type FaultWhen =
  | { rate: number; times?: number; after?: number }
  | { rate?: number; times: number; after?: number }
  | { rate?: number; times?: number; after: number };

type FaultOf<K extends FaultKind, Fields> = { kind: K; routes?: FaultRouteId[] } & Fields & FaultWhen;

/**
 * One injected fault, typed as `validateFaultConfig` checks it: each kind with its own fields (see FaultRuleFields
 * for what each means), routes among the API's operationIds, and a rate or a count.
 */
export type FaultRule =
  | FaultOf<'latency', { latency_ms: number | [number, number] }>
  | FaultOf<'error', { status?: 500 | 502 | 503 | 504; retry_after?: number }>
  | FaultOf<'rate_limit', { retry_after?: number }>
  | FaultOf<'drop_before' | 'drop_after', unknown>;

export interface FaultConfig {
  /** Same seed, same sequence of decisions for the same sequence of requests. */
  seed?: number;
  rules: FaultRule[];
}

export class FaultConfigError extends Error {
  override name = 'FaultConfigError';
  /** The field at fault, as a path into the configuration (`rules[0].routes`), for the control API's `error.fields`. */
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.field = field;
  }
}

/** Every rule draws on every request: a bounded list keeps a request's cost bounded too. */
export const MAX_FAULT_RULES = 100;

const KINDS: readonly FaultKind[] = ['latency', 'error', 'rate_limit', 'drop_before', 'drop_after'];
/** The keys a configuration takes; any other is refused, never ignored (a misspelt `routes` would fault every route). */
const CONFIG_KEYS: readonly (keyof FaultConfig)[] = ['rules', 'seed'];
/** The keys each kind of rule takes: a key another kind takes (`latency_ms` on an error) would be ignored, so is refused too. */
const COMMON_RULE_KEYS: readonly (keyof FaultRuleFields)[] = ['kind', 'rate', 'routes', 'times', 'after'];
const RULE_KEYS: Readonly<Record<FaultKind, readonly (keyof FaultRuleFields)[]>> = {
  latency: [...COMMON_RULE_KEYS, 'latency_ms'],
  error: [...COMMON_RULE_KEYS, 'status', 'retry_after'],
  rate_limit: [...COMMON_RULE_KEYS, 'retry_after'],
  drop_before: COMMON_RULE_KEYS,
  drop_after: COMMON_RULE_KEYS,
};
const ALL_RULE_KEYS: readonly string[] = [...new Set(Object.values(RULE_KEYS).flat())];
const ERROR_STATUSES = [500, 502, 503, 504];

/** The ids a rule's `routes` may name: the operationIds of the /api/v1 endpoints, from the contract's route table. */
export const FAULT_ROUTE_IDS: readonly string[] = Object.keys(endpointRoutes);

export function validateFaultConfig(config: unknown): asserts config is FaultConfig {
  const fail = (why: string, field: string): never => {
    throw new FaultConfigError(`Invalid faults: ${why}.`, field);
  };
  if (config === null || typeof config !== 'object' || Array.isArray(config)) fail('expected an object with `rules`', 'rules');
  const extra = unknownKey(config as object, CONFIG_KEYS);
  if (extra !== undefined)
    fail(`unknown key '${shown(extra)}'${didYouMeanKey(extra, CONFIG_KEYS)}; a configuration takes ${CONFIG_KEYS.join(' and ')}`, extra);
  const { seed, rules } = config as { seed?: unknown; rules?: unknown };
  if (seed !== undefined && !Number.isSafeInteger(seed)) fail('`seed` must be an integer', 'seed');
  if (!Array.isArray(rules)) fail('`rules` must be an array', 'rules');
  if ((rules as unknown[]).length > MAX_FAULT_RULES) fail(`at most ${MAX_FAULT_RULES} rules at once`, 'rules');
  for (const [i, rule] of (rules as FaultRuleFields[]).entries()) {
    const n = i + 1;
    const at = (name?: string) => (name === undefined ? `rules[${i}]` : `rules[${i}].${name}`);
    if (rule === null || typeof rule !== 'object') fail(`rule ${n} is not an object`, at());
    if (!KINDS.includes(rule.kind)) fail(`rule ${n} has kind '${String(rule.kind)}'; use one of ${KINDS.join(', ')}`, at('kind'));
    const keys = RULE_KEYS[rule.kind];
    const stray = unknownKey(rule, keys);
    if (stray !== undefined) {
      const why = ALL_RULE_KEYS.includes(stray)
        ? `(${rule.kind}) takes no ${stray}`
        : `has unknown key '${shown(stray)}'${didYouMeanKey(stray, keys)}`;
      fail(`rule ${n} ${why}; ${rule.kind} rules take ${keys.join(', ')}`, at(stray));
    }
    if (rule.times !== undefined && !(Number.isSafeInteger(rule.times) && rule.times >= 1))
      fail(`rule ${n} needs times as a whole number of 1 or more`, at('times'));
    if (rule.after !== undefined && !(Number.isSafeInteger(rule.after) && rule.after >= 0))
      fail(`rule ${n} needs after as a whole number of 0 or more`, at('after'));
    const counted = rule.times !== undefined || rule.after !== undefined;
    if (rule.rate === undefined ? !counted : typeof rule.rate !== 'number' || !(rule.rate >= 0 && rule.rate <= 1))
      fail(`rule ${n} needs a rate from 0 to 1${counted ? '' : ', or times or after'}`, at('rate'));
    if (rule.routes !== undefined) {
      if (!Array.isArray(rule.routes) || rule.routes.some((r) => typeof r !== 'string')) fail(`rule ${n} has bad routes`, at('routes'));
      const unknown = rule.routes.find((r) => !FAULT_ROUTE_IDS.includes(r));
      if (unknown !== undefined)
        fail(`rule ${n} names no route '${unknown}'${didYouMean(unknown)}; routes are ${FAULT_ROUTE_IDS.join(', ')}`, at('routes'));
    }
    if (rule.kind === 'latency') {
      const ms = rule.latency_ms;
      const ok = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 60_000;
      if (!(ok(ms) || (Array.isArray(ms) && ms.length === 2 && ok(ms[0]) && ok(ms[1]) && ms[0] <= ms[1])))
        fail(`rule ${n} needs latency_ms from 0 to 60000, or [min, max]`, at('latency_ms'));
    }
    if (rule.status !== undefined && !ERROR_STATUSES.includes(rule.status))
      fail(`rule ${n} has status ${rule.status}; use 500, 502, 503 or 504`, at('status'));
    if (rule.retry_after !== undefined && !(Number.isInteger(rule.retry_after) && rule.retry_after >= 0 && rule.retry_after <= 3600))
      fail(`rule ${n} needs retry_after in whole seconds, 0 to 3600`, at('retry_after'));
  }
}

/** `create_order` or `CreateOrder` for `createOrder`: the same letters, spelt another way. */
function didYouMean(id: string): string {
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const near = FAULT_ROUTE_IDS.find((known) => squash(known) === squash(id));
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/** A key as a message quotes it: a long one cut short. */
function shown(key: string): string {
  return key.length > 64 ? `${key.slice(0, 64)}…` : key;
}

/** The first own key of `object` that `known` does not list. */
function unknownKey(object: object, known: readonly string[]): string | undefined {
  return Object.keys(object).find((key) => !known.includes(key));
}

/**
 * `retryAfter` or `RETRY-AFTER` for `retry_after` (the same letters), `rout` for `routes` or `sede` for `seed` (an edit or
 * two away, a swap of two letters counting one, and less than half the key changed: `spec` is no `seed`): a suggestion
 * only when one known key is that near, never a guess between two.
 */
function didYouMeanKey(key: string, known: readonly string[]): string {
  if (key.length > 64) return '';
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const near = known
    .map((k) => ({ k, a: squash(key), b: squash(k) }))
    .map(({ k, a, b }) => ({ k, d: editDistance(a, b), longer: Math.max(a.length, b.length) }))
    .filter(({ d, longer }) => d === 0 || (d <= 2 && 2 * d < longer));
  const best = Math.min(...near.map(({ d }) => d));
  const nearest = near.filter(({ d }) => d === best);
  return nearest.length === 1 ? ` (did you mean ${nearest[0]!.k}?)` : '';
}
