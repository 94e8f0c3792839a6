import { InvalidArgumentError } from 'commander';
import type { CliContext } from '../../context.js';
import { clockText } from '../../io/format.js';
import { wholeNumberOf } from './choices.js';
import { createRedraw } from '../../io/redraw.js';
import { mayPassByItself } from '../../../client/wait.js';
import { messageText } from '../../io/sanitize.js';

/** `--watch [SECONDS]`: bare means the recommended interval; fewer seconds than the minimum is a usage error. */
export function parseWatchSeconds(what: string, min: number) {
  return (value: string): number => {
    const seconds = wholeNumberOf(value);
    if (seconds === undefined) throw new InvalidArgumentError('--watch takes a whole number of seconds.');
    if (seconds < min)
      throw new InvalidArgumentError(`The ${what} may be refreshed at most every ${min} seconds; use --watch ${min} or more.`);
    return seconds;
  };
}

export function watchInterval(flag: number | boolean | undefined, recommended: number): number | undefined {
  if (flag === undefined || flag === false) return undefined;
  return flag === true ? recommended : flag;
}

/** A server's hint past an hour is ignored beyond that: a watch should still refresh. */
const MAX_HINT_SECONDS = 3600;

export interface WatchPlan<T> {
  seconds: number;
  fetch(): Promise<T>;
  /** The view of one refresh: a terminal frame or a plain record. */
  render(data: T): string;
  /** Seconds the server asks to wait before the next refresh, when it says. */
  serverHint?(data: T): number | undefined;
}

/**
 * Refreshes until Ctrl-C: redrawn in place on a terminal; piped, one record per refresh
 * (blank-line separated, or one JSON line each with --json). In accessible mode on a terminal, each refresh is
 * printed below the last with its "Updated" line, never redrawn. Ends only by the signal's abort
 * (exit 130) or an error. A refresh after the first that fails in a way that may pass by itself (no answer, a 5xx, a
 * timeout, the rate limit) ends nothing: the last figures stay, marked with when they were fetched and why the
 * refresh failed, and the next refresh comes as planned.
 */
export async function runWatch<T>(ctx: CliContext, plan: WatchPlan<T>): Promise<void> {
  const terminal = ctx.io.terminal && !ctx.globals.json;
  const redraw = terminal ? (ctx.io.accessible ? appendFrames(ctx) : createRedraw(ctx.io.stdout)) : undefined;
  let shown: { frame: string; at: number } | undefined;
  for (let refresh = 0; ; refresh++) {
    let data: T;
    try {
      data = await plan.fetch();
    } catch (error) {
      if (shown === undefined || ctx.signal?.aborted === true) throw error;
      if (!mayPassByItself(error)) throw error;
      const retryAfter = error.retryAfter ?? 0;
      const seconds = Math.max(plan.seconds, Math.min(retryAfter, MAX_HINT_SECONDS));
      const why = `Could not refresh at ${clockText(ctx.clock.now(), ctx.io.view)}: ${messageText(error.message, { multiline: false }).replace(/\.?$/, '.')}`;
      // Said with --json too (on stderr): the reader of the lines would otherwise see only a longer gap.
      if (redraw && !ctx.io.accessible)
        redraw(
          `${shown.frame}\n${ctx.io.style.dim(`Updated ${clockText(shown.at, ctx.io.view)}. ${why} Trying again in ${seconds} s. Press Ctrl-C to stop.`)}\n`,
        );
      else ctx.io.warn(`${why} Trying again in ${seconds} s.`);
      await ctx.clock.sleep(seconds * 1000, ctx.signal);
      continue;
    }
    // A server may lengthen the pause, never shorten it below the document's minimum (plan.seconds is checked).
    const hint: unknown = plan.serverHint?.(data);
    const seconds = Math.max(
      plan.seconds,
      typeof hint === 'number' && Number.isFinite(hint) && hint > 0 ? Math.min(hint, MAX_HINT_SECONDS) : 0,
    );
    const frame = ctx.globals.json ? '' : plan.render(data);
    shown = { frame, at: ctx.clock.now() };
    if (ctx.globals.json) await ctx.io.writeJsonLine(data);
    else if (redraw)
      redraw(
        `${frame}\n${ctx.io.style.dim(`Updated ${clockText(shown.at, ctx.io.view)}; refreshing every ${seconds} s. Press Ctrl-C to stop.`)}\n`,
      );
    else ctx.io.out(`${refresh > 0 ? '\n' : ''}${frame}`);
    await ctx.clock.sleep(seconds * 1000, ctx.signal);
  }
}

/** Accessible mode's stand-in for a redraw: each frame below the last, a blank line between. */
function appendFrames(ctx: CliContext): (frame: string) => void {
  let first = true;
  return (frame) => {
    ctx.io.out(`${first ? '' : '\n'}${frame}`);
    first = false;
  };
}
