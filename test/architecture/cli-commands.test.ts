/**
 * The CLI's commands stay in rooms (issue 21): one folder per command group, as gh's pkg/cmd/<group>/<verb>, and no
 * import circle among them, lazy `import()` included: splitting a command for lazy loading must move the helper both
 * halves share into a module of its own, not leave it in the first half.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importArrows, sourceFiles, type ImportArrow } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each import circle once, as the files around it (`a.ts → b.ts → a.ts`), starting from its first file by name. */
function importCircles(arrows: readonly ImportArrow[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of arrows) next.set(from, (next.get(from) ?? new Set()).add(to));
  const circles = new Set<string>();
  const walk = (path: string[]): void => {
    for (const to of next.get(path.at(-1)!) ?? []) {
      const at = path.indexOf(to);
      if (at !== -1) {
        const circle = path.slice(at);
        const first = circle.indexOf([...circle].sort()[0]!);
        const turned = [...circle.slice(first), ...circle.slice(0, first)];
        circles.add([...turned, turned[0]].join(' → '));
      } else walk([...path, to]);
    }
  };
  for (const start of [...next.keys()].sort()) walk([start]);
  return [...circles].sort();
}

describe('the CLI commands', () => {
  const arrows = importArrows(ROOT, sourceFiles(ROOT, ['src/cli']));

  it('finds the imports at all', () => {
    expect(arrows.filter((arrow) => arrow.from.startsWith('src/cli/commands/')).length).toBeGreaterThan(100);
  });

  it('have no import circle, lazy import() included', () => {
    expect(importCircles(arrows)).toEqual([]);
  });

  it('live in group folders: no command module loose in src/cli/commands', () => {
    const loose = readdirSync(join(ROOT, 'src/cli/commands'), { withFileTypes: true }).filter((entry) => !entry.isDirectory());
    expect(loose.map((entry) => entry.name)).toEqual([]);
  });
});

describe('the circle finder itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topup-circles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a command split for lazy loading that imports its first half back, and nothing else', () => {
    const files = {
      'cli/api/index.ts':
        "export const apiPath = (p: string) => p;\nexport async function run() {\n  return (await import('./run.js')).runApi;\n}",
      'cli/api/run.ts': "import { apiPath } from './index.js';\nexport const runApi = () => apiPath('x');",
      'cli/auth/index.ts': "import { family } from './family.js';\nexport const login = family;",
      'cli/auth/family.ts': 'export const family = 1;',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    expect(importCircles(importArrows(dir, sourceFiles(dir, ['cli'])))).toEqual(['cli/api/index.ts → cli/api/run.ts → cli/api/index.ts']);
  });
});
