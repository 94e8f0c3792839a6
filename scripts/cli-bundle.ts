import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { transform, type Plugin } from 'esbuild';

/**
 * esbuild plugins for the CLI bundle only; the library build keeps its dependencies as they are.
 * Each one cuts start-up time that BENCHMARKS.md measures.
 */

const ROOT = new URL('../', import.meta.url).pathname;

/**
 * `import { z } from 'zod'` hands esbuild the whole namespace, so every locale and the JSON Schema converters
 * end up in the bundle (760 KB to compile on each offline run). Each of our modules gets a `z` holding only the
 * members that module uses, found by scanning it, so the rest of zod is shaken out, and what only src/contract/openapi/ uses
 * (toJSONSchema) stays in its lazy chunk.
 */
export function zodSubset(): Plugin {
  return {
    name: 'zod-subset',
    setup(build) {
      build.onResolve({ filter: /^zod$/ }, (args) =>
        args.importer.includes('node_modules') ? undefined : { path: args.importer, namespace: 'zod-subset' },
      );
      build.onLoad({ filter: /.*/, namespace: 'zod-subset' }, async (args) => {
        const zod = (await import('zod')) as Record<string, unknown>;
        const source = readFileSync(args.path, 'utf8');
        // Only `import { z } from 'zod'` used as `z.member` can be served this way; anything else fails the build.
        const rest = source.replace(/^import (type )?\{ z \} from 'zod';$/m, '');
        if (rest === source || /from 'zod'/.test(rest) || /\bz\b(?!\s*\.)/.test(rest)) {
          throw new Error(
            `zod-subset: ${args.path} uses zod other than as \`import { z } from 'zod'\` and z.member; update scripts/cli-bundle.ts`,
          );
        }
        const used = new Set([...rest.matchAll(/\bz\s*\.\s*([A-Za-z_$][\w$]*)/g)].map((match) => match[1]!));
        // Type-only names (z.infer, z.ZodType…) are not exports at run time and are left out.
        const names = [...used].filter((name) => zod[name] !== undefined).sort();
        const imports = names.map((name) => `${name} as $${name}`).join(', ');
        const members = names.map((name) => `${JSON.stringify(name)}: $${name}`).join(', ');
        return { resolveDir: ROOT, contents: `import { ${imports} } from 'zod/v4';\nexport const z = { ${members} };\n` };
      });
    },
  };
}

const CONTRACT_INDEX = join(ROOT, 'src', 'contract', 'index.ts');
const OPENAPI_REEXPORT = /^export \{[^}]*\} from '\.\/openapi\.js';$/m;

/**
 * src/contract/index.ts re-exports buildOpenApiDocument for the library. Through it, every chunk that imports the
 * contract from that index (the sandbox does) reached the OpenAPI document's modules statically, so esbuild put them
 * in a chunk the offline commands load and compile (52 KB), although only the sandbox's import() of openapi.js, for
 * GET /openapi.json, uses them. The CLI's builds read the index without that line: the document's modules go to the
 * chunk of that import(). A CLI or sandbox module that imported either name from the index would fail the build.
 */
export function openApiOnDemand(): Plugin {
  return {
    name: 'openapi-on-demand',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]contract[\\/]index\.ts$/ }, (args) => {
        if (args.path !== CONTRACT_INDEX) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!OPENAPI_REEXPORT.test(source)) {
          throw new Error(`openapi-on-demand: ${args.path} no longer re-exports ./openapi.js as expected; update scripts/cli-bundle.ts`);
        }
        return { contents: source.replace(OPENAPI_REEXPORT, ''), loader: 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}

const CHILD_PROCESS_LINE = "const childProcess = require('node:child_process');";

/**
 * commander loads child_process (and with it net and more) at start-up for one feature we never use: subcommands
 * that are separate executables. Loaded on first use instead. The build fails if commander's source changes shape.
 */
export function lazyChildProcessInCommander(): Plugin {
  return {
    name: 'lazy-child-process-in-commander',
    setup(build) {
      build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const uses = source.match(/childProcess\.\w+/g) ?? [];
        if (!source.includes(CHILD_PROCESS_LINE) || uses.some((use) => use !== 'childProcess.spawn')) {
          throw new Error(`lazy-child-process-in-commander: ${args.path} no longer matches; update scripts/cli-bundle.ts`);
        }
        const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
        return { contents: source.replace(CHILD_PROCESS_LINE, lazy), loader: 'js' };
      });
    },
  };
}

/** A module the CLI's code loads with import(): its source file, and its name as an entry of the ES module build. */
export interface LazyModule {
  entry: string;
  source: string;
}

const LAZY_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;
const requireFromRoot = createRequire(`${ROOT}package.json`);

/**
 * Every module that src/cli loads with import(), found by scanning it. The CLI's eager part is a CommonJS bundle
 * (node starts one without its ES module loader: 4 ms of every run); what it loads lazily is built as ES modules
 * with code splitting, each under the entry name given here, which is where the CommonJS bundle imports it from.
 */
export function lazyModules(): LazyModule[] {
  const found = new Map<string, LazyModule>();
  for (const file of sourceFiles(join(ROOT, 'src', 'cli'))) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(LAZY_IMPORT)) {
      const lazy = lazyModuleOf(specifier!, file);
      if (lazy !== undefined) found.set(lazy.entry, lazy);
    }
  }
  return [...found.values()].sort((a, b) => a.entry.localeCompare(b.entry));
}

