// @ts-check
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runLoadProcess, runWorker, startServer } from '../lib/processes.mjs';
import { buildScaleSnapshot, ORDER_BODY } from '../lib/scale-store.mjs';
import { median } from '../lib/stats.mjs';
import { alternate, checkStatuses } from './http.mjs';

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
   *   heapUsed: number, liveHeap: number, restoreMs: number }} Measured
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
      });
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

  const stateCreate = await persistedCreateLatencies(quick ? 3 : 40);
  log(`scale: with --state, POST p50 ${SIZES.map((orders) => `${orders} orders ${stateCreate.get(orders)?.toFixed(2)} ms`).join(', ')}`);
  /** @param {number} orders */
  const createP50 = (orders) => /** @type {number} */ (stateCreate.get(orders));

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
        // A margin over three full runs of 2026-11-26 (1.03–1.50×); 2× before.
        budget: orders === 100_000 ? { op: '<=', limit: 1.75, of: 'ratio', text: 'p50 ≤ 1.75×' } : undefined,
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
      // The issue-25 goal: the largest store within 1.3× of the smallest. The others: a margin over three full runs of
      // 2026-11-26 (109–135 MB; < 300 MB before).
      budget:
        orders === 100_000 ? { op: '<=', limit: 1.3, of: 'ratio', text: '≤ 1.3×' } : { op: '<', limit: 160, of: 'value', text: '< 160 MB' },
      note: `JS heap ${at(orders).heapUsed.toFixed(0)} MB, of which ${at(orders).liveHeap.toFixed(0)} MB survive a full collection; the rest is garbage V8 had not collected yet, and RSS moves with when it does.`,
    });
  }
  for (const orders of SIZES.slice(1)) {
    rows.push({
      id: `scale.state-create.${orders}`,
      group: 'Scale',
      measure: `POST /api/v1/me/orders at ${orders.toLocaleString('en-US')} orders, \`mock serve --state\`: latency p50`,
      value: createP50(orders),
      display: `${createP50(orders).toFixed(1)} ms`,
      unit: 'ms',
      baseline: `${SIZES[0]}-order store`,
      baselineValue: createP50(SIZES[0] ?? 100),
      baselineDisplay: `${createP50(SIZES[0] ?? 100).toFixed(1)} ms`,
      ratio: createP50(orders) / createP50(SIZES[0] ?? 100),
      // Measured one store after another until 2026-11-29, 20 orders each: the ratio was then mostly the disk's fsync
      // drifting between the stores (0.47–1.19× in runs of the same code), and the budget of 1× missed with it. Taken
      // in turns, three runs of the suite gave 0.93–0.99×.
      budget: orders === 100_000 ? { op: '<=', limit: 1.15, of: 'ratio', text: 'p50 ≤ 1.15×' } : undefined,
      note: 'With a state file, an order is acknowledged only once what it changed is appended to the journal beside the snapshot and fsynced (mocks/state/), so the cost does not grow with the store; before the journal, the whole state was rewritten for every order (≈0.5 s at 100k). The three stores are served at once and take their orders in turn, so that each ratio compares the same seconds of the disk. The rows above are the served sandbox without --state.',
    });
  }
  rows.push(...(await restoreRows({ orders: 100_000, rounds, log })));
  return rows;
}

