// @ts-check
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runLoadProcess, startServer } from '../lib/processes.mjs';
import { buildScaleSnapshot, ORDER_BODY } from '../lib/scale-store.mjs';
import { median } from '../lib/stats.mjs';
import { checkStatuses } from './http.mjs';

const SIZES = [100, 10_000, 100_000];
const ACCOUNTS = 100;
const MB = 1024 * 1024;

/**
 * Stores of 100, 10k and 100k completed orders over 100 accounts, started from a generated snapshot: latency of
 * one client (1 connection) on three requests of one account, and the server's RSS afterwards.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function scale({ quick, log }) {
  const requestsPerRound = quick ? 200 : 2_000;
  const rounds = quick ? 1 : 3;
  /**
   * @typedef {{ label: string, status: number, requests: import('../lib/types.js').LoadRequest[] }} Endpoint
   * @typedef {{ endpoints: Record<string, Endpoint>, latency: Record<string, { p50: number, p99: number }>, rss: number,
   *   heapUsed: number, liveHeap: number, restoreMs: number, stateCreate: number }} Measured
   */
  /** @type {Map<number, Measured>} */
  const measured = new Map();
  /** @param {number} orders */
  const at = (orders) => /** @type {Measured} */ (measured.get(orders));
  for (const orders of SIZES) {
    const server = await startServer('sandbox.mjs', { rateLimit: false, accounts: ACCOUNTS, orders });
    try {
      const auth = { authorization: `Bearer ${server.probe.token}` };
      const endpoints = {
        list: {
          label: 'GET /api/v1/me/orders (first page)',
          status: 200,
          requests: [{ method: 'GET', path: '/api/v1/me/orders', headers: auth }],
        },
        get: {
          label: 'GET /api/v1/me/orders/{invoice}',
          status: 200,
          requests: server.probe.invoices.map((/** @type {string} */ code) => ({
            method: 'GET',
            path: `/api/v1/me/orders/${code}`,
            headers: auth,
          })),
        },
        create: {
          label: 'POST /api/v1/me/orders',
          status: 201,
          requests: [
            { method: 'POST', path: '/api/v1/me/orders', headers: { ...auth, 'content-type': 'application/json' }, body: ORDER_BODY },
          ],
        },
      };
      /** @type {Record<string, import('../lib/types.js').LoadResult[]>} */
      const results = Object.fromEntries(Object.keys(endpoints).map((id) => [id, []]));
      for (let round = 0; round < rounds; round++) {
        for (const [id, endpoint] of Object.entries(endpoints)) {
          const result = await runLoadProcess({
            url: server.url,
            requests: endpoint.requests,
            connections: 1,
            durationMs: 10_000,
            warmupMs: quick ? 50 : 200,
            maxRequests: requestsPerRound,
          });
          checkStatuses(result, endpoint.status, `${orders} orders: ${endpoint.label}`);
          results[id]?.push(result);
        }
      }
      // A moment for the collector, as a server between bursts would have.
      await new Promise((resolve) => setTimeout(resolve, quick ? 100 : 1_000));
      const memory = await server.memory();
      const live = await server.liveMemory();
      measured.set(orders, {
        endpoints,
        latency: Object.fromEntries(
          Object.entries(results).map(([id, list]) => [id, { p50: median(list.map((r) => r.p50)), p99: median(list.map((r) => r.p99)) }]),
        ),
        rss: memory.rss / MB,
        heapUsed: memory.heapUsed / MB,
        liveHeap: live.heapUsed / MB,
        restoreMs: server.restoreMs,
        stateCreate: await persistedCreateLatency(orders, quick ? 3 : 20),
      });
      log(`scale: ${orders} orders with --state: POST p50 ${at(orders).stateCreate.toFixed(1)} ms`);
      log(
        `scale: ${orders} orders: restore ${server.restoreMs.toFixed(0)} ms, RSS ${(memory.rss / MB).toFixed(0)} MB, p50 ${Object.entries(
          at(orders).latency,
        )
          .map(([id, l]) => `${id} ${l.p50.toFixed(3)}`)
          .join(', ')} ms`,
      );
    } finally {
      await server.stop();
    }
  }

  const base = at(SIZES[0] ?? 100);
  /** @type {import('../lib/types.js').Row[]} */
  const rows = [];
  for (const orders of SIZES.slice(1)) {
    for (const [id, endpoint] of Object.entries(base.endpoints)) {
      const now = /** @type {{ p50: number, p99: number }} */ (at(orders).latency[id]);
      const from = /** @type {{ p50: number, p99: number }} */ (base.latency[id]);
      rows.push({
        id: `scale.${id}.${orders}`,
        group: 'Scale',
        measure: `${endpoint.label} at ${orders.toLocaleString('en-US')} orders: latency p50 / p99`,
        value: now.p50,
        display: `${now.p50.toFixed(3)} / ${now.p99.toFixed(3)} ms`,
        unit: 'ms',
        baseline: `${SIZES[0]}-order store`,
        baselineValue: from.p50,
        baselineDisplay: `${from.p50.toFixed(3)} / ${from.p99.toFixed(3)} ms`,
        ratio: now.p50 / from.p50,
        budget: orders === 100_000 ? { op: '<=', limit: 2, of: 'ratio', text: 'p50 ≤ 2×' } : undefined,
      });
    }
  }
  for (const orders of SIZES) {
    rows.push({
      id: `scale.rss.${orders}`,
      group: 'Scale',
      measure: `Server RSS with ${orders.toLocaleString('en-US')} orders, after the requests above`,
      value: at(orders).rss,
      display: `${at(orders).rss.toFixed(0)} MB`,
      unit: 'MB',
      baseline: `${SIZES[0]}-order store`,
      baselineValue: base.rss,
      baselineDisplay: `${base.rss.toFixed(0)} MB`,
      ratio: at(orders).rss / base.rss,
      budget: { op: '<', limit: 300, of: 'value', text: '< 300 MB' },
      note: `JS heap ${at(orders).heapUsed.toFixed(0)} MB, of which ${at(orders).liveHeap.toFixed(0)} MB survive a full collection; the rest is garbage V8 had not collected yet, and RSS moves with when it does.`,
    });
  }
  for (const orders of SIZES.slice(1)) {
    rows.push({
      id: `scale.state-create.${orders}`,
      group: 'Scale',
      measure: `POST /api/v1/me/orders at ${orders.toLocaleString('en-US')} orders, \`mock serve --state\`: latency p50`,
      value: at(orders).stateCreate,
      display: `${at(orders).stateCreate.toFixed(1)} ms`,
      unit: 'ms',
      baseline: `${SIZES[0]}-order store`,
      baselineValue: base.stateCreate,
      baselineDisplay: `${base.stateCreate.toFixed(1)} ms`,
      ratio: at(orders).stateCreate / base.stateCreate,
      budget: orders === 100_000 ? { op: '<=', limit: 2, of: 'ratio', text: 'p50 ≤ 2×' } : undefined,
      note: 'With a state file, an order is acknowledged only once what it changed is appended to the journal beside the snapshot and fsynced (mocks/state/), so the cost does not grow with the store; before the journal, the whole state was rewritten for every order (≈0.5 s at 100k). The rows above are the served sandbox without --state.',
    });
  }
  rows.push({
    id: 'scale.restore.100000',
    group: 'Scale',
    measure: 'Restoring the 100,000-order store from a snapshot (`createSandbox({ snapshot })`)',
    value: at(100_000).restoreMs,
    display: `${(at(100_000).restoreMs / 1000).toFixed(2)} s`,
    unit: 'ms',
    baseline: `${SIZES[0]}-order store`,
    baselineValue: base.restoreMs,
    baselineDisplay: `${base.restoreMs.toFixed(0)} ms`,
    note: 'Every record is validated against its schema; linear in the number of records.',
  });
  return rows;
}

