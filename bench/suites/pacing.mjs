// @ts-check
import { fixtureAccount } from '../../dist/mocks.js';
import { rateClasses } from '../../dist/contract.js';
import { runWorker, startServer } from '../lib/processes.mjs';

const READS = 100;

/**
 * 100 concurrent reads (GET /me/balance) through a client with pacing on, against the sandbox with its limits on.
 * The server's windows are fixed and open at a token's first request, so the fastest any client can finish is
 * one window per `limit` requests after the first batch: 60 s for 100 user reads at 60/min.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function pacing({ quick, realTime, log }) {
  const { limit, windowSeconds } = rateClasses['user-read'];
  const minimumMs = Math.floor((READS - 1) / limit) * windowSeconds * 1000;
  let result;
  if (realTime) {
    const server = await startServer('sandbox.mjs', { rateLimit: true });
    try {
      result = await runWorker('pacing-worker.mjs', {
        reads: READS,
        realTime: true,
        url: server.url,
        token: fixtureAccount(server.fixtures, 'demo').token,
      });
    } finally {
      await server.stop();
    }
  } else {
    result = await runWorker('pacing-worker.mjs', { reads: READS, realTime: false });
  }
  const how = realTime
    ? 'Wall clock, over HTTP against a served sandbox with its limits on (`--real-time`).'
    : 'Virtual clock shared by client and sandbox, in one process through `sandbox.fetch` (run with `--real-time` for the wall-clock minute over HTTP).';
  const tooMany = result.statuses[429] ?? 0;
  log(`pacing: ${READS} reads in ${(result.elapsedMs / 1000).toFixed(2)} s (${realTime ? 'wall' : 'virtual'}), ${tooMany} answers 429`);
  void quick;
  return [
    {
      id: 'pacing.time',
      group: 'Client pacing',
      measure: `${READS} concurrent reads (\`balance.get()\`, ${limit}/min), pacing on: time to finish`,
      value: result.elapsedMs,
      display: `${(result.elapsedMs / 1000).toFixed(2)} s`,
      unit: 'ms',
      baseline: 'the least the limits allow',
      baselineValue: minimumMs,
      baselineDisplay: `${minimumMs / 1000} s`,
      ratio: result.elapsedMs / minimumMs,
      budget: { op: '<=', limit: 1.1, of: 'ratio', text: 'within 10 %' },
      note: how,
    },
    {
      id: 'pacing.429',
      group: 'Client pacing',
      measure: `${READS} concurrent reads, pacing on: answers 429 from the sandbox`,
      value: tooMany,
      display: String(tooMany),
      unit: 'count',
      budget: { op: '==', limit: 0, of: 'value', text: 'none' },
      note: how,
    },
  ];
}