/**
 * Restoring a store of `orders` orders, each way in a process of its own (bench/store-worker.mjs), against JSON.parse
 * of the same state file timed in that process just before, alternating: `createSandbox({ snapshot })` of the parsed JSON, and opening the
 * state file as `mock serve --state` and the offline CLI do (lock, read, parse, check every record, restore).
 * @param {{ orders: number, rounds: number, log: (line: string) => void }} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
async function restoreRows({ orders, rounds, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'topup-bench-restore-'));
  try {
    const built = await buildScaleSnapshot({ accounts: ACCOUNTS, orders });
    const file = join(dir, 'state.json');
    // With a journal id, as every state file a sandbox wrote has one: opening it then writes nothing.
    writeFileSync(file, JSON.stringify({ ...built.snapshot, journal_id: 'bench' }));
    /** @type {Record<'parse' | 'snapshot' | 'file', number[]>} */
    const times = { parse: [], snapshot: [], file: [] };
    for (let round = 0; round < rounds; round++)
      for (const mode of /** @type {const} */ (['snapshot', 'file'])) {
        const measured = /** @type {{ parse: number, ms: number }} */ (await runWorker('store-worker.mjs', { mode, file }));
        times.parse.push(measured.parse);
        times[mode].push(measured.ms);
      }
    const parse = median(times.parse);
    const snapshot = median(times.snapshot);
    const opened = median(times.file);
    log(
      `scale: ${orders} orders: JSON.parse ${parse.toFixed(0)} ms, createSandbox({ snapshot }) ${snapshot.toFixed(0)} ms, state file ${opened.toFixed(0)} ms`,
    );
    const size = orders.toLocaleString('en-US');
    const baseline = 'JSON.parse of the same state file (its text read before), in the same process just before';
    const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(2)} s`;
    const budget = /** @type {const} */ ({ op: '<=', limit: 3, of: 'ratio' });
    return [
      {
        id: `scale.restore.${orders}`,
        group: 'Scale',
        measure: `Restoring the ${size}-order store from a snapshot (\`createSandbox({ snapshot })\` of the parsed JSON)`,
        value: snapshot,
        display: seconds(snapshot),
        unit: 'ms',
        baseline,
        baselineValue: parse,
        baselineDisplay: seconds(parse),
        ratio: snapshot / parse,
        budget,
        note: "Every record is checked against its table's rule once (a plain predicate, mocks/store/record-rules.ts), then a copy of its fields goes straight into its @msw/data collection in one pass (mocks/store/table.ts insertCheckedAll): made as create() makes a record (its primary key and relation map, under @msw/data's symbols), without create()'s per-record walk, loggers and awaits; one shared empty relation map for all, and the key index the state check built becomes the table's.",
      },
      await compactPrototypeRow({ file, orders, rounds, log }),
      {
        id: `scale.restore-file.${orders}`,
        group: 'Scale',
        measure: `Opening the ${size}-order state file (\`mock serve --state\`, the offline CLI): lock, read, parse, check, restore`,
        value: opened,
        display: seconds(opened),
        unit: 'ms',
        baseline,
        baselineValue: parse,
        baselineDisplay: seconds(parse),
        ratio: opened / parse,
        budget,
        note: "On top of the snapshot restore: reading the file and decoding it to text (two copies of it, about as long as JSON.parse here), and JSON.parse itself. The parsed records are the state file's own, handed to nobody else (mocks/state/snapshot.ts handOver), so the tables keep them as they are, after the same check, instead of copies.",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The heap a store of `orders` orders holds after a full collection, per record: @msw/data's (the sandbox's, through
 * createSandbox) against a prototype of a columnar store (bench/compact-store-worker.mjs), each in a process of its
 * own, alternating. What replacing @msw/data would win, measured beside it rather than done (issue 25).
 * @param {{ file: string, orders: number, rounds: number, log: (line: string) => void }} options
 * @returns {Promise<import('../lib/types.js').Row>}
 */
