import { hintCommand } from '../../hint-command.js';
// `topup mock faults`' runs, loaded only when one runs (the flags and help in ./faults.ts stay on the eager path).
import type { FaultRule } from '../../../../mocks/facade/control.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { sanitizeText } from '../../io/sanitize.js';
import { renderTable } from '../../io/table.js';
import type { FaultsView } from '../../sandbox/control.js';
import { controlFor } from './control.js';

/** The flags of `topup mock faults add`: one rule, turned into the compact form `mock serve --faults` reads. */
export interface FaultAddOptions {
  status?: number | undefined;
  drop?: 'before' | 'after' | undefined;
  latency?: string | undefined;
  rate?: string | undefined;
  times?: number | undefined;
  after?: number | undefined;
  retryAfter?: number | undefined;
  route?: string[] | undefined;
}

export async function runFaultsList(ctx: CliContext): Promise<void> {
  const view = await (await controlFor(ctx)).control.faults();
  await printFaults(ctx, view);
}

export async function runFaultsAdd(ctx: CliContext, spec: string | undefined, options: FaultAddOptions): Promise<void> {
  const rules = await rulesOf(spec, options);
  const view = await (await controlFor(ctx)).control.addFaults(rules);
  ctx.io.success(`Added ${rules.length === 1 ? 'a fault' : `${rules.length} faults`}; the sandbox now injects ${view.rules.length}.`);
  await printFaults(ctx, view);
}

export async function runFaultsClear(ctx: CliContext): Promise<void> {
  const view = await (await controlFor(ctx)).control.clearFaults();
  if (ctx.globals.json) return ctx.io.writeJson(view);
  ctx.io.success('Faults cleared.');
}

/**
 * The rules to add, read by the one parser of the compact form (`mock serve --faults`, the control API's `spec`):
 * the flags are written in that form first, so that both ways mean exactly the same.
 */
async function rulesOf(spec: string | undefined, options: FaultAddOptions): Promise<FaultRule[]> {
  const { parseFaultSpec, FaultConfigError } = await import('../../../../mocks/facade/control.js');
  const flagged = [options.status, options.drop, options.latency].filter((v) => v !== undefined).length;
  const shaping = Object.values(options).some((v) => v !== undefined);
  if (spec !== undefined && shaping) throw new UsageError('Give the fault either as SPEC or with flags, not both.');
  if (spec === undefined && flagged !== 1)
    throw new UsageError(
      flagged === 0
        ? 'Say what the fault does: --status 503, --drop after or --latency 200ms (or give SPEC, e.g. "503/times=1@createOrder").'
        : 'A fault does one thing: give one of --status, --drop and --latency.',
    );
  try {
    return parseFaultSpec(spec ?? specOf(options)).rules;
  } catch (error) {
    if (error instanceof FaultConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The flags in the compact form: `503=10%/retry-after=1/times=1@createOrder`. */
export function specOf(options: FaultAddOptions): string {
  const counted = options.times !== undefined || options.after !== undefined;
  if (options.latency === undefined && options.rate === undefined && !counted)
    throw new UsageError('Say how often it fires: --rate 10%, --times N or --after N.');
  // The parser reads both 10% and 0.1.
  const rate = options.rate;
  const parts: string[] = [];
  if (options.latency !== undefined) {
    parts.push(`latency=${options.latency.replace(/ms$/, '')}ms`);
    if (rate !== undefined) parts.push(rate);
  } else {
    const name = options.drop !== undefined ? `drop-${options.drop}` : String(options.status);
    parts.push(rate === undefined ? name : `${name}=${rate}`);
    if (options.retryAfter !== undefined) parts.push(`retry-after=${options.retryAfter}`);
  }
  if (options.times !== undefined) parts.push(`times=${options.times}`);
  if (options.after !== undefined) parts.push(`after=${options.after}`);
  return `${parts.join('/')}${options.route === undefined ? '' : `@${options.route.join('+')}`}`;
}

/** The rules as `--faults` writes them, each with its counts; --json: the view as the control API answers it. */
async function printFaults(ctx: CliContext, view: FaultsView): Promise<void> {
  if (ctx.globals.json) return ctx.io.writeJson(view);
  if (view.rules.length === 0) {
    ctx.io.notice(`No faults are injected; add one with \`${hintCommand(ctx, 'mock faults add')}\`.`);
    return;
  }
  const { faultSpecOf } = await import('../../../../mocks/facade/control.js');
  const rows = view.rules.map((rule, i) => ({ n: i + 1, rule, counts: view.stats.rules[i] }));
  ctx.io.out(
    renderTable(
      rows,
      [
        { header: '#', value: (r) => r.n, align: 'right' },
        // The server's rule, written here: its strings (routes) are text from the network.
        { header: 'fault', value: (r) => sanitizeText(faultSpecOf(r.rule)) },
        { header: 'matched', value: (r) => r.counts?.matched, align: 'right', priority: 1 },
        { header: 'fired', value: (r) => r.counts?.fired, align: 'right', priority: 2 },
      ],
      await ctx.io.tableView(),
    ),
  );
  ctx.io.notice(ctx.io.errStyle.dim(`Fault seed ${view.seed}; ${view.stats.requests} requests decided since the rules were set.`));
}