/** The lazy module `import(specifier)` in `importer` stands for; undefined for node's own modules. */
function lazyModuleOf(specifier: string, importer: string): LazyModule | undefined {
  if (specifier.startsWith('node:')) return undefined;
  if (specifier.startsWith('.')) {
    const source = resolve(dirname(importer), specifier).replace(/\.js$/, '.ts');
    return { entry: `lazy/${relative(ROOT, source).replace(/\.ts$/, '')}`, source };
  }
  return { entry: `lazy/pkg/${specifier}`, source: requireFromRoot.resolve(specifier) };
}

/**
 * For the CommonJS bundle: every import() of a lazy module loads its entry in the lazy build, beside it in dist/cli
 * (esbuild makes it a require()). Node's own modules stay as they are.
 */
export function lazyImportsFromEsmBuild(): Plugin {
  return {
    name: 'lazy-imports-from-esm-build',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const lazy = lazyModuleOf(args.path, args.importer);
        return lazy === undefined ? { path: args.path, external: true } : { path: `./${lazy.entry}.cjs`, external: true };
      });
    },
  };
}

/** The extension of the lazy build's files: CommonJS, once commonJsChunks has turned them. */
export const LAZY_EXTENSION = '.cjs';

/**
 * The lazy build comes out of esbuild as ES modules (esbuild splits code only in that format), named .cjs: this
 * turns each into CommonJS in place. Node then never starts its ES module loader for the CLI, whose first import()
 * cost more than the modules it loaded, nor resolves, links and compiles each chunk as a module (BENCHMARKS.md).
 * import() between them becomes require(); import.meta.url, where a module uses it, becomes its file's URL.
 */
export async function commonJsChunks(dir: string): Promise<void> {
  for (const file of bundleFiles(dir)) {
    // esbuild's comments naming each module's source (`// node_modules/zod/v4/core/api.js`) would be dropped: kept
    // as legal comments through the transform, for whoever reads the bundle (and test/e2e/bundle-zod.test.ts).
    const source = readFileSync(file, 'utf8').replace(SOURCE_COMMENT, '//! $1');
    const usesMeta = source.includes('import.meta.url');
    const { code } = await transform(source, {
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      supported: { 'dynamic-import': false },
      ...(usesMeta ? { define: { 'import.meta.url': '__topupModuleUrl' } } : {}),
      banner: usesMeta ? "const __topupModuleUrl = require('node:url').pathToFileURL(__filename).href;" : '',
      legalComments: 'inline',
      logLevel: 'error',
    });
    writeFileSync(file, ownExports(asciiOnly(code.replace(KEPT_SOURCE_COMMENT, '// $1'), file), file));
  }
}

/** The eager bundle, main.cjs, in ASCII only (asciiOnly), its exports its own (ownExports). */
export function asciiMain(dir: string): void {
  const file = join(dir, 'main.cjs');
  writeFileSync(file, ownExports(asciiOnly(readFileSync(file, 'utf8'), file), file));
}

/** esbuild's helper that makes a CommonJS file's exports from its module's export object, as it writes it. */
const COPIED_EXPORTS = 'var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);';
/** The same helper handing out the module's export object itself, marked as an ES module's. */
const OWN_EXPORTS = 'var __toCommonJS = (mod) => __defProp(mod, "__esModule", { value: true });';

/**
 * `code` whose exports are its module's export object itself rather than a copy of it. esbuild's copy reads each export
 * through a second getter, `() => from[key]`, one function for every name and file, so V8 sees a load by every key at
 * one place and takes its slowest path (a megamorphic keyed load) for every call from one file of the bundle to a
 * function of another: about 1 µs of the sandbox's CPU per catalog request and 3 per order (BENCHMARKS.md). The export
 * object already has a getter per name (live bindings, as the copy had); only the second step goes. A file with
 * another form of the helper fails the build, so that an esbuild that writes it differently is noticed.
 */
export function ownExports(code: string, file: string): string {
  if (!code.includes('var __toCommonJS =')) return code;
  if (!code.includes(COPIED_EXPORTS)) throw new Error(`${file}: esbuild's __toCommonJS is not the one scripts/cli-bundle.ts knows.`);
  return code.replace(COPIED_EXPORTS, OWN_EXPORTS);
}

/**
 * `code` in ASCII only. esbuild escapes every other character in strings, templates and names, but not in comments
 * (ours and zod's) or regular expression literals; and one such character makes node read the whole file as UTF-16:
 * main.cjs (330 KB) took 7 ms to read instead of 1.5, at every start, and V8 handles two-byte source slower. In a
 * comment and in a regular expression, \uXXXX means what the character did (in a comment, nothing); after a
 * backslash it would not, and the build fails instead, for the source to be written another way.
 */
export function asciiOnly(code: string, file: string): string {
  return code.replace(/[\u0080-\uffff]/g, (char, offset: number) => {
    if (code[offset - 1] === '\\')
      throw new Error(`${file}: a non-ASCII character after a backslash (offset ${offset}); escape it in the source.`);
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

const SOURCE_COMMENT = /^\/\/ ([^\s!][^\s]*)$/gm;
const KEPT_SOURCE_COMMENT = /^\/\/! ([^\s]+)$/gm;

/** The lazy build's files: every .cjs in dist/cli but the eager bundle, main.cjs. */
function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return bundleFiles(path);
    return entry.name.endsWith(LAZY_EXTENSION) && path !== join(dir, 'main.cjs') ? [path] : [];
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
