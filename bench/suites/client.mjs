// @ts-check
import { runWorker, startServer } from '../lib/processes.mjs';

/** The client's per-call cost with pacing off, against raw fetch of the same URL on the same served sandbox.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function client({ quick, log }) {
  const server = await startServer('sandbox.mjs', { rateLimit: false });
  try {
    // Short rounds, many of them, each a pair taken back to back: the ratio is their median. Five rounds of 2,000 calls
    // (a median of each side apart) measured 1.13× to 1.38× in full runs of the same code on the same day.
    const result = await runWorker('client-worker.mjs', { url: server.url, calls: quick ? 100 : 500, rounds: quick ? 1 : 21 });
    log(`client: ${(result.client * 1000).toFixed(0)} µs per call, raw fetch ${(result.raw * 1000).toFixed(0)} µs`);
    return [
      {
        id: 'client.overhead',
        group: 'Client',
        measure: '`client.catalog.creditPackages()`, pacing off: time per call',
        value: result.client,
        display: `${(result.client * 1000).toFixed(0)} µs`,
        unit: 'ms',
        baseline: 'raw `fetch` + status check + `json()`, same server',
        baselineValue: result.raw,
        baselineDisplay: `${(result.raw * 1000).toFixed(0)} µs`,
        ratio: result.ratio,
        budget: { op: '<=', limit: 1.3, of: 'ratio' },
        note: "Sequential calls on one keep-alive connection; both use node's global fetch. The ratio is the median of 21 rounds' ratios, each round 500 calls of each back to back.",
      },
    ];
  } finally {
    await server.stop();
  }
}
