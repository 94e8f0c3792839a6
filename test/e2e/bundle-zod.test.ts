/**
 * The CLI bundle carries zod's core and its English messages, never the rest: the whole of zod (every locale, the
 * JSON Schema converters) cost some 40 ms to compile on each offline run. The zod-subset plugin (scripts/cli-bundle.ts)
 * keeps it out as long as modules use zod only as `z.member`; a `z.core` reached in code brings it all back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './built-cli.js';
import { asciiOnly } from '../../scripts/cli-bundle.js';

function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? bundleFiles(join(dir, entry.name))
      : entry.name.endsWith('.js') || entry.name.endsWith('.cjs')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the CLI bundle', () => {
  beforeAll(() => ensureBuilt());

  it("holds zod's English messages and no other locale", () => {
    const locales = new Set<string>();
    for (const file of bundleFiles(join(ROOT, 'dist', 'cli')))
      for (const [, locale] of readFileSync(file, 'utf8').matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/([\w-]+)\.js$/gm))
        locales.add(locale!);
    expect([...locales]).toEqual(['en']);
  });
});

describe('the CLI bundle is ASCII only (scripts/cli-bundle.ts asciiOnly): node reads one-byte source faster', () => {
  beforeAll(() => ensureBuilt());

  it('every file of it', () => {
    const files = bundleFiles(join(ROOT, 'dist', 'cli'));
    expect(files.length).toBeGreaterThan(20);
    const wide = files.filter((file) => /[\u0080-\uffff]/.test(readFileSync(file, 'utf8')));
    expect(wide).toEqual([]);
  });

  it('escapes what esbuild leaves, in comments and regular expressions, meaning the same', () => {
    const source = '// done \u2713\nexports.r = /a|\u2026/.test(x); /* \u2014 */ exports.s = "\\u2713";';
    const written = asciiOnly(source, 'x.cjs');
    expect(written).toBe('// done \\u2713\nexports.r = /a|\\u2026/.test(x); /* \\u2014 */ exports.s = "\\u2713";');
    const run = (code: string) => {
      const exports: Record<string, unknown> = {};
      runInNewContext(code, { exports, x: 'b\u2026' });
      return { ...exports };
    };
    expect(run(written)).toEqual(run(source));
    expect(run(written)).toEqual({ r: true, s: '\u2713' });
  });

  it('refuses a character it cannot escape: one after a backslash', () => {
    expect(() => asciiOnly('exports.r = /\\\u2026/;', 'y.cjs')).toThrow('y.cjs: a non-ASCII character after a backslash');
  });
});
