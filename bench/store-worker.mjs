// @ts-check
// The sandbox store's costs, each in a process of its own (the modules `topup mock serve` loads, from the CLI bundle).
// argv[2]: { mode, file?, count? }. Prints what the mode measured, in milliseconds:
//   snapshot  createSandbox({ snapshot }) of the state file's parsed JSON
//   file      open the state file as `mock serve --state` and the offline CLI do (lock, read, check, restore), and close
// Both also time JSON.parse of the file's text (read before, not timed) in the same process just before: the
// restore rows' baseline, taken beside each figure so that the machine's drift hits both alike.
//   fresh     `count` fresh createSandbox() one after another: each one's time
//   session   the offline CLI's embedded sandbox on the state file: the first command's load, then `count` more
import { readFileSync } from 'node:fs';
import { createSandbox, openPersistentSandbox, persistentSandboxSession } from '../dist/cli/lazy/mocks/facade/serve.cjs';

/** @type {{ mode: string, file?: string, count?: number }} */
const { mode, file = '', count = 1 } = JSON.parse(process.argv[2] ?? '{}');

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
  const session = persistentSandboxSession(file);
  const first = await timed(() => session.use(async () => undefined));
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < count; i++) times.push(await timed(() => session.use(async () => undefined)));
  result = { first, times };
} else throw new Error(`store-worker: no mode '${mode}'`);
process.stdout.write(JSON.stringify(result));
