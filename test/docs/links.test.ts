import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, headingsOf, linksOf, ROOT } from '../support/markdown.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const anchorsByFile = new Map<string, Set<string>>();
/** The anchors of a Markdown file's headings, read once. */
function anchorsOf(path: string): Set<string> {
  let anchors = anchorsByFile.get(path);
  if (!anchors) anchorsByFile.set(path, (anchors = new Set(headingsOf(read(path)).map((h) => h.anchor))));
  return anchors;
}

/** Why each relative link of `path` does not resolve: a missing file, or an anchor no heading of its target has. */
function brokenLinks(path: string): string[] {
  const broken: string[] = [];
  for (const { target, line } of linksOf(read(path))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check here
    const [file = '', anchor] = target.split('#') as [string, string | undefined];
    const resolved = file === '' ? path : normalize(join(dirname(path), decodeURIComponent(file)));
    const where = `${path}:${line} → ${target}`;
    if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
      broken.push(`${where}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(join(ROOT, resolved)).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${where}: an anchor into ${resolved}, which has no headings`);
      continue;
    }
    if (!anchorsOf(resolved).has(anchor)) broken.push(`${where}: ${resolved} has no heading #${anchor}`);
  }
  return broken;
}

describe('the links of the README and the guides', () => {
  it('finds the documents, and links in each', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/library.md', 'docs/cli.md']));
    for (const path of DOCUMENTS) expect(linksOf(read(path)).length, path).toBeGreaterThan(0);
  });

  it.each(DOCUMENTS)('every relative link and #anchor of %s leads to a file and a heading that exist', (path) => {
    expect(brokenLinks(path)).toEqual([]);
  });

  it('reaches every guide from the README, directly or through docs/README.md', () => {
    const linked = new Set(
      ['README.md', 'docs/README.md'].flatMap((from) =>
        linksOf(read(from)).map(({ target }) => relative(ROOT, join(ROOT, dirname(from), target.split('#')[0]!))),
      ),
    );
    for (const path of DOCUMENTS.filter((p) => p !== 'README.md')) expect(linked, path).toContain(path);
  });
});

describe("GitHub's anchors, as the link check computes them", () => {
  it('lower-cases, drops punctuation and backticks, and turns each space into a dash', () => {
    const markdown = [
      '## In any test runner: Jest, vitest, node:test, Playwright, pytest',
      '## `topup api`',
      '## Output: terminal, pipe and --json',
      '```sh',
      '## not a heading',
      '```',
      '## Output: terminal, pipe and --json',
    ].join('\n');
    expect(headingsOf(markdown).map((h) => h.anchor)).toEqual([
      'in-any-test-runner-jest-vitest-nodetest-playwright-pytest',
      'topup-api',
      'output-terminal-pipe-and---json',
      'output-terminal-pipe-and---json-1',
    ]);
  });

  it('reads links outside code only', () => {
    const markdown =
      'See [the guide](docs/a.md#b) and `[not](a-link)`.\n```\n[nor](this)\n```\n![img](x.png) `a code\nspan [over](lines)` [c](d.md)';
    expect(linksOf(markdown)).toEqual([
      { target: 'docs/a.md#b', line: 1 },
      { target: 'x.png', line: 5 },
      { target: 'd.md', line: 6 },
    ]);
  });
});
