// @ts-check
// A batch of order rows through `client.orders.createMany` (what `topup orders batch` runs) against the sandbox with
// its limits on, on a virtual clock shared by client and sandbox. argv[2]: { rows }. Prints { sentAt, statuses }.
import { createClient } from '../dist/index.js';
import { createSandbox } from '../dist/mocks.js';
import { VirtualTime } from './lib/virtual-time.mjs';

const { rows } = JSON.parse(process.argv[2] ?? '{}');
/** @type {Record<number, number>} */
const statuses = {};
const time = new VirtualTime();
const sandbox = await createSandbox({ now: time.clock.now });
/** @type {import('../src/index.js').FetchFunction} */
const counted = async (input, init) => {
  const response = await sandbox.fetch(input, init);
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  return response;
};
const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: counted, clock: time.clock });
/** @type {number[]} */
const sentAt = [];
const body = (/** @type {number} */ i) => ({
  platform_username: 'BuilderBob',
  place_id: 5001,
  platform_pass_id: 9001,
  client_reference: `bench-${i}`,
});
await time.run(() =>
  client.orders.createMany(
    Array.from({ length: rows }, (_, i) => ({ body: body(i) })),
    { batch: 'bench', onSending: (_row, at) => void sentAt.push(at) },
  ),
);
process.stdout.write(JSON.stringify({ sentAt, statuses }));
