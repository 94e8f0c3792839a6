// @ts-check
// Per-call cost of the client (pacing off) against raw fetch, on the same server, in a process of its own.
// argv[2]: { url, calls, rounds }. Prints { client, raw } in milliseconds per call (medians over rounds), and the
// median of the rounds' ratios.
import { createClient } from '../dist/index.js';
import { median } from './lib/stats.mjs';

/** @type {{ url: string, calls: number, rounds: number }} */
const { url, calls, rounds } = JSON.parse(process.argv[2] ?? '{}');
const client = createClient({ baseUrl: url, pacing: false });
const target = `${url}/api/v1/catalog/credit-packages`;

/** What a careful caller does with raw fetch: send, check the status, parse the body. */
async function rawCall() {
  const response = await fetch(target, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`status ${response.status}`);
  return /** @type {{ data: unknown }} */ (await response.json()).data;
}

const clientCall = () => client.catalog.creditPackages();

/**
 * @param {() => Promise<unknown>} call
 * @param {number} n
 */
async function perCall(call, n) {
  const startedAt = performance.now();
  for (let i = 0; i < n; i++) await call();
  return (performance.now() - startedAt) / n;
}

// Warm both paths (JIT, connection pool) before measuring.
await perCall(rawCall, Math.min(200, calls));
await perCall(clientCall, Math.min(200, calls));
/** @type {number[]} */
const raw = [];
/** @type {number[]} */
const viaClient = [];
/** @type {number[]} Each round's client time over its raw time: the two are taken back to back, so drift hits both. */
const ratios = [];
for (let round = 0; round < rounds; round++) {
  // Which goes first alternates, so that neither always meets the machine a moment later.
  const first = round % 2 === 0;
  const a = await perCall(first ? rawCall : clientCall, calls);
  const b = await perCall(first ? clientCall : rawCall, calls);
  const [rawMs, clientMs] = first ? [a, b] : [b, a];
  raw.push(rawMs);
  viaClient.push(clientMs);
  ratios.push(clientMs / rawMs);
}
process.stdout.write(JSON.stringify({ raw: median(raw), client: median(viaClient), ratio: median(ratios) }));
