import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Just enough Markdown for the documentation tests: headings with GitHub's anchors, inline links, and a table of
 * contents. Code (fenced blocks and `spans`) is never read as headings or links.
 */

export interface Heading {
  level: number;
  text: string;
  /** The anchor GitHub gives it: `#${anchor}`. */
  anchor: string;
}

export interface Link {
  target: string;
  line: number;
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, each space a `-`. */
export function githubAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text with every fenced block blanked line for line, so that line numbers stay right. */
function withoutFences(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** A line as GitHub shows it for anchors: code spans keep their text, links their label, emphasis goes. */
function plainText(line: string): string {
  return line
    .replace(/(`+)([\s\S]*?)\1/g, '$2')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim();
}

/** Every ATX heading outside code, with its anchor (a repeated one gets `-1`, `-2`, … as on GitHub). */
export function headingsOf(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const headings: Heading[] = [];
  for (const line of withoutFences(markdown)) {
    const match = /^(#{1,6}) (.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const text = plainText(match[2]!);
    const base = githubAnchor(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    headings.push({ level: match[1]!.length, text, anchor: count === 0 ? base : `${base}-${count}` });
  }
  return headings;
}

/** Every inline link and image target outside code: `[label](target)` and `![alt](target)`. */
export function linksOf(markdown: string): Link[] {
  // A code span may run over a line break; blank its text, keeping the line breaks so that line numbers stay right.
  const text = withoutFences(markdown)
    .join('\n')
    .replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
  const links: Link[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: match[1]!, line: index + 1 });
  });
  return links;
}

export interface TocEntry {
  depth: number;
  text: string;
  anchor: string;
}

/** The list under `## Contents`, up to the next heading; undefined when there is no such heading. */
export function tableOfContents(markdown: string): TocEntry[] | undefined {
  const lines = withoutFences(markdown);
  const start = lines.findIndex((line) => line === '## Contents');
  if (start < 0) return undefined;
  const entries: TocEntry[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    if (line.trim() === '') continue;
    const match = /^( *)- \[(.+)\]\(#([^)]+)\)$/.exec(line);
    if (!match) throw new Error(`Not a table-of-contents entry: ${line}`);
    entries.push({ depth: match[1]!.length / 2, text: plainText(match[2]!), anchor: match[3]! });
  }
  return entries;
}

/** What a table of contents must list: every `##` heading but Contents itself, and under each its `###` ones. */
export function expectedContents(markdown: string): TocEntry[] {
  return headingsOf(markdown)
    .filter((h) => (h.level === 2 || h.level === 3) && h.text !== 'Contents')
    .map((h) => ({ depth: h.level - 2, text: h.text, anchor: h.anchor }));
}

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The README and every guide under docs/ (docs/cli.md, generated, included), as paths from the root. */
export const DOCUMENTS = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
