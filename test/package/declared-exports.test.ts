import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';

/*
 * What the declarations let a user import as a value is what the module gives at run time, no more: a name typed as
 * a value and missing at run time type-checks, then fails when the program starts (`topup` once declared every value
 * of the contract, GUARANTEED or Balance's schema, and exported 25). Each entry, as an ES module and as CommonJS, is
 * imported by a user's file that uses every exported name as a value; TypeScript's own errors say which are types.
 */

const ENTRIES = ['index', 'contract', 'mocks'] as const;
let work: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-exports-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every name the declaration file exports, and those a user's `import { name }` may use as a value. */
function declared(declarationFile: string, importer: string, specifier: string): { all: string[]; values: string[] } {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const names = ts.createProgram([declarationFile], options);
  const checker = names.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(names.getSourceFile(declarationFile)!)!;
  const all = checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) => symbol.name)
    .sort();
  // One line per name: a diagnostic on a line says that name is no value.
  const lines = [`import { ${all.join(', ')} } from '${specifier}';`, ...all.map((name) => `void ${name};`)];
  writeFileSync(importer, `${lines.join('\n')}\n`);
  const use = ts.createProgram([importer], options);
  const refused = new Set<string>();
  for (const diagnostic of ts.getPreEmitDiagnostics(use)) {
    if (diagnostic.file?.fileName !== importer || diagnostic.start === undefined) continue;
    const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line;
    if (line === 0) throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    refused.add(all[line - 1]!);
  }
  return { all, values: all.filter((name) => !refused.has(name)) };
}

describe.each(ENTRIES)('dist/%s', (entry) => {
  it('declares as values exactly what the ES module exports', async () => {
    const runtime = Object.keys(await import(pathToFileURL(join(ROOT, 'dist', `${entry}.js`)).href)).sort();
    const { all, values } = declared(
      join(ROOT, 'dist', `${entry}.d.ts`),
      join(work, `${entry}-esm.mts`),
      join(ROOT, 'dist', `${entry}.js`),
    );
    expect(all.length).toBeGreaterThan(runtime.length);
    expect(values).toEqual(runtime);
  });

  it('declares as values exactly what the CommonJS build exports', () => {
    const runtime = Object.keys(createRequire(join(ROOT, 'dist', '/'))(`./${entry}.cjs`) as object)
      .filter((name) => name !== '__esModule')
      .sort();
    const { values } = declared(join(ROOT, 'dist', `${entry}.d.cts`), join(work, `${entry}-cjs.cts`), join(ROOT, 'dist', `${entry}.cjs`));
    expect(values).toEqual(runtime);
  });
});
