import { vi } from 'vitest';

/**
 * The lean project (vitest.config.ts): every sandbox the client and CLI suites create, in-process, served or embedded,
 * answers only what the interface document guarantees, unless a test asks for `lean: false` itself.
 */
vi.mock('../../mocks/assembly/sandbox.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../mocks/assembly/sandbox.js')>();
  return {
    ...original,
    createSandbox: (options: Parameters<typeof original.createSandbox>[0] = {}) => original.createSandbox({ lean: true, ...options }),
    // The offline CLI's embedded sandbox is made this way (mocks/assembly/persistent-sandbox.ts).
    createSandboxOnDemand: (options: Parameters<typeof original.createSandboxOnDemand>[0] = {}) =>
      original.createSandboxOnDemand({ lean: true, ...options }),
  };
});
