// @ts-check
// 100 concurrent reads through a pacing client against the rate-limited sandbox. argv[2]: { reads, realTime, url? }.
// By default in-process on a virtual clock shared by client and sandbox (the run takes a second, not a minute);
// with realTime, over HTTP against a served sandbox (argv url) on the wall clock. Prints { elapsedMs, statuses }.
import { createClient } from '../dist/index.js';
import { createSandbox } from '../dist/mocks.js';
import { VirtualTime } from './lib/virtual-time.mjs';

/** @type {{ reads: number, realTime?: boolean, url?: string, token?: string }} */
const { reads, realTime, url, token } = JSON.parse(process.argv[2] ?? '{}');
/** @type {Record<number, number>} */
const statuses = {};
/** @param {import('../src/index.js').FetchFunction} fetchFunction @returns {import('../src/index.js').FetchFunction} */
const counted = (fetchFunction) => async (input, init) => {
  const response = await fetchFunction(input, init);
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  return response;
};

let elapsedMs;
if (realTime) {
  const client = createClient({ baseUrl: url ?? '', token, fetch: counted(globalThis.fetch) });
  const startedAt = Date.now();
  await Promise.all(Array.from({ length: reads }, () => client.balance.get()));
  elapsedMs = Date.now() - startedAt;
} else {
  const time = new VirtualTime();
  const sandbox = await createSandbox({ now: time.clock.now });
  const client = createClient({
    baseUrl: sandbox.baseUrl,
    token: sandbox.account('demo').token,
    fetch: counted(sandbox.fetch),
    clock: time.clock,
  });
  const startedAt = time.clock.now();
  await time.run(() => Promise.all(Array.from({ length: reads }, () => client.balance.get())));
  elapsedMs = time.clock.now() - startedAt;
}
process.stdout.write(JSON.stringify({ elapsedMs, statuses }));
