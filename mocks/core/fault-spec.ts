import { FaultConfigError, validateFaultConfig, type FaultConfig, type FaultRuleFields } from './fault-config.js';

const EXAMPLES =
  'drop-after=20%, 503=10%/retry-after=1, 429=10%, latency=5-50ms@createOrder, 503/retry-after=1/times=1@createOrder, 429/after=2/times=3';

/**
 * The compact form of `topup mock serve --faults`: comma-separated items such as
 * `drop-after=20%`, `503=10%/retry-after=1`, `500=5%`, `429=10%`, `drop-before=1%`, `latency=5-50ms`, `latency=100ms/25%`,
 * each optionally limited to routes with `@createOrder+getOrder`. `/times=N` and `/after=N` make a sequence, where
 * the rate may be left out: `503/retry-after=1/times=1@createOrder` fails the first order once.
 */
export function parseFaultSpec(spec: string, seed?: number): FaultConfig {
  const rules: FaultRuleFields[] = [];
  for (const raw of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [body, routePart] = raw.split('@') as [string, string | undefined];
    const [head, ...options] = body.split('/');
    const [name, value] = (head ?? '').split('=') as [string, string | undefined];
    const routes = routePart === undefined ? undefined : routePart.split('+').filter(Boolean);
    const bad = () => new FaultConfigError(`Invalid fault '${raw}'. Examples: ${EXAMPLES}.`, 'rules');
    const named = optionsOf(options, name === 'latency', bad);
    const counted = named.times !== undefined || named.after !== undefined;
    let rule: FaultRuleFields;
    if (name === 'latency') {
      const match = /^(\d+)(?:-(\d+))?ms$/.exec(value ?? '');
      if (!match) throw bad();
      const latency: number | [number, number] = match[2] === undefined ? Number(match[1]) : [Number(match[1]), Number(match[2])];
      const rate = named.rate ?? (counted ? undefined : '100%');
      rule = { kind: 'latency', ...(rate === undefined ? {} : { rate: rateOf(rate, bad) }), latency_ms: latency };
    } else {
      // A sequence needs no rate (it fires on every request it covers); anything else does.
      const rate = value === undefined && counted ? {} : { rate: rateOf(value ?? '', bad) };
      const retryAfter = named['retry-after'] === undefined ? {} : { retry_after: named['retry-after'] };
      if (name === 'drop-after') rule = { kind: 'drop_after', ...rate };
      else if (name === 'drop-before') rule = { kind: 'drop_before', ...rate };
      else if (name === '429') rule = { kind: 'rate_limit', ...rate, ...retryAfter };
      else if (/^5\d\d$/.test(name)) rule = { kind: 'error', ...rate, status: Number(name), ...retryAfter };
      else throw bad();
    }
    if (named.times !== undefined) rule.times = named.times;
    if (named.after !== undefined) rule.after = named.after;
    if (routes !== undefined) rule.routes = routes;
    rules.push(rule);
  }
  // Typed by kind once checked: the parts above are any rule's fields.
  const config: unknown = { rules, ...(seed === undefined ? {} : { seed }) };
  validateFaultConfig(config);
  return config;
}

interface SpecOptions {
  'retry-after'?: number;
  times?: number;
  after?: number;
  /** Latency's rate, written bare: `latency=100ms/25%`. */
  rate?: string;
}

/** The `/name=value` parts of one item; an unknown name is refused rather than ignored. */
function optionsOf(options: string[], bareRate: boolean, bad: () => Error): SpecOptions {
  const named: SpecOptions = {};
  for (const option of options) {
    const [name, value] = option.split('=') as [string, string | undefined];
    if (value === undefined && bareRate && named.rate === undefined) named.rate = name;
    else if ((name === 'retry-after' || name === 'times' || name === 'after') && value !== undefined && /^-?\d+$/.test(value))
      named[name] = Number(value);
    else throw bad();
  }
  return named;
}

function rateOf(text: string, bad: () => Error): number {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(text);
  if (!match) throw bad();
  const n = Number(match[1]);
  return match[2] === '%' ? n / 100 : n;
}

/**
 * One rule in the compact form `parseFaultSpec` reads (`503=10%/retry-after=1/times=1@createOrder`): how the CLI lists
 * a sandbox's faults, so that what it prints can be given back to `--faults` or `topup mock faults add`.
 */
export function faultSpecOf(rule: FaultRuleFields): string {
  const counted = rule.times !== undefined || rule.after !== undefined;
  const percent = (rate: number) => `${+(rate * 100).toPrecision(12)}%`;
  const parts: string[] = [];
  if (rule.kind === 'latency') {
    const ms = rule.latency_ms;
    parts.push(`latency=${Array.isArray(ms) ? `${ms[0]}-${ms[1]}` : (ms ?? 0)}ms`);
    // Latency without times or after fires on every request unless a rate says otherwise.
    if (rule.rate !== undefined && !(rule.rate === 1 && !counted)) parts.push(percent(rule.rate));
  } else {
    const name = { drop_after: 'drop-after', drop_before: 'drop-before', rate_limit: '429', error: String(rule.status ?? 503) }[rule.kind];
    parts.push(rule.rate === undefined ? name : `${name}=${percent(rule.rate)}`);
    if (rule.retry_after !== undefined) parts.push(`retry-after=${rule.retry_after}`);
  }
  if (rule.times !== undefined) parts.push(`times=${rule.times}`);
  if (rule.after !== undefined) parts.push(`after=${rule.after}`);
  return `${parts.join('/')}${rule.routes === undefined ? '' : `@${rule.routes.join('+')}`}`;
}
