import type { Style } from './style.js';

export interface Column<T> {
  header: string;
  /** A value the server did not send is a dash. */
  value: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
const pad = (text: string, width: number, align: 'left' | 'right') => {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return align === 'right' ? fill + text : text + fill;
};

const cellText = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/**
 * On a terminal: a bold header and aligned columns. Piped: tab-separated values with no header,
 * the stable form scripts can cut and grep.
 */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], options: { terminal: boolean; style: Style }): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!options.terminal) return cells.map((line) => line.join('\t')).join('\n') + (cells.length > 0 ? '\n' : '');
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((line) => visibleLength(line[i]!))));
  const header = columns.map((c, i) => options.style.bold(pad(c.header.toUpperCase(), widths[i]!, c.align ?? 'left'))).join('  ');
  const body = cells.map((line) =>
    line
      .map((cell, i) => pad(cell, widths[i]!, columns[i]!.align ?? 'left'))
      .join('  ')
      .trimEnd(),
  );
  return [header.trimEnd(), ...body].join('\n') + '\n';
}

/** Key/value pairs: aligned with dim keys on a terminal, `key: value` lines when piped. */
export function renderFields(pairs: readonly [string, string][], options: { terminal: boolean; style: Style }): string {
  if (!options.terminal) return pairs.map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${options.style.dim(k.padEnd(width))}  ${v}`).join('\n') + '\n';
}
