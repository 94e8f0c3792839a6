/**
 * The sandbox loads its zod-backed parts with import(): createSandbox() before its first answer, the embedded
 * sandbox (createSandboxOnDemand) when a request first needs them (mocks/assembly/pipeline.ts, mocks/routes/orders.ts).
 * Under vitest, a source module is imported through vitest's module runner, which waits on setTimeout: a test that
 * fakes setTimeout first would never see the import finish. Loading them here, once per test file, puts them in the
 * runner's cache; the sandbox still takes its own path to them (the pipeline's promises). Node's own import() of the
 * built package, which is what a bot's tests load, needs no timer: test/package/fake-timers.test.ts.
 */
await import('../../mocks/assembly/endpoint-schemas.js');
await import('../../mocks/rules/order-request.js');
