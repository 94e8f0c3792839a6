// @ts-check
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ROOT, runLoadProcess, startCommand, startServer } from '../lib/processes.mjs';
import { alternate, checkStatuses, recordReplies, sandboxRequests, summary } from './http.mjs';

const PRISM = join(ROOT, 'node_modules', '.bin', 'prism');
const PRISM_VERSION = '5.14.2';
/**
 * The sandbox serves at least this many times Prism's rate: a margin under eight full runs of 2026-11-29 (17.4–25.8×;
 * it was 5×, under three of 2026-11-26, 7.3–9.8×).
 */
const PEER_BUDGET = /** @type {const} */ ({ op: '>=', limit: 15, of: 'ratio' });

/**
 * Prism (a bench-only dev dependency) mocking the same GET from the project's own openapi.json, logging silenced,
 * against the sandbox and the bare server, at 10 connections where a server's throughput shows.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function peer({ quick, log }) {
  const measure = `GET /api/v1/catalog/credit-packages, 10 connections: sandbox ÷ Prism ${PRISM_VERSION} (\`-v silent\`)`;
  if (!existsSync(PRISM)) {
    return [
      {
        id: 'peer.prism',
        group: 'Peer',
        measure,
        status: 'NOT MEASURED',
        note: `@stoplight/prism-cli is not installed (node_modules/.bin/prism is missing); run npm install.`,
        budget: PEER_BUDGET,
      },
    ];
  }
  const durationMs = quick ? 300 : 3_000;
  const warmupMs = quick ? 200 : 1_000;
  const rounds = quick ? 1 : 3;
  const port = await freePort();
  const prismUrl = `http://127.0.0.1:${port}`;
  const endpoint = { request: { method: 'GET', path: '/api/v1/catalog/credit-packages' }, status: 200 };
  const prism = await startCommand(
    PRISM,
    ['mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'silent', 'openapi.json'],
    `${prismUrl}${endpoint.request.path}`,
  );
  const sandbox = await startServer('sandbox.mjs', { rateLimit: false });
  const { catalog } = sandboxRequests(sandbox.fixtures.accounts[0].token);
  const bare = await startServer('bare.mjs', { routes: await recordReplies(sandbox.url, { catalog }) });
  try {
    const results = await alternate({ prism: { url: prismUrl }, sandbox, bare }, rounds, async (server, name) => {
      const result = await runLoadProcess({ url: server.url, requests: [endpoint.request], connections: 10, durationMs, warmupMs });
      checkStatuses(result, endpoint.status, name);
      return result;
    });
    const p = summary(results.prism);
    const s = summary(results.sandbox);
    const b = summary(results.bare);
    log(`peer: Prism ${Math.round(p.rps)} rps, sandbox ${Math.round(s.rps)} rps, bare ${Math.round(b.rps)} rps`);
    return [
      {
        id: 'peer.prism',
        group: 'Peer',
        measure,
        value: s.rps,
        unit: 'rps',
        baseline: `Prism ${PRISM_VERSION}`,
        baselineValue: p.rps,
        ratio: s.rps / p.rps,
        budget: PEER_BUDGET,
        note: `Prism answers from the document's examples and validates each answer against it. Prism alone: ${(p.rps / b.rps).toFixed(2)}× of bare node:http (${Math.round(b.rps).toLocaleString('en-US')} rps), p99 ${p.p99.toFixed(2)} ms.`,
      },
    ];
  } finally {
    await Promise.all([prism.stop(), sandbox.stop(), bare.stop()]);
  }
}
