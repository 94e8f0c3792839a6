import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, expectedContents, tableOfContents } from '../support/markdown.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/**
 * The README is what a new user reads in five minutes: at 250 words a minute that is some 1,250 words, and 160 lines
 * leaves room for its code and tables (which are scanned, not read) and little else. Anything longer belongs in a guide.
 */
const README_MAX_LINES = 160;
const README_MAX_WORDS = 1_250;

/** docs/cli.md is generated (`npm run docs`) with a list of its own, checked by test/cli/reference.test.ts. */
const GUIDES = DOCUMENTS.filter((path) => path !== 'docs/cli.md' && path !== 'README.md');

describe('the README', () => {
  it('opens with a table of contents that lists exactly its ## headings, in order', () => {
    const readme = read('README.md');
    const contents = tableOfContents(readme);
    expect(contents, 'README.md has no "## Contents"').toBeDefined();
    expect(contents!.every((entry) => entry.depth === 0)).toBe(true);
    expect(contents).toEqual(expectedContents(readme).filter((entry) => entry.depth === 0));
    expect(contents!.map((e) => e.text)).toEqual(expect.arrayContaining(['Quick start', 'Install', 'Guides', 'Development']));
  });

  it(`reads in five minutes: at most ${README_MAX_LINES} lines and ${README_MAX_WORDS} words`, () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(README_MAX_WORDS);
  });

  it("keeps the contributor's two commands: install-and-run first in the Quick start (.ci/run runs it), then npm test", () => {
    const quickStart = /^## Quick start\n[\s\S]*?^```sh\n([\s\S]*?)```/m.exec(read('README.md'));
    expect(quickStart?.[1]).toBe('npm install && npm run build --silent && node bin/topup.js packages\nnpm test\n');
  });
});

describe('the guides', () => {
  it('are there', () => {
    expect(GUIDES).toEqual(
      expect.arrayContaining(['docs/README.md', 'docs/scripting.md', 'docs/library.md', 'docs/sandbox.md', 'docs/testing-your-bot.md']),
    );
  });

  it.each(GUIDES)('%s: a table of contents that lists exactly its ## and ### headings, when it has two or more', (path) => {
    const guide = read(path);
    const expected = expectedContents(guide);
    const contents = tableOfContents(guide);
    if (expected.length < 2) {
      expect(contents, `${path} has a table of contents but too few headings for one`).toBeUndefined();
      return;
    }
    expect(contents, `${path} has no "## Contents"`).toBeDefined();
    expect(contents).toEqual(expected);
  });
});
