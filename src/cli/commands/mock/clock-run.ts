// `topup mock clock`'s runs, loaded only when one runs (the flags and help in ./clock.ts stay on the eager path).
import type { CliContext } from '../../context.js';
import { orDash, timeText } from '../../io/format.js';
import { sanitizeText } from '../../io/sanitize.js';
import { renderFields } from '../../io/table.js';
import { isoTime } from '../../io/time-text.js';
import type { ClockView } from '../../sandbox/control.js';
import { formatDuration } from '../shared/choices.js';
import { controlFor } from './control.js';

export async function runClockShow(ctx: CliContext): Promise<void> {
  await printClock(ctx, await (await controlFor(ctx)).control.clock());
}

export async function runClockAdvance(ctx: CliContext, ms: number): Promise<void> {
  const view = await (await controlFor(ctx)).control.advanceClock(ms / 1000);
  ctx.io.success(`Sandbox clock moved on ${formatDuration(ms)}.`);
  await printClock(ctx, view);
}

/** --json: the view as the control API answers it; else its time, how far ahead it is, and its next move. */
async function printClock(ctx: CliContext, view: ClockView): Promise<void> {
  if (ctx.globals.json) return ctx.io.writeJson(view);
  const timeView = { terminal: ctx.io.terminal, timeZone: ctx.io.timeZone };
  const offset = typeof view.offset_ms === 'number' ? view.offset_ms : undefined;
  ctx.io.out(
    renderFields(
      [
        ['now', timeOf(view.now ?? view.now_ms, timeView)],
        ['offset', offset === undefined ? '-' : offsetText(offset)],
        ['next move', view.next_move_at === null ? 'none due' : timeOf(view.next_move_at, timeView)],
      ],
      ctx.io.view,
    ),
  );
}

/** A time the control API gave, as epoch milliseconds or as text: shown as the CLI shows every time. */
function timeOf(value: unknown, view: { terminal: boolean; timeZone: string | undefined }): string {
  if (typeof value === 'number' && Number.isFinite(value)) return timeText(isoTime(value), view);
  return typeof value === 'string' ? sanitizeText(timeText(value, view)) : orDash(undefined);
}

/** How far the sandbox clock is from this machine's: `1 h 30 min ahead`, `in step` within a second. */
function offsetText(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds === 0) return 'in step with this machine';
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3_600), 'h'],
    [Math.floor((seconds % 3_600) / 60), 'min'],
    [seconds % 60, 's'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(' ')
    .concat(ms > 0 ? ' ahead of this machine' : ' behind this machine');
}
