import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // The version the build writes in (tsup.config.ts), so that in-process runs print what the built CLI prints.
  define: { __TOPUP_VERSION__: JSON.stringify(version) },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits until its assertion holds. Its 1 s default made a timing test of every wait (the browser
    // suite's pages, a loaded machine); how fast things are is `npm run bench`'s, with budgets.
    expect: { poll: { timeout: 10_000 } },
    // dist/ built once, before the workers start, when a source is newer (test/support/build-once.ts).
    globalSetup: ['test/support/build-once.ts'],
    // Two cores here; more workers only add contention.
    maxWorkers: 2,
    // The sandbox's pages import their style sheets as text (`./style.css?raw`, mocks/web/). With CSS processing off,
    // vitest's default, such an import is an empty string (vitest-dev/vitest#10788); let these through to Vite's own
    // `?raw`, which returns the file's text as the build (scripts/raw-imports.ts) does.
    css: { include: [/\.css\?raw$/] },
    projects: [
      { extends: true, test: { name: 'full', include: ['test/**/*.test.ts'], setupFiles: ['test/support/preload-lazy-sandbox-parts.ts'] } },
      // The whole client and CLI suites a second time, every sandbox answering only what the document guarantees;
      // a test whose expected output differs says both (LEAN in test/support/cli-assertions.ts).
      {
        extends: true,
        test: {
          name: 'lean',
          include: ['test/cli/**/*.test.ts', 'test/client/**/*.test.ts'],
          setupFiles: ['test/support/preload-lazy-sandbox-parts.ts', 'test/support/lean-setup.ts'],
          env: { TOPUP_TEST_LEAN: '1' },
        },
      },
    ],
  },
});
