import type { Style } from './style.js';
import { oneLine } from './sanitize.js';
import { simpleMeasure, type TextMeasure } from './text-measure.js';

export interface Column<T> {
  header: string;
  /** A value the server did not send is a dash. */
  value: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
  /**
   * Free text (names, titles, descriptions, usernames): shortened with "…" when the table is wider than the terminal.
   * Every other column (codes, amounts, statuses, dates) keeps its width, so that what a person copies is whole.
   */
  free?: boolean;
  /**
   * How much the column matters when the terminal is too narrow for all of them: after free text has been shortened
   * to a readable width, the lowest priority is left out first (the rightmost among equals), until the rest fit.
   * A column without one (what names a row: an invoice, a code, a slug) is never left out. Piped, every column stays.
   */
  priority?: number;
  /**
   * Free text that reads only at this many cells or more (a name that tells rows apart by its end): the lowest
   * priorities are left out before it is shortened under that. Default: a few cells (READABLE).
   */
  readable?: number;
}

export { simpleMeasure, type TextMeasure } from './text-measure.js';

/** What a table needs of the terminal: whether it is one, its colours, its width in cells and how text is measured. */
export interface TableView {
  terminal: boolean;
  style: Style;
  /** Cells across; undefined when unknown (the table then takes the width it needs). */
  width?: number | undefined;
  measure?: TextMeasure | undefined;
  /** Accessible mode: each row as one line of `header: value` pairs, which a screen reader reads in order. */
  labelled?: boolean | undefined;
}

const GAP = 2;

/**
 * A value a server sent, as it is, in one text: a string itself, a number or boolean as written, a list or object as
 * its JSON (never `[object Object]`); a dash when it is missing. What the interface document does not guarantee may
 * be any of these, and a renderer shows it rather than guess, or fail on a method it lacks.
 */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '-';
}

/** A cell: the value as it is, on one line (oneLine). */
const cellText = (value: unknown): string => oneLine(valueText(value));

/**
 * Column widths within `total` cells: fixed columns keep their natural width; free columns share what is left,
 * a narrow one keeping its whole width and the wider ones splitting the rest evenly, none narrower than its header.
 * When even that does not fit, the rows are wider than the terminal and wrap: nothing fixed is ever cut.
 */
export function fitWidths(natural: readonly number[], minimum: readonly number[], free: readonly boolean[], total: number): number[] {
  const gaps = GAP * Math.max(0, natural.length - 1);
  if (natural.reduce((sum, w) => sum + w, 0) + gaps <= total) return [...natural];
  const fixed = natural.reduce((sum, w, i) => (free[i] ? sum : sum + w), 0);
  let left = total - gaps - fixed;
  const widths = [...natural];
  const order = natural.map((_, i) => i).filter((i) => free[i]);
  order.sort((a, b) => natural[a]! - natural[b]!);
  order.forEach((i, n) => {
    const share = Math.floor(left / (order.length - n));
    widths[i] = Math.max(minimum[i]!, Math.min(natural[i]!, share));
    left -= widths[i];
  });
  return widths;
}

/** Free text is not shortened below this many cells before a less important column is left out instead. */
const READABLE = 8;

/**
 * The columns (their indices, in order) that a terminal of `total` cells shows: all of them when they fit with free
 * text shortened to a readable width (READABLE cells, or its header if wider), else without the least important
 * ones (see Column.priority). What cannot be left out is kept even when it is still too wide.
 */
export function keptColumns(
  natural: readonly number[],
  minimum: readonly number[],
  free: readonly boolean[],
  priority: readonly (number | undefined)[],
  total: number,
  readableAt: readonly (number | undefined)[] = [],
): number[] {
  const kept = natural.map((_, i) => i);
  const readable = (i: number) => (free[i] ? Math.min(natural[i]!, Math.max(minimum[i]!, readableAt[i] ?? READABLE)) : natural[i]!);
  const needed = () => kept.reduce((sum, i) => sum + readable(i), 0) + GAP * Math.max(0, kept.length - 1);
  while (needed() > total) {
    let drop: number | undefined;
    for (const i of kept) if (priority[i] !== undefined && (drop === undefined || priority[i] <= priority[drop]!)) drop = i;
    if (drop === undefined) break;
    kept.splice(kept.indexOf(drop), 1);
  }
  return kept;
}

