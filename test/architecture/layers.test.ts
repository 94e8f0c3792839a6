/**
 * The arrows between the four parts stay one way (STYLE.md, "Data flows one way"): checked on the import graph that
 * TypeScript's own pre-processor reads, so that a lazy `import()` deep in a function counts like any other import.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { arrowsPast, describeArrows, importArrows, sourceFiles, upwardArrows } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARROWS = importArrows(ROOT, sourceFiles(ROOT, ['src', 'mocks']));

/** Bottom-up: a part may import only the parts below it (and files of its own part). */
const PARTS = [['src/contract/'], ['src/abort.ts', 'src/errors.ts'], ['src/client/'], ['mocks/'], ['src/cli/'], ['src/index.ts']];

describe('the parts of the package import one way', () => {
  it('finds the imports at all (the graph is not empty)', () => {
    expect(ARROWS.length).toBeGreaterThan(200);
    expect(ARROWS.some((arrow) => arrow.from.startsWith('src/cli/') && arrow.to.startsWith('mocks/'))).toBe(true);
  });

  it('has no arrow that points up between contract, client, sandbox and CLI', () => {
    expect(describeArrows(upwardArrows(ARROWS, PARTS))).toEqual([]);
  });

  it('keeps the contract free of everything else of ours', () => {
    expect(
      describeArrows(ARROWS.filter((arrow) => arrow.from.startsWith('src/contract/') && !arrow.to.startsWith('src/contract/'))),
    ).toEqual([]);
  });

  it('keeps the client and the sandbox apart', () => {
    expect(describeArrows([...arrowsPast(ARROWS, 'src/client/', 'mocks/'), ...arrowsPast(ARROWS, 'mocks/', 'src/client/')])).toEqual([]);
  });
});

/**
 * The sandbox bottom-up (read it in this order): the ground (request/answer types, router, write lock, faults, the
 * fetch every sandbox offers), the store and its seed data, the rules of the shop, the views and the request journal
 * that inspect it, the state file that persists it, the web pages, the routes, the assembly that composes them into a
 * sandbox, the adapters that serve it (msw, fetch, http), and last the public entry.
 */
const SANDBOX_LAYERS = [
  ['mocks/core/'],
  ['mocks/store/'],
  ['mocks/rules/'],
  ['mocks/inspect/'],
  ['mocks/state/'],
  ['mocks/web/'],
  ['mocks/routes/'],
  ['mocks/assembly/'],
  ['mocks/adapters/'],
  ['mocks/facade/', 'mocks/index.ts'],
];

describe('the sandbox reads bottom-up', () => {
  const sandboxFiles = sourceFiles(ROOT, ['mocks']);

  it('puts every sandbox file in a layer', () => {
    expect(sandboxFiles.filter((file) => !SANDBOX_LAYERS.some((prefixes) => prefixes.some((prefix) => file.startsWith(prefix))))).toEqual(
      [],
    );
  });

  it('has no arrow from a lower layer of the sandbox to a higher one', () => {
    expect(describeArrows(upwardArrows(ARROWS, SANDBOX_LAYERS))).toEqual([]);
  });

  it('is entered by the CLI through its facade only, lazy import() included', () => {
    expect(ARROWS.some((arrow) => arrow.from.startsWith('src/cli/') && arrow.to.startsWith('mocks/facade/'))).toBe(true);
    expect(describeArrows(arrowsPast(ARROWS, 'src/cli/', 'mocks/', ['mocks/facade/']))).toEqual([]);
  });

  it('keeps the facade for the CLI: nothing in the sandbox itself goes through it', () => {
    expect(describeArrows(ARROWS.filter((arrow) => arrow.to.startsWith('mocks/facade/') && !arrow.from.startsWith('src/cli/')))).toEqual(
      [],
    );
  });
});

describe('the checker itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topup-layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }

  it('reports static, type-only, re-exported and dynamic imports that point up, and nothing else', () => {
    write({
      'low/a.ts': "import { b } from './b.js';\nexport const a = b;",
      'low/b.ts': 'export const b = 1;',
      'low/static.ts': "import { top } from '../high/top.js';\nexport const s = top;",
      'low/types.ts': "import type { Top } from '../high/top.js';\nexport type T = Top;",
      'low/reexport.ts': "export { top } from '../high/top.js';",
      'low/lazy.ts': "export async function later() {\n  const { top } = await import('../high/top.js');\n  return top;\n}",
      'low/package.ts': "import { z } from 'zod';\nexport const p = z;",
      'high/top.ts': "import { b } from '../low/b.js';\nexport const top = b;\nexport type Top = number;",
    });
    const arrows = importArrows(dir, sourceFiles(dir, ['low', 'high']));
    expect(describeArrows(upwardArrows(arrows, [['low/'], ['high/']])).sort()).toEqual([
      'low/lazy.ts → high/top.ts',
      'low/reexport.ts → high/top.ts',
      'low/static.ts → high/top.ts',
      'low/types.ts → high/top.ts',
    ]);
  });

  it('reports imports past a facade, dynamic ones included, and not those through it', () => {
    write({
      'app/door.ts': "import type { B } from '../lib/facade/b.js';\nexport type D = B;",
      'app/past.ts': "export async function later() {\n  return (await import('../lib/inner/c.js')).c;\n}",
      'lib/facade/b.ts': "export { c as b, type C as B } from '../inner/c.js';",
      'lib/inner/c.ts': 'export const c = 1;\nexport type C = number;',
    });
    const arrows = importArrows(dir, sourceFiles(dir, ['app', 'lib']));
    expect(describeArrows(arrowsPast(arrows, 'app/', 'lib/', ['lib/facade/']))).toEqual(['app/past.ts → lib/inner/c.ts']);
  });
});
