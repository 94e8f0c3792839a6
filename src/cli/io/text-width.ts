import truncatedWidth from 'fast-string-truncated-width';
import type { TextMeasure } from './text-measure.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /\u001b\[[0-9;]*m/;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TRAILING_ANSI = /\u001b\[[0-9;]*m$/;

/** `text` without its last character (a grapheme), or without its last colour code when it ends in one. */
function withoutLast(text: string): string {
  const code = TRAILING_ANSI.exec(text);
  if (code !== null) return text.slice(0, code.index);
  const last = Array.from(graphemes.segment(text)).at(-1)!;
  return text.slice(0, last.index);
}

/**
 * Widths as a terminal draws them: East Asian wide characters and emoji take two cells, colour codes none.
 * Loaded only to render a table on a terminal (IOStreams.tableView): pipes need no measuring.
 */
export const terminalMeasure: TextMeasure = {
  width: (text) => truncatedWidth(text).width,
  truncate(text, cells) {
    const cut = truncatedWidth(text, { limit: cells, ellipsis: '…' });
    if (!cut.truncated) return text;
    let kept = text.slice(0, cut.index);
    // The library can end its cut one wide character past the limit (クレジット… for 10 cells): take characters
    // off the end (a colour code whole) until the ellipsis fits.
    while (kept !== '' && truncatedWidth(kept).width > cells - 1) kept = withoutLast(kept);
    // A cut inside a colour would let it run on into the next cell.
    return `${kept}${ANSI.test(kept) ? '\u001b[0m' : ''}…`;
  },
};

/**
 * `text` (plain, no colours) cut to at most `cells` cells by taking out its middle, "…" in its place: for a path,
 * whose start says what it is and whose end which one (`/api/v1/me/ord…/INV20260302000003`).
 */
export function truncateMiddle(text: string, cells: number): string {
  if (terminalMeasure.width(text) <= cells) return text;
  const parts = Array.from(graphemes.segment(text), (s) => ({ text: s.segment, cells: terminalMeasure.width(s.segment) }));
  let room = Math.max(0, cells - 1);
  // The end names the record, so it gets the larger half.
  let headRoom = Math.floor(room / 2);
  let head = '';
  for (const part of parts) {
    if (part.cells > headRoom) break;
    head += part.text;
    headRoom -= part.cells;
    room -= part.cells;
  }
  let tail = '';
  for (const part of parts.toReversed()) {
    if (part.cells > room) break;
    tail = part.text + tail;
    room -= part.cells;
  }
  return `${head}…${tail}`;
}