/**
 * `topup mock serve --state FILE` started from the same store: each order is saved (a journal line, fsync)
 * before it is acknowledged, so this is the latency of sequential orders, one at a time.
 */
/**
 * @param {number} orders
 * @param {number} count
 */
async function persistedCreateLatency(orders, count) {
  const dir = mkdtempSync(join(tmpdir(), 'topup-bench-state-'));
  const built = await buildScaleSnapshot({ accounts: ACCOUNTS, orders });
  const file = join(dir, 'state.json');
  writeFileSync(file, JSON.stringify(built.snapshot));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'topup.js'), 'mock', 'serve', '--state', file, '--port', '0', '--json', '--no-rate-limit'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TOPUP_CONFIG_DIR: dir },
    },
  );
  try {
    const { url } = /** @type {{ url: string }} */ (JSON.parse(await firstLine(child.stdout)));
    /** @type {number[]} */
    const latencies = [];
    for (let i = 0; i < count; i++) {
      const startedAt = performance.now();
      const response = await fetch(`${url}/api/v1/me/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${built.tokens[0]}`, 'content-type': 'application/json' },
        body: ORDER_BODY,
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`mock serve --state with ${orders} orders answered ${response.status}`);
      latencies.push(performance.now() - startedAt);
    }
    return median(latencies);
  } finally {
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * @param {import('node:stream').Readable} stream
 * @returns {Promise<string>}
 */
function firstLine(stream) {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (/** @type {string} */ chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    stream.once('end', () => reject(new Error('mock serve ended before it printed its URL')));
  });
}
