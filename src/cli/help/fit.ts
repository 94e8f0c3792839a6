/*
 * Help text laid out to a width: the terminal's, or 80 columns piped and in the reference (docs/cli.md, the man page).
 * Commander lays out its own lists of options and commands; the texts the commands add after them (what a command
 * does, its examples) are written at about 115 columns, and were printed as written, past the edge of an
 * 80-column terminal. Here, a line that does not fit is wrapped at spaces; nothing is ever cut inside a word, so a
 * URL or a token longer than the width stays whole on a line of its own.
 *
 * Five kinds of line, told apart by their shape:
 * - an example (`  $ topup …`, with the lines its author continued it onto): continued on the next line with ` \`,
 *   as a shell reads it, and only at a space outside quotes, where a backslash and a line break mean nothing else;
 *   its comment (`# …`), where a backslash continues nothing, wraps onto lines of their own that start with `#`;
 * - a list entry (`2. A profile…`, `- …`): its text wraps under itself, and is never joined to the next entry;
 * - an item (`  --json   print …`, `0  ok`: a term, two spaces or more, a description): the description wraps under
 *   itself, or under the term, indented, when the term leaves it too little room;
 * - prose: a run of lines at the same indent, wrapped as one paragraph when one of them does not fit, so that text
 *   written for a wider screen reads as a paragraph again;
 * - a heading (`Examples:`), a blank line, or any line that fits: as it is.
 */

import { wrapWords } from '../io/table.js';
import { simpleMeasure } from '../io/text-measure.js';

/** The width help is laid out at when stdout is no terminal, and in the reference. */
export const HELP_WIDTH = 80;

/**
 * The width to lay help out at: the terminal's columns (at least 40), or HELP_WIDTH when it is no terminal or does
 * not say (a pseudo-terminal nobody sized says 0).
 */
export function helpWidthOf(columns: number | undefined): number {
  return columns === undefined || !(columns > 0) ? HELP_WIDTH : Math.max(MIN_DESCRIPTION_WIDTH, columns);
}

/** Below this many columns for a description beside its term, it goes under the term instead (commander's 40). */
const MIN_DESCRIPTION_WIDTH = 40;
/** How far an item's description, or an example's continuation, is indented past the line's own indent. */
const STEP = 4;

const EXAMPLE = /^( *)\$ /;
const ITEM = /^( *)(\S+(?: \S+)*)( {2,})(\S.*)$/;
/** A short title ending in a colon (`Examples:`, `Exit codes:`), which starts what follows: never joined to it. */
const HEADING = /^ *\S[^.]{0,40}:$/;
/** An entry of a list: `- …`, `* …`, `2. …`, `b) …`; group 1 is everything before its text. */
const LIST_ENTRY = /^( *(?:[-*]|\d{1,2}[.)]|[a-z][)]) +)\S/;

/** `text` with every line that is wider than `width` wrapped as its kind wants (see above). */
export function fitHelp(text: string, width: number = HELP_WIDTH): string {
  const lines = text.split('\n');
  if (lines.every((line) => line.length <= width)) return text;
  const out: string[] = [];
  for (let at = 0; at < lines.length;) {
    const end = blockEnd(lines, at);
    const block = lines.slice(at, end);
    at = end;
    out.push(...(block.some((l) => l.length > width) ? fitBlock(block, width) : block));
  }
  return out.join('\n');
}

/**
 * Where the block that starts at `lines[at]` ends: an example with the lines it continues onto (` \`); an item or a
 * list entry with the lines under its text, at its column; a run of prose at one indent; else the line alone.
 */
function blockEnd(lines: readonly string[], at: number): number {
  const line = lines[at]!;
  let end = at + 1;
  if (EXAMPLE.test(line)) {
    while (end < lines.length && lines[end - 1]!.endsWith(' \\')) end += 1;
    return end;
  }
  const column = textColumn(line);
  if (column !== undefined) {
    while (end < lines.length && isProse(lines[end]!) && indentOf(lines[end]!) === column) end += 1;
    return end;
  }
  if (!isProse(line)) return end;
  const indent = indentOf(line);
  while (end < lines.length && isProse(lines[end]!) && indentOf(lines[end]!) === indent) end += 1;
  return end;
}

/** Where the text of an item (`--json   print …`) or a list entry (`2. A profile…`) starts; undefined for others. */
function textColumn(line: string): number | undefined {
  if (EXAMPLE.test(line)) return undefined;
  const entry = LIST_ENTRY.exec(line);
  if (entry !== null) return entry[1]!.length;
  const item = ITEM.exec(line);
  return item === null ? undefined : line.length - item[4]!.length;
}

