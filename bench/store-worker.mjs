// @ts-check
// The sandbox store's costs, each in a process of its own (the modules `topup mock serve` loads, from the CLI bundle).
// argv[2]: { mode, file?, count? }. Prints what the mode measured, in milliseconds:
//   snapshot  createSandbox({ snapshot }) of the state file's parsed JSON
//   file      open the state file as `mock serve --state` and the offline CLI do (lock, read, check, restore), and close
// Both also time JSON.parse of the file's text (read before, not timed) in the same process just before: the
// restore rows' baseline, taken beside each figure so that the machine's drift hits both alike.
//   fresh     `count` fresh createSandbox() one after another: each one's time
//   session   the offline CLI's embedded sandbox on the state file: the first command's load, then `count` more; each
//             one request as a command sends it: `request` 'catalog' (reads no history) or 'orders' (reads it)
//   rewrite   the state file written again as the sandbox writes one (history last, with its layout beside it)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The bundle's modules compiled as the CLI and `topup mock serve` compile them: with the V8 code cache the build made
// (bin/code-cache.js), installed before the first of them loads. Without it, a first operation here also compiled
// the state's read, check and restore from source, which no command pays, and its time moved with that (21-31 ms
// against 13-17 at 10k orders, single runs on 2026-11-28).
const require = createRequire(import.meta.url);
/** @type {{ useCodeCache: (bundle: string) => unknown }} */
const codeCache = require('../bin/code-cache.js');
codeCache.useCodeCache(fileURLToPath(new URL('../dist/cli', import.meta.url)));
/** @type {typeof import('../mocks/facade/serve.js')} */
const { createSandbox, openPersistentSandbox, persistentSandboxSession } = require('../dist/cli/lazy/mocks/facade/serve.cjs');

/** @type {{ mode: string, file?: string, count?: number, request?: 'catalog' | 'orders' }} */
const { mode, file = '', count = 1, request = 'catalog' } = JSON.parse(process.argv[2] ?? '{}');

/** @param {() => unknown} work */
async function timed(work) {
  const startedAt = performance.now();
  await work();
  return performance.now() - startedAt;
}

/** @type {unknown} */
let result;
if (mode === 'snapshot') {
  const text = readFileSync(file, 'utf8');
  /** @type {unknown} */
  let snapshot;
  const parse = await timed(() => (snapshot = JSON.parse(text)));
  result = { parse, ms: await timed(() => createSandbox({ snapshot })) };
} else if (mode === 'file') {
  let text = readFileSync(file, 'utf8');
  const parse = await timed(() => JSON.parse(text));
  text = '';
  result = { parse, ms: await timed(async () => (await openPersistentSandbox(file)).close()) };
} else if (mode === 'fresh') {
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < count; i++) times.push(await timed(() => createSandbox()));
  result = { times };
} else if (mode === 'session') {
  // As src/cli/sandbox/embedded.ts sends one request.
  const session = persistentSandboxSession(file);
  const path = request === 'orders' ? '/api/v1/me/orders' : '/api/v1/catalog/credit-packages';
  // The embedded sandbox's own origin (src/cli/sandbox/embedded.ts: DEFAULT_SANDBOX_URL).
  const url = `http://sandbox.localhost${path}`;
  const command = () =>
    session.use(
      async (/** @type {{ sandbox: import('../mocks/assembly/sandbox.js').Sandbox }} */ { sandbox }) => {
        const answer = await sandbox.handle({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${sandbox.account('demo').token}` },
          body: null,
        });
        if (!('status' in answer) || answer.status !== 200)
          throw new Error(`store-worker: ${path} answered ${JSON.stringify(answer).slice(0, 200)}`);
      },
      // The one request, named as the CLI names it (src/cli/sandbox/embedded.ts): the history is read if it needs it.
      { request: { method: 'GET', url } },
    );
  const first = await timed(command);
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < count; i++) times.push(await timed(command));
  result = { first, times };
} else if (mode === 'rewrite') {
  const opened = await openPersistentSandbox(file, { rateLimit: false });
  await opened.sandbox.control.loadState(opened.sandbox.snapshot());
  await opened.close();
  result = { ok: true };
} else throw new Error(`store-worker: no mode '${mode}'`);
process.stdout.write(JSON.stringify(result));
