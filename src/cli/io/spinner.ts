import type { OutputStream } from './streams.js';
import { simpleMeasure } from './text-measure.js';

export interface Spinner {
  /** Replaces the text next to the spinner. */
  update(text: string): void;
  /** Clears the spinner's line and prints `finalLine` in its place, if given. */
  stop(finalLine?: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[K';

/**
 * Progress on stderr while waiting. Only on a terminal: anywhere else it is a no-op, so logs and
 * pipes never collect carriage returns and escape codes.
 */
export function startSpinner(
  stream: OutputStream,
  text: string,
  options: { enabled: boolean; frameMs?: number; lines?: boolean; columns?: () => number | undefined },
): Spinner {
  if (options.lines === true && !options.enabled) return lineProgress(stream, text);
  if (!options.enabled)
    return { update: () => {}, stop: (finalLine) => void (finalLine === undefined ? undefined : stream.write(`${finalLine}\n`)) };
  let frame = 0;
  let current = text;
  const draw = () => stream.write(`${CLEAR_LINE}${fitted(`${FRAMES[frame % FRAMES.length]} ${current}`, options.columns?.())}`);
  draw();
  const timer = setInterval(() => {
    frame += 1;
    draw();
  }, options.frameMs ?? 80);
  // A spinner must never keep the process alive on its own.
  timer.unref?.();
  let stopped = false;
  return {
    update(next) {
      if (stopped) return;
      current = next;
      draw();
    },
    stop(finalLine) {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write(CLEAR_LINE + (finalLine === undefined ? '' : `${finalLine}\n`));
    },
  };
}

/**
 * The spinner's line within the terminal's width (one cell short of it, where some terminals wrap). A longer one
 * wraps, and the clear before the next frame clears only its last row: each frame left a line behind.
 */
function fitted(line: string, columns: number | undefined): string {
  return columns === undefined || columns < 2 ? line : simpleMeasure.truncate(line, columns - 1);
}

/** Accessible mode: each new text is a line of its own, nothing is cleared or redrawn. */
function lineProgress(stream: OutputStream, text: string): Spinner {
  let last = text;
  stream.write(`${text}\n`);
  let stopped = false;
  return {
    update(next) {
      if (stopped || next === last) return;
      last = next;
      stream.write(`${next}\n`);
    },
    stop(finalLine) {
      if (stopped) return;
      stopped = true;
      if (finalLine !== undefined) stream.write(`${finalLine}\n`);
    },
  };
}
