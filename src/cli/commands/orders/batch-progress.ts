// A batch's progress on stderr: a bar redrawn in place, or (accessible, TERM=dumb, a screen reader) one line per row.
import type { OutputStream } from '../../io/streams.js';

export type ProgressMode = 'bar' | 'lines' | 'off';

export interface ProgressState {
  done: number;
  failed: number;
  left: number;
  /** What is going now: "line 14 (BuilderBob)". */
  current?: string | undefined;
  /** Milliseconds to the end, when it can be told. */
  etaMs?: number | undefined;
}

export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** The counts, the row going now and the ETA, in words: the line mode's line and the bar's text. */
export function progressText(state: ProgressState): string {
  const total = state.done + state.failed + state.left;
  const parts = [`${state.done + state.failed}/${total}`, `done ${state.done}`, `failed ${state.failed}`, `left ${state.left}`];
  if (state.current !== undefined) parts.push(state.current);
  if (state.etaMs !== undefined && state.left > 0) parts.push(`ETA ${durationText(state.etaMs)}`);
  return parts.join('  ');
}

/** A bar of `width` cells and the text after it, cut to the terminal's width. */
export function progressBar(state: ProgressState, columns: number | undefined, width = 20): string {
  const total = state.done + state.failed + state.left;
  const filled = total === 0 ? width : Math.round(((state.done + state.failed) / total) * width);
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progressText(state)}`;
  const max = columns !== undefined && columns > 1 ? columns - 1 : line.length;
  return line.length > max ? line.slice(0, max) : line;
}

export interface BatchProgress {
  update(state: ProgressState): void;
  /** Clears the bar (a line printed meanwhile goes above it). */
  clear(): void;
}

export function startProgress(stream: OutputStream, mode: ProgressMode): BatchProgress {
  if (mode === 'off') return { update: () => undefined, clear: () => undefined };
  if (mode === 'lines') {
    let last = '';
    return {
      update: (state) => {
        const text = progressText(state);
        // The same words again (a wait notice between rows) would only be noise to a screen reader.
        if (text !== last) stream.write(`${text}\n`);
        last = text;
      },
      clear: () => undefined,
    };
  }
  let shown = false;
  return {
    update: (state) => {
      stream.write(`\r\u001b[K${progressBar(state, stream.columns)}`);
      shown = true;
    },
    clear: () => {
      if (shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