async function compactPrototypeRow({ file, orders, rounds, log }) {
  /** @typedef {{ parse: number, restore: number, bytesPerRecord: number, heapMb: number }} Held */
  /** @type {Record<'msw' | 'compact', Held[]>} */
  const held = { msw: [], compact: [] };
  for (let round = 0; round < rounds; round++)
    for (const mode of /** @type {const} */ (['msw', 'compact']))
      held[mode].push(/** @type {Held} */ (await runWorker('compact-store-worker.mjs', { mode, file }, ['--expose-gc'])));
  /** @param {Held[]} list @param {keyof Held} field */
  const mid = (list, field) => median(list.map((h) => h[field]));
  const restoreRatio = (/** @type {Held[]} */ list) => median(list.map((h) => h.restore / h.parse));
  const compact = { bytes: mid(held.compact, 'bytesPerRecord'), heap: mid(held.compact, 'heapMb'), restore: restoreRatio(held.compact) };
  const msw = { bytes: mid(held.msw, 'bytesPerRecord'), heap: mid(held.msw, 'heapMb'), restore: restoreRatio(held.msw) };
  log(`scale: ${orders} orders held: @msw/data ${msw.bytes.toFixed(0)} B/record, columnar prototype ${compact.bytes.toFixed(0)} B/record`);
  return {
    id: `scale.compact.${orders}`,
    group: 'Scale',
    measure: `Heap the ${orders.toLocaleString('en-US')}-order store holds, per record: a columnar prototype (bench only, not the sandbox's)`,
    value: compact.bytes,
    display: `${compact.bytes.toFixed(0)} B (${compact.heap.toFixed(0)} MB)`,
    unit: 'B',
    baseline: 'the sandbox on @msw/data, same state',
    baselineValue: msw.bytes,
    baselineDisplay: `${msw.bytes.toFixed(0)} B (${msw.heap.toFixed(0)} MB)`,
    ratio: compact.bytes / msw.bytes,
    note: `@msw/data keeps one object per record with two hidden properties, and its create() gives each a Map (its relations, about 190 bytes even when empty; a restore's records share one empty map, mocks/store/table.ts); its timestamps are boxed numbers (16 bytes each). The prototype (bench/compact-store-worker.mjs) keeps columns: numbers in Float64Arrays, few-valued strings coded in Uint16Arrays, a key index. Restoring into it takes ${compact.restore.toFixed(2)}× JSON.parse of the file, against ${msw.restore.toFixed(2)}× for the sandbox's store. The RSS and restore goals of issue 25 need such a store; replacing @msw/data is left to its own issue.`,
  };
}

/**
 * `topup mock serve --state FILE` for each store size, all started before any is measured: each order is saved (a
 * journal line, fsync) before it is acknowledged. After a few orders each (the first ones pay for compiling and for
 * opening the journal), the servers take one order each in turn (http.mjs alternate: the turn reversed every other
 * time), so that every size meets the same moments of the disk. The median latency per size, in ms.
 * @param {number} count orders measured per size
 * @returns {Promise<Map<number, number>>}
 */
async function persistedCreateLatencies(count) {
  const dir = mkdtempSync(join(tmpdir(), 'topup-bench-state-'));
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = [];
  /** @type {Record<string, () => Promise<number>>} each size's order, by its number of orders */
  const servers = {};
  try {
    for (const orders of SIZES) {
      const built = await buildScaleSnapshot({ accounts: ACCOUNTS, orders });
      const file = join(dir, `state-${orders}.json`);
      writeFileSync(file, JSON.stringify(built.snapshot));
      const child = spawn(
        process.execPath,
        [join(ROOT, 'bin', 'topup.js'), 'mock', 'serve', '--state', file, '--port', '0', '--json', '--no-rate-limit'],
        { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TOPUP_CONFIG_DIR: join(dir, `config-${orders}`) } },
      );
      children.push(child);
      const stdout = /** @type {import('node:stream').Readable} */ (child.stdout);
      const { url } = /** @type {{ url: string }} */ (JSON.parse(await firstLine(stdout)));
      const headers = { authorization: `Bearer ${built.tokens[0]}`, 'content-type': 'application/json' };
      const order = async () => {
        const startedAt = performance.now();
        const response = await fetch(`${url}/api/v1/me/orders`, { method: 'POST', headers, body: ORDER_BODY });
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`mock serve --state with ${orders} orders answered ${response.status}`);
        return performance.now() - startedAt;
      };
      servers[orders] = order;
    }
    await alternate(servers, WARMUP_ORDERS, (order) => order());
    const latencies = await alternate(servers, count, (order) => order());
    return new Map(SIZES.map((orders) => [orders, median(latencies[orders] ?? [])]));
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve(undefined);
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Orders each `mock serve --state` takes before its latency is measured. */
const WARMUP_ORDERS = 5;

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
