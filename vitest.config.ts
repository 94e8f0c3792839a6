import { defineConfig } from 'vitest/config';

/**
 * Suites whose tables assert the sandbox's own designed fields (amounts, timestamps, pagination, …) line by line.
 * Against the lean sandbox their commands are checked by test/cli/lean-server.test.ts instead; making each table
 * lean-aware is still to do (see the issue notes).
 */
const DESIGNED_OUTPUT_SUITES = [
  'test/cli/balance.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores here; more workers only add contention.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'full', include: ['test/**/*.test.ts'] } },
      // The client and CLI suites a second time, with every sandbox answering only what the document guarantees.
      {
        extends: true,
        test: {
          name: 'lean',
          include: ['test/cli/**/*.test.ts', 'test/client/**/*.test.ts'],
          exclude: DESIGNED_OUTPUT_SUITES,
          setupFiles: ['test/support/lean-setup.ts'],
          env: { TOPUP_TEST_LEAN: '1' },
        },
      },
    ],
  },
});