/**
 * On a terminal: a bold header and aligned columns, as wide as the terminal allows (see fitWidths). Piped:
 * tab-separated values with no header, never shortened: the stable form scripts can cut and grep.
 */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], options: TableView): string {
  if (options.terminal && options.labelled === true) return renderLabelled(rows, columns);
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!options.terminal) return cells.map((line) => line.join('\t')).join('\n') + (cells.length > 0 ? '\n' : '');
  const measure = options.measure ?? simpleMeasure;
  const fitted = fitTable(columns, cells, options.width, measure);
  return renderAligned(fitted.columns, fitted.cells, fitted.widths, options.style, measure);
}

/** The columns a terminal of `width` cells shows, their cells and their widths (keptColumns, then fitWidths). */
function fitTable<T>(
  all: readonly Column<T>[],
  allCells: readonly string[][],
  width: number | undefined,
  measure: TextMeasure,
): { columns: Column<T>[]; cells: string[][]; widths: number[] } {
  const allHeaders = all.map((c) => c.header.toUpperCase());
  const allNatural = all.map((_, i) => Math.max(measure.width(allHeaders[i]!), ...allCells.map((line) => measure.width(line[i]!))));
  if (width === undefined || width <= 0) return { columns: [...all], cells: allCells.map((line) => [...line]), widths: allNatural };
  const minimum = allHeaders.map((h) => measure.width(h));
  const free = all.map((c) => c.free === true);
  const kept = keptColumns(
    allNatural,
    minimum,
    free,
    all.map((c) => c.priority),
    width,
    all.map((c) => c.readable),
  );
  const pick = <V>(values: readonly V[]) => kept.map((i) => values[i]!);
  return {
    columns: pick(all),
    cells: allCells.map((line) => pick(line)),
    widths: fitWidths(pick(allNatural), pick(minimum), pick(free), width),
  };
}

function renderAligned<T>(
  columns: readonly Column<T>[],
  cells: readonly string[][],
  widths: readonly number[],
  style: Style,
  measure: TextMeasure,
): string {
  const headers = columns.map((c) => c.header.toUpperCase());
  const pad = (text: string, i: number) => {
    const fitted = measure.width(text) > widths[i]! ? measure.truncate(text, widths[i]!) : text;
    const fill = ' '.repeat(Math.max(0, widths[i]! - measure.width(fitted)));
    return columns[i]!.align === 'right' ? fill + fitted : fitted + fill;
  };
  const header = headers.map((h, i) => style.bold(pad(h, i))).join('  ');
  const body = cells.map((line) =>
    line
      .map((cell, i) => pad(cell, i))
      .join('  ')
      .trimEnd(),
  );
  return [header.trimEnd(), ...body].join('\n') + '\n';
}

/**
 * A table for a screen reader (accessible mode, on a terminal): one line per row, each cell named by its header
 * ("code: CR80, name: 80 Credits, …"), never padded or cut, so nothing depends on lining columns up by eye.
 */
function renderLabelled<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const lines = rows.map((row) => columns.map((c) => `${c.header.toLowerCase()}: ${cellText(c.value(row))}`).join(', '));
  return lines.join('\n') + (lines.length > 0 ? '\n' : '');
}

/**
 * A pair of renderFields. A value marked `command` is a shell command to paste: never broken inside a word; when it
 * does not fit beside its key it goes on the lines below, its words joined by ` \` line continuations.
 */
export type FieldPair = readonly [key: string, value: string] | readonly [key: string, value: string, options: { command: true }];

/**
 * Key/value pairs: aligned with dim keys on a terminal, `key: value` lines when piped. On a terminal of a known width
 * a value too long for its line wraps at spaces, its next lines under its first; a word longer than the room (a URL,
 * a token) is never cut. Piped, every value is one line, whole.
 */
