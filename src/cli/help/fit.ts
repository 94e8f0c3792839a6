/*
 * Help text laid out to a width: the terminal's, or 80 columns piped and in the reference (docs/cli.md, the man page).
 * Commander lays out its own lists of options and commands; the texts the commands add after them (what a command
 * does, its examples) are written at about 115 columns, and were printed as written, past the edge of an
 * 80-column terminal. Here, a line that does not fit is wrapped at spaces; nothing is ever cut inside a word, so a
 * URL or a token longer than the width stays whole on a line of its own.
 *
 * Four kinds of line, told apart by their shape:
 * - an example (`  $ topup …`): continued on the next line with ` \`, as a shell reads it, and only at a space
 *   outside quotes, where a backslash and a line break mean nothing else;
 * - an item (`  --json   print …`, `0  ok`: a term, two spaces or more, a description): the description wraps under
 *   itself, or under the term, indented, when the term leaves it too little room;
 * - prose: a run of lines at the same indent, wrapped as one paragraph when one of them does not fit, so that text
 *   written for a wider screen reads as a paragraph again;
 * - a heading (`Examples:`), a blank line, or any line that fits: as it is.
 */

/** The width help is laid out at when stdout is no terminal, and in the reference. */
export const HELP_WIDTH = 80;

/** The width to lay help out at: the terminal's columns (at least 40), or HELP_WIDTH when stdout is no terminal. */
export function helpWidthOf(columns: number | undefined): number {
  return columns === undefined ? HELP_WIDTH : Math.max(MIN_DESCRIPTION_WIDTH, columns);
}

/** Below this many columns for a description beside its term, it goes under the term instead (commander's 40). */
const MIN_DESCRIPTION_WIDTH = 40;
/** How far an item's description, or an example's continuation, is indented past the line's own indent. */
const STEP = 4;

const EXAMPLE = /^( *)\$ /;
const ITEM = /^( *)(\S+(?: \S+)*)( {2,})(\S.*)$/;
/** A short title ending in a colon (`Examples:`, `Exit codes:`), which starts what follows: never joined to it. */
const HEADING = /^ *\S[^.]{0,40}:$/;

/** `text` with every line that is wider than `width` wrapped as its kind wants (see above). */
export function fitHelp(text: string, width: number = HELP_WIDTH): string {
  const lines = text.split('\n');
  if (lines.every((line) => line.length <= width)) return text;
  const out: string[] = [];
  for (let at = 0; at < lines.length;) {
    const line = lines[at]!;
    if (isProse(line)) {
      const indent = indentOf(line);
      let end = at + 1;
      while (end < lines.length && isProse(lines[end]!) && indentOf(lines[end]!) === indent) end += 1;
      const block = lines.slice(at, end);
      out.push(...(block.some((l) => l.length > width) ? wrapWords(block.join(' ').trim().split(/ +/), indent, indent, width) : block));
      at = end;
      continue;
    }
    const item = EXAMPLE.test(line) ? null : ITEM.exec(line);
    if (item !== null) {
      // The lines under its description, at its column, continue it: wrapped with it as one.
      const column = line.length - item[4]!.length;
      let end = at + 1;
      while (end < lines.length && isProse(lines[end]!) && indentOf(lines[end]!) === column) end += 1;
      const group = lines.slice(at, end);
      out.push(...(group.some((l) => l.length > width) ? fitLine(group.map((l) => l.trim()).join(' '), width, item) : group));
      at = end;
      continue;
    }
    out.push(...(line.length <= width ? [line] : fitLine(line, width)));
    at += 1;
  }
  return out.join('\n');
}

/**
 * An example, or a line of another kind, that does not fit; or an item whose description (`text`: it and the lines
 * that continue it, joined) does not.
 */
function fitLine(text: string, width: number, item?: RegExpExecArray): string[] {
  const example = EXAMPLE.exec(text);
  if (example !== null) return continueCommand(text, example[1]!.length, width);
  if (item === undefined) return wrapWords(text.trim().split(/ +/), indentOf(text), indentOf(text), width);
  const [, indent, term, gap] = item as unknown as [string, string, string, string];
  const column = indent.length + term.length + gap.length;
  const words = text.trim().slice(term.length).trim().split(/ +/);
  if (width - column >= MIN_DESCRIPTION_WIDTH) {
    const [first = '', ...rest] = wrapWords(words, column, column, width);
    return [`${indent}${term}${gap}${first.slice(column)}`, ...rest];
  }
  const under = indent.length + STEP;
  return [`${indent}${term}`, ...wrapWords(words, under, under, width)];
}

/**
 * Words laid out in lines of at most `width` columns: the first line indented by `first`, the rest by `rest`. A word
 * wider than what is left of a line gets a line of its own, whole.
 */
function wrapWords(words: readonly string[], first: number, rest: number, width: number): string[] {
  const lines: string[] = [];
  let line = ' '.repeat(first);
  let empty = true;
  for (const word of words) {
    if (word === '') continue;
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(rest);
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * A shell command split at spaces outside quotes into lines of at most `width` columns, each but the last ending in
 * ` \` (a line continuation), the later ones indented past the `$`. A command with no such space that fits stays one
 * line, however long.
 */
function continueCommand(line: string, indent: number, width: number): string[] {
  const pieces = withValues(shellPieces(line.slice(indent)));
  const lines: string[] = [];
  let current = ' '.repeat(indent);
  let empty = true;
  for (const piece of pieces) {
    // Room for the ` \` the line gets if another piece follows.
    if (!empty && current.length + 1 + piece.length + 2 > width) {
      lines.push(`${current} \\`);
      current = ' '.repeat(indent + STEP);
      empty = true;
    }
    current += empty ? piece : ` ${piece}`;
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** The text split at the spaces a shell splits words at: none inside '…' or "…", or after a backslash. */
function shellPieces(text: string): string[] {
  const pieces: string[] = [];
  let piece = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
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
  return pieces;
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
  return line.trim() !== '' && !EXAMPLE.test(line) && !ITEM.test(line) && !HEADING.test(line);
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
