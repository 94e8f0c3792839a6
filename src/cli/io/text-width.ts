import truncatedWidth from 'fast-string-truncated-width';
import type { TextMeasure } from './table.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /\u001b\[[0-9;]*m/;

/**
 * Widths as a terminal draws them: East Asian wide characters and emoji take two cells, colour codes none.
 * Loaded only to render a table on a terminal (IOStreams.tableView): pipes need no measuring.
 */
export const terminalMeasure: TextMeasure = {
  width: (text) => truncatedWidth(text).width,
  truncate(text, cells) {
    const cut = truncatedWidth(text, { limit: cells, ellipsis: '…' });
    if (!cut.truncated) return text;
    const kept = text.slice(0, cut.index);
    // A cut inside a colour would let it run on into the next cell.
    return `${kept}${ANSI.test(kept) ? '\u001b[0m' : ''}…`;
  },
};
