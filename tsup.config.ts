import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    contract: 'src/contract/index.ts',
    mocks: 'mocks/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts', contract: 'src/contract/index.ts', mocks: 'mocks/index.ts' } },
  // Lazy import()s in the CLI must stay lazy, so shared chunks are split out.
  splitting: true,
  clean: true,
  sourcemap: false,
  define: { __TOPUP_VERSION__: JSON.stringify(version) },
});
