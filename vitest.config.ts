import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores here; more workers only add contention.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'full', include: ['test/**/*.test.ts'] } },
      // The whole client and CLI suites a second time, every sandbox answering only what the document guarantees;
      // a test whose expected output differs says both (LEAN in test/support/cli-assertions.ts).
      {
        extends: true,
        test: {
          name: 'lean',
          include: ['test/cli/**/*.test.ts', 'test/client/**/*.test.ts'],
          setupFiles: ['test/support/lean-setup.ts'],
          env: { TOPUP_TEST_LEAN: '1' },
        },
      },
    ],
  },
});
