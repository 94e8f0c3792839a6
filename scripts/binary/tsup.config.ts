import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { lazyChildProcessInCommander, zodSubset } from '../cli-bundle.js';
import { buildWarnings } from '../build-warnings.js';
import { rawImports } from '../raw-imports.js';
import { assembleBinary, BUNDLE_DIR, BUNDLE_NAME, jqEngineFromAssets } from './sea.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * `npm run build:binary`: the single-file executable (docs/install.md). Node's single executable applications
 * run ONE CommonJS script, so the whole CLI is bundled into one here: every lazy import() inlined (no chunk files
 * beside it), the sandbox's pages inlined as text, the version inlined, and jq-web taken from the executable's assets.
 * Then scripts/binary/sea.ts makes the executable from it and a copy of the node that runs this build.
 */
export default defineConfig({
  entry: { [BUNDLE_NAME]: 'src/cli/binary/entry.ts' },
  outDir: BUNDLE_DIR,
  format: ['cjs'],
  target: 'node20',
  platform: 'node',
  splitting: false,
  clean: true,
  sourcemap: false,
  noExternal: [/.*/],
  // tsup strips `node:` by default; node:sea exists only under its prefix.
  removeNodeProtocol: false,
  esbuildPlugins: [jqEngineFromAssets(), zodSubset(), lazyChildProcessInCommander(), rawImports(), buildWarnings()],
  esbuildOptions(options) {
    // import() of node's own modules becomes require(): a single executable's script has no ES module loader.
    options.supported = { ...options.supported, 'dynamic-import': false };
  },
  define: { __TOPUP_VERSION__: JSON.stringify(version) },
  onSuccess: assembleBinary,
});
