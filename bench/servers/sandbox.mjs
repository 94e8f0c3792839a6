// @ts-check
// The sandbox over node:http, as `topup mock serve` runs it, started by the bench with options as JSON in argv[2]:
// { rateLimit?: boolean, accounts?: number, orders?: number }. With `orders`, it starts from a generated store.
// The modules `topup mock serve` loads, from the CLI bundle: the server's memory is what users get.
import { createSandbox, startHttpSandbox } from '../../dist/cli/lazy/mocks/facade/serve.cjs';
import { buildScaleSnapshot } from '../lib/scale-store.mjs';

/** @type {{ rateLimit?: boolean, accounts?: number, orders?: number, journalSize?: number }} */
const options = JSON.parse(process.argv[2] ?? '{}');
const { sandbox, probe, buildMs, restoreMs } = await openSandbox();
// Generating the store in this process leaves garbage a real server never makes; collected before serving
// (the bench starts this script with --expose-gc), so that RSS measures the sandbox, not the generator.
if (probe !== undefined) globalThis.gc?.();
const server = await startHttpSandbox(sandbox, { port: 0, host: '127.0.0.1' });

process.on('message', (/** @type {{ type?: string }} */ message) => {
  if (message.type === 'rss') process.send?.(process.memoryUsage());
  // What the server holds, as opposed to what V8 has not collected yet: memory after a full collection.
  if (message.type === 'live') {
    globalThis.gc?.();
    process.send?.(process.memoryUsage());
  }
});
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
process.send?.({ url: server.url, buildMs, restoreMs, probe, fixtures: sandbox.fixtures() });

/** In a function of its own, so that nothing of the generated snapshot outlives it. */
async function openSandbox() {
  if (options.orders === undefined) {
    const journal = options.journalSize === undefined ? {} : { journalSize: options.journalSize };
    return { sandbox: await createSandbox({ rateLimit: options.rateLimit ?? true, ...journal }), buildMs: 0, restoreMs: 0 };
  }
  const builtAt = performance.now();
  const built = await buildScaleSnapshot({ accounts: options.accounts ?? 100, orders: options.orders });
  const restoreAt = performance.now();
  const sandbox = await createSandbox({ rateLimit: options.rateLimit ?? true, snapshot: built.snapshot });
  return {
    sandbox,
    probe: { token: built.tokens[0], invoices: built.invoicesOf.get(built.tokens[0] ?? '') ?? [] },
    buildMs: restoreAt - builtAt,
    restoreMs: performance.now() - restoreAt,
  };
}
