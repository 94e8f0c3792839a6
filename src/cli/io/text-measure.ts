/** How many cells a text takes on a terminal, and how to shorten it to a number of cells. */
export interface TextMeasure {
  width(text: string): number;
  /** `text` cut to at most `cells` cells, ending in "…" when it was cut. */
  truncate(text: string, cells: number): string;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /\u001b\[[0-9;]*m/g;

/** One cell per UTF-16 unit, colours not counted: what a table needs when no terminal is measured. */
export const simpleMeasure: TextMeasure = {
  width: (text) => text.replace(ANSI, '').length,
  truncate: (text, cells) => {
    const plain = text.replace(ANSI, '');
    return plain.length <= cells ? text : `${plain.slice(0, Math.max(0, cells - 1))}…`;
  },
};
