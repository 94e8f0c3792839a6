/**
 * The CLI bundle carries zod's core and its English messages, never the rest: the whole of zod (every locale, the
 * JSON Schema converters) cost some 40 ms to compile on each offline run. The zod-subset plugin (scripts/cli-bundle.ts)
 * keeps it out as long as modules use zod only as `z.member`; a `z.core` reached in code brings it all back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './built-cli.js';

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
