// @ts-check
// `npm run build` runs it after tsup: two fixes to the bundled declaration files that tsup's bundler cannot make.
//
// 1. Type-only exports. The declaration bundler turns `export type * from './contract/index.js'` (src/index.ts: the
//    contract's types, for `import type`) into a plain `export { … }` of those names, so that
//    `import { GUARANTEED } from 'topup'` type-checked, then failed at run time: the module exports no such value.
//    Every name that a bundled declaration file exports as a value and its module does not export is made `type`
//    here, so TypeScript refuses that import where it is written (test/package/declared-exports.test.ts).
// 2. Optional peers. msw is an optional peer dependency (only createHandlers needs it), yet topup/mocks' declarations
//    import its types: a project without msw, type-checked with skipLibCheck off, failed on "Cannot find module
//    'msw'". That import is marked @ts-ignore: without msw, createHandlers' handlers are typed `any`; with msw, they
//    are msw's own (test/package/msw-optional.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const DIST = new URL('../dist/', import.meta.url);
const require = createRequire(DIST);

/** @param {string} entry @param {'d.ts' | 'd.cts'} extension */
function markTypeOnly(entry, extension, /** @type {Set<string>} */ runtime) {
  const file = new URL(`${entry}.${extension}`, DIST);
  const text = readFileSync(file, 'utf8');
  // The bundler writes each export list at the start of a line; lists inside `declare namespace` are indented.
  const fixed = text.replace(/^export \{([^}]*)\}/gm, (_whole, /** @type {string} */ list) => {
    const parts = list
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    const marked = parts.map((part) => {
      if (part.startsWith('type ')) return part;
      const exported = part.split(/\s+as\s+/).at(-1) ?? part;
      return runtime.has(exported) ? part : `type ${part}`;
    });
    return `export { ${marked.join(', ')} }`;
  });
  const finished = fixed.replace(OPTIONAL_PEER_IMPORT, (line) => `${OPTIONAL_PEER_NOTE}\n${line}`);
  if (finished !== text) writeFileSync(file, finished);
}

/** An import of an optional peer's types, not already marked (the script may run twice on one build). */
const OPTIONAL_PEER_IMPORT = /^(?<!\/\/ @ts-ignore[^\n]*\n)import [^;\n]* from 'msw(?:\/[^']*)?';$/gm;
const OPTIONAL_PEER_NOTE = '// @ts-ignore msw is an optional peer dependency: without it, these types are `any`';

for (const entry of ['index', 'contract', 'mocks']) {
  // The built modules are untyped here: only the names of their exports are read.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const esm = /** @type {object} */ (await import(new URL(`${entry}.js`, DIST).href));
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const cjs = /** @type {object} */ (require(`./${entry}.cjs`));
  markTypeOnly(entry, 'd.ts', new Set(Object.keys(esm)));
  markTypeOnly(entry, 'd.cts', new Set(Object.keys(cjs)));
}
