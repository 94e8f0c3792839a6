import type { OutputStream } from './streams.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const visibleLength = (line: string) => line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').length;

/** Terminal rows a frame occupies, counting lines the terminal wraps at `columns`. */
export function rowsOf(frame: string, columns: number | undefined): number {
  const lines = frame.endsWith('\n') ? frame.slice(0, -1).split('\n') : frame.split('\n');
  const width = columns !== undefined && columns > 0 ? columns : Number.POSITIVE_INFINITY;
  return lines.reduce((rows, line) => rows + Math.max(1, Math.ceil(visibleLength(line) / width)), 0);
}

/**
 * Draws a frame in place of the previous one (for `--watch` on a terminal): moves the cursor up over the
 * last frame and clears from there down, leaving the scrollback above untouched.
 */
export function createRedraw(stream: OutputStream): (frame: string) => void {
  let previousRows = 0;
  return (frame) => {
    const text = frame.endsWith('\n') ? frame : `${frame}\n`;
    const rewind = previousRows > 0 ? `\u001b[${previousRows}A\r\u001b[J` : '';
    stream.write(rewind + text);
    previousRows = rowsOf(text, stream.columns);
  };
}
