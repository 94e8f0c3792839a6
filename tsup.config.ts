import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import { withBuildWarnings } from './scripts/build-warnings.js';
import {
  asciiMain,
  commonJsChunks,
  LAZY_EXTENSION,
  lazyChildProcessInCommander,
  lazyImportsFromEsmBuild,
  lazyModules,
  openApiOnDemand,
  zodSubset,
} from './scripts/cli-bundle.js';
import { rawImports } from './scripts/raw-imports.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const define = { __TOPUP_VERSION__: JSON.stringify(version) };

/**
 * Dependencies the library entries bundle rather than import, each for a reason of its own; every other dependency
 * stays external. @msw/data ships only an ES module, which require() could not load in the CommonJS build, and its ES
 * module imports es-toolkit's and es-toolkit/compat's indexes: some 550 files, which took node's ES module loader
 * about 350 ms of every process that imported topup/mocks (every test file of a bot's suite). Bundled, esbuild keeps
 * only the few functions it uses. It is the sandbox's own store: nothing of it is a value a user's copy must match
 * (the collections a test reads come with their own query builders).
 */
const BUNDLED_DEPENDENCIES = ['@msw/data'];

const builds: Options[] = [
  // The library entries keep their dependencies external but one (BUNDLED_DEPENDENCIES): a user's zod and msw must
  // be the ones they get.
  {
    entry: {
      index: 'src/index.ts',
      contract: 'src/contract/index.ts',
      mocks: 'mocks/index.ts',
    },
    // CommonJS too, for runners that load packages with their own require() (Jest by default), which cannot load an
    // ES module. Node itself never loads it: its `module-sync` condition (package.json) picks the ES build for
    // require() as well, so a process holds one copy. Split like the ES build, so that topup and topup/mocks share one
    // copy of each module (one TopupError class) here too.
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    dts: { entry: { index: 'src/index.ts', contract: 'src/contract/index.ts', mocks: 'mocks/index.ts' } },
    splitting: true,
    // In CommonJS, `import.meta.url` (createHandlers finds msw from the package's own place) becomes the file's URL.
    shims: true,
    noExternal: BUNDLED_DEPENDENCIES,
    // dist/cli/ belongs to the CLI build below, which runs at the same time.
    clean: ['!cli/**'],
    sourcemap: false,
    // The sandbox's pages (mocks/web/) import their style, markup and script as text: inlined here.
    esbuildPlugins: [rawImports()],
    define,
  },
  // The CLI bundles its dependencies: resolving and compiling hundreds of small files cost more than anything
  // the commands do (BENCHMARKS.md). Two builds. The eager part (main.ts: commander and the commands) is one
  // CommonJS file, which node starts without its ES module loader; what it loads lazily with import() is split as
  // ES modules, each under a stable entry name (scripts/cli-bundle.ts) that the first requires, and turned into
  // CommonJS too.
  {
    entry: { main: 'src/cli/main.ts' },
    outDir: 'dist/cli',
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    splitting: false,
    clean: false,
    sourcemap: false,
    noExternal: [/.*/],
    esbuildPlugins: [lazyImportsFromEsmBuild(), zodSubset(), lazyChildProcessInCommander(), openApiOnDemand(), rawImports()],
    esbuildOptions(options) {
      // import() of a lazy module becomes require() of its CommonJS file (see the build below): an import() would
      // start node's ES module loader.
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
    // In ASCII only, as the lazy files are (scripts/cli-bundle.ts asciiOnly): node reads it faster.
    onSuccess: async () => asciiMain('dist/cli'),
    define,
  },
  {
    entry: Object.fromEntries(lazyModules().map((lazy) => [lazy.entry, lazy.source])),
    outDir: 'dist/cli',
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    splitting: true,
    // main.cjs belongs to the build above, which runs at the same time.
    clean: ['!main.cjs'],
    sourcemap: false,
    noExternal: [/.*/],
    esbuildPlugins: [zodSubset(), openApiOnDemand(), rawImports()],
    // Split as ES modules (the only format esbuild splits), then each file turned into CommonJS in place, which
    // node loads without its ES module loader: the CLI never starts that loader (scripts/cli-bundle.ts).
    outExtension: () => ({ js: LAZY_EXTENSION }),
    onSuccess: () => commonJsChunks('dist/cli'),
    define,
  },
];

// Built with --silent (package.json): esbuild's warnings are printed by this, not by tsup.
export default defineConfig(withBuildWarnings(builds));