/** A block (see blockEnd) of which a line does not fit. */
function fitBlock(block: readonly string[], width: number): string[] {
  const [first, ...rest] = block as [string, ...string[]];
  if (EXAMPLE.test(first)) {
    const command = [first.replace(/ \\$/, ''), ...rest.map((line) => line.trim().replace(/ \\$/, ''))].join(' ');
    return continueCommand(command, indentOf(first), width);
  }
  const column = textColumn(first);
  const words = [first.slice(column ?? 0), ...rest].join(' ').trim().split(/ +/);
  if (column === undefined) return indented(words, indentOf(first), width);
  const head = first.slice(0, column);
  if (width - column >= MIN_DESCRIPTION_WIDTH || LIST_ENTRY.test(first)) {
    const [line = '', ...more] = indented(words, column, width);
    return [`${head}${line.slice(column)}`, ...more];
  }
  // An item whose term leaves its description too little room: the description goes under it.
  return [head.trimEnd(), ...indented(words, indentOf(first) + STEP, width)];
}

/**
 * Words in lines of at most `width` columns, each indented by `indent` (io/table.ts's wrapping: a word wider than the
 * room is a line of its own, whole).
 */
function indented(words: readonly string[], indent: number, width: number): string[] {
  const pad = ' '.repeat(indent);
  return wrapWords(words.join(' '), width - indent, simpleMeasure, words).map((line) => pad + line);
}

/**
 * A shell command split at spaces outside quotes into lines of at most `width` columns, each but the last ending in
 * ` \` (a line continuation), the later ones indented past the `$`. A comment (`# …`) ends the command: a backslash
 * in it continues nothing, so its words wrap onto lines of their own that start with `#`, after the command's last
 * line. What has no space to break at stays whole, however long.
 */
function continueCommand(line: string, indent: number, width: number): string[] {
  const { pieces, gap, comment } = shellPieces(line.slice(indent));
  const lines: string[] = [];
  let current = ' '.repeat(indent);
  let empty = true;
  for (const piece of withValues(pieces)) {
    // Room for the ` \` the line gets if another piece follows.
    if (!empty && current.length + 1 + piece.length + 2 > width) {
      lines.push(`${current} \\`);
      current = ' '.repeat(indent + STEP);
      empty = true;
    }
    current += empty ? piece : ` ${piece}`;
    empty = false;
  }
  if (comment === undefined) return [...lines, current];
  // As much of the comment as fits after the command's last line, the rest on lines of their own.
  const words = comment.slice(1).trim().split(/ +/);
  const room = width - current.length - gap.length - 2;
  const [beside = ''] = wrapWords(words.join(' '), room, simpleMeasure, words);
  if (simpleMeasure.width(beside) > room) return [...lines, current, ...commentLines(words, indent + STEP, width)];
  const under = words.slice(beside.split(' ').length);
  return [...lines, `${current}${gap}# ${beside}`, ...(under.length === 0 ? [] : commentLines(under, indent + STEP, width))];
}

/** A comment's words on lines of their own, each starting with `# `. */
function commentLines(words: readonly string[], indent: number, width: number): string[] {
  return indented(words, indent + 2, width).map((line) => `${' '.repeat(indent)}# ${line.trimStart()}`);
}

/**
 * The text split at the spaces a shell splits words at (none inside '…' or "…", or after a backslash), up to a
 * comment: a word that starts with `#`, which runs to the end with the spaces before it (`gap`).
 */
function shellPieces(text: string): { pieces: string[]; gap: string; comment?: string } {
  const pieces: string[] = [];
  let piece = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote === undefined && piece === '' && char === '#') {
      const gap = /( *)$/.exec(text.slice(0, i))![1]!;
      return { pieces, gap: gap === '' ? ' ' : gap, comment: text.slice(i) };
    }
    if (quote === undefined && char === ' ') {
      if (piece !== '') pieces.push(piece);
      piece = '';
      continue;
    }
    piece += char;
    if (char === '\\' && quote !== "'" && i + 1 < text.length) piece += text[++i];
    else if (quote === undefined && (char === "'" || char === '"')) quote = char;
    else if (char === quote) quote = undefined;
  }
  if (piece !== '') pieces.push(piece);
  return { pieces, gap: ' ' };
}

/** An option and the value after it (`-f status=pending`) as one piece, so that a break never parts them. */
function withValues(pieces: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const next = pieces[i + 1];
    if (/^-/.test(piece) && !piece.includes('=') && next !== undefined && !/^[-|&;<>()]/.test(next)) {
      joined.push(`${piece} ${next}`);
      i += 1;
    } else joined.push(piece);
  }
  return joined;
}

function isProse(line: string): boolean {
  return line.trim() !== '' && !EXAMPLE.test(line) && !LIST_ENTRY.test(line) && !ITEM.test(line) && !HEADING.test(line);
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