export function renderFields(
  pairs: readonly FieldPair[],
  options: { terminal: boolean; style: Style; width?: number | undefined; measure?: TextMeasure | undefined },
): string {
  pairs = pairs.map(([k, v, how]) => (how === undefined ? [k, oneLine(v)] : [k, oneLine(v), how]));
  if (!options.terminal) return pairs.map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
  const measure = options.measure ?? simpleMeasure;
  const keyWidth = Math.max(...pairs.map(([k]) => measure.width(k)));
  const width = options.width === undefined || options.width <= 0 ? undefined : options.width;
  const indent = ' '.repeat(keyWidth + GAP);
  return (
    pairs
      .map(([k, v, how]) => {
        const key = options.style.dim(k + ' '.repeat(keyWidth - measure.width(k)));
        if (width === undefined || keyWidth + GAP + measure.width(v) <= width) return `${key}  ${v}`;
        if (how?.command === true) return `${options.style.dim(k)}\n${commandLines(v, width, measure).join('\n')}`;
        return `${key}  ${wrapWords(v, width - keyWidth - GAP, measure).join(`\n${indent}`)}`;
      })
      .join('\n') + '\n'
  );
}

/** A shell command on lines of at most `cells` cells, indented by 2, ending in ` \` but the last: it pastes as one. */
function commandLines(command: string, cells: number, measure: TextMeasure): string[] {
  // Words as a POSIX shell splits them: a single-quoted part (shellWord's quoting) is never split.
  const words = command.match(/(?:[^\s']+|'[^']*')+/g) ?? [command];
  return wrapWords(words.join(' '), cells - 4, measure, words).map((line, i, all) => `  ${line}${i < all.length - 1 ? ' \\' : ''}`);
}

/**
 * `text` in lines of at most `cells` cells, broken at spaces (or between the given `words`); a word wider than that
 * is a line of its own, whole. Text given without `words` may also break beside a wide character (CJK writing,
 * which has no spaces and may break between any two of its characters): only a word of narrow characters (a URL, a
 * token, a code) is never cut.
 */
export function wrapWords(text: string, cells: number, measure: TextMeasure, words?: readonly string[]): string[] {
  if (measure.width(text) <= cells) return [text];
  const pieces = words === undefined ? breakablePieces(text, cells, measure) : words.map((word) => ({ text: word, spaced: true }));
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces) {
    const joined = line === '' ? piece.text : `${line}${piece.spaced ? ' ' : ''}${piece.text}`;
    if (line !== '' && measure.width(joined) > cells) {
      lines.push(line);
      line = piece.text;
    } else line = joined;
  }
  lines.push(line);
  return lines;
}

/** Made on first need: only a line of wide characters too long for its room is cut into graphemes. */
let graphemes: Intl.Segmenter | undefined;

/**
 * The places `text` may break: at each space (the space taken out), and before and after each character the measure
 * finds wide (two cells), where nothing is taken out (`spaced: false`). A run of other characters stays one piece.
 */
function breakablePieces(text: string, cells: number, measure: TextMeasure): { text: string; spaced: boolean }[] {
  const pieces: { text: string; spaced: boolean }[] = [];
  for (const word of text.split(' ')) {
    // A word that fits stays whole; one of narrow characters only (a URL, a token) is one run below, whole too.
    if (measure.width(word) <= cells) {
      pieces.push({ text: word, spaced: true });
      continue;
    }
    let run = '';
    let spaced = true;
    // By grapheme: a combining mark (a dakuten, U+3099) stays with its character.
    for (const { segment: character } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(word)) {
      // Wide as the measure has it (CJK writing, emoji): a line may break on either side of it.
      if (measure.width(character) > 1) {
        if (run !== '') pieces.push({ text: run, spaced });
        pieces.push({ text: character, spaced: run === '' && spaced });
        run = '';
        spaced = false;
      } else run += character;
    }
    if (run !== '') pieces.push({ text: run, spaced });
  }
  return pieces;
}
