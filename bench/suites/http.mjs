// @ts-check
import { connect } from 'node:net';
import { fixtureAccount } from '../../dist/mocks.js';
import { runLoadProcess, startServer } from '../lib/processes.mjs';
import { ORDER_BODY } from '../lib/scale-store.mjs';
import { median } from '../lib/stats.mjs';

/** @typedef {import('../lib/types.js').LoadRequest} LoadRequest */
/** @typedef {import('../lib/types.js').LoadResult} LoadResult */
/** @typedef {{ label: string, status: number, request: LoadRequest }} Endpoint */
/** @typedef {Awaited<ReturnType<typeof recordReplies>>} BareRoutes */

/**
 * The three requests of the HTTP suite; `token` is the demo account's.
 * @param {string} token
 * @returns {Record<'catalog' | 'balance' | 'order', Endpoint>}
 */
export function sandboxRequests(token) {
  const auth = { authorization: `Bearer ${token}` };
  return {
    catalog: {
      label: 'GET /api/v1/catalog/credit-packages',
      status: 200,
      request: { method: 'GET', path: '/api/v1/catalog/credit-packages' },
    },
    balance: { label: 'GET /api/v1/me/balance', status: 200, request: { method: 'GET', path: '/api/v1/me/balance', headers: auth } },
    order: {
      label: 'POST /api/v1/me/orders',
      status: 201,
      request: { method: 'POST', path: '/api/v1/me/orders', headers: { ...auth, 'content-type': 'application/json' }, body: ORDER_BODY },
    },
  };
}

/**
 * Records the sandbox's answer to each request, for the bare server to repeat byte for byte.
 * @param {string} url
 * @param {Record<string, { request: LoadRequest }>} endpoints
 */
export async function recordReplies(url, endpoints) {
  /** @type {Record<string, { status: number, headers: Record<string, string>, body: string }>} */
  const routes = {};
  for (const { request } of Object.values(endpoints)) {
    const response = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: request.headers ?? {},
      body: request.body ?? null,
    });
    /** @type {Record<string, string>} */
    const headers = {};
    response.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
    });
    routes[`${request.method} ${request.path}`] = { status: response.status, headers, body: await response.text() };
  }
  return routes;
}

/**
 * Runs `load` against each server in turn, `rounds` times, and keeps every result per server. Odd rounds go in the
 * reverse order (A B, B A, A B…), so that no server is always the one measured after another's load.
 * @template {string} Name
 * @template Server
 * @template [Result=LoadResult]
 * @param {Record<Name, Server>} servers
 * @param {number} rounds
 * @param {(server: Server, name: Name) => Promise<Result>} load
 * @returns {Promise<Record<Name, Result[]>>}
 */
export async function alternate(servers, rounds, load) {
  const entries = /** @type {[Name, Server][]} */ (Object.entries(servers));
  /** @type {Record<string, Result[]>} */
  const results = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, server] of round % 2 === 0 ? entries : [...entries].reverse()) results[name]?.push(await load(server, name));
  }
  return /** @type {Record<Name, Result[]>} */ (results);
}

/**
 * The median over rounds of `ratioOf(round)`: a ratio of rates measured in the same round, seconds apart. The
 * machine's speed drifts over a run (another tenant's load comes and goes for seconds at a time, and a single round
 * can be a third off), and a ratio of two medians taken over different seconds carries that drift. Two identical
 * sandboxes alternating on this VM (2026-11-26): 0.99-1.06 as the ratio of the medians of three 3 s rounds (1.16
 * with five, in a noisier minute), 1.00-1.02 as the median of six 1.5 s rounds' own ratios.
 * @param {number} rounds
 * @param {(round: number) => number} ratioOf
 */
export function pairedRatio(rounds, ratioOf) {
  return median(Array.from({ length: rounds }, (_, round) => ratioOf(round)));
}

/**
 * @param {readonly LoadResult[]} a
 * @param {readonly LoadResult[]} b
 * @param {number} round
 */
export function rateRatio(a, b, round) {
  return (a[round]?.rps ?? Number.NaN) / (b[round]?.rps ?? Number.NaN);
}

/**
 * Each round's ratio, for the log: how far the rounds spread around the median a row gives.
 * @param {readonly LoadResult[]} a
 * @param {readonly LoadResult[]} b
 */
function roundRatios(a, b) {
  return a.map((_, round) => rateRatio(a, b, round).toFixed(2)).join(' ');
}

/** @param {readonly LoadResult[]} results */
export function summary(results) {
  return { rps: median(results.map((r) => r.rps)), p50: median(results.map((r) => r.p50)), p99: median(results.map((r) => r.p99)) };
}

/**
 * @param {LoadResult} result
 * @param {number} status
 * @param {string} what
 */
export function checkStatuses(result, status, what) {
  const other = Object.keys(result.statuses).filter((s) => Number(s) !== status);
  if (other.length > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(`${what}: expected only ${status}, got ${JSON.stringify(result.statuses)} with ${result.errors} connection errors`);
  }
}

/** Issue 25: an order over HTTP at 2 connections keeps at least 0.6× the rate of a bare node:http server. */
const ORDER_BUDGET = /** @type {const} */ ({ op: '>=', limit: 0.6, of: 'ratio' });
const ORDER_NOTE =
  "Each order parses its body (zod), hashes the token (crypto.hash), builds an invoice and an order from checked values and stores them without a second parse and without @msw/data's create() (Table.insertBuilt: into the collection's list as a restore puts records, which took its CPU per order from about 100 to 81 µs), answers with JSON.stringify, and is kept by the request journal. The collector, whose work grows with the orders the run leaves in the store (about 350 bytes a record on @msw/data), is the largest part of what remains (each round starts from a reset sandbox, and leaves some 30,000 orders in it here); the same adapter answering a constant reply costs about 1.2× bare node:http's CPU per request.";

/**
 * The sandbox over HTTP (`topup mock serve --no-rate-limit`) against a bare node:http server that answers the same
 * bytes, at 2 and 10 connections. Load comes from another process on loopback.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function http({ quick, log }) {
  // Six rounds of 1.5 s rather than three of 3 s: the ratios are taken per round (pairedRatio), and more, shorter
  // rounds follow the machine's drift more closely for the same time under load.
  const durationMs = quick ? 300 : 1_500;
  const warmupMs = quick ? 100 : 500;
  const rounds = quick ? 1 : 6;
  const sandbox = await startServer('sandbox.mjs', { rateLimit: false });
  const endpoints = sandboxRequests(fixtureAccount(sandbox.fixtures, 'demo').token);
  const routes = await recordReplies(sandbox.url, endpoints);
  const bare = await startServer('bare.mjs', { routes });
  /** @type {import('../lib/types.js').Row[]} */
  const rows = [];
  try {
    for (const connections of [2, 10]) {
      for (const [id, endpoint] of Object.entries(endpoints)) {
        const results = await alternate({ sandbox, bare }, rounds, async (server, name) => {
          // Each round of orders starts from the seed: a sandbox keeps at most 200,000 invoices (MAX_SANDBOX_INVOICES),
          // which the rounds together would pass, and then each round measures the same store sizes.
          if (id === 'order' && name === 'sandbox') await resetSandbox(server.url);
          const result = await runLoadProcess({ url: server.url, requests: [endpoint.request], connections, durationMs, warmupMs });
          checkStatuses(result, endpoint.status, `${name} ${endpoint.label}`);
          return result;
        });
        const s = summary(results.sandbox);
        const b = summary(results.bare);
        log(
          `http: ${endpoint.label} at ${connections} connections: ${Math.round(s.rps)} rps (bare ${Math.round(b.rps)}; each round's ratio ${roundRatios(results.sandbox, results.bare)}), p99 ${s.p99.toFixed(2)} ms`,
        );
        rows.push({
          id: `http.${id}.c${connections}.rps`,
          group: 'Sandbox over HTTP',
          measure: `${endpoint.label}, ${connections} connections: requests/s`,
          value: s.rps,
          unit: 'rps',
          baseline: 'bare node:http, same bytes',
          baselineValue: b.rps,
          ratio: pairedRatio(rounds, (round) => rateRatio(results.sandbox, results.bare, round)),
          // Issue 25's goal for the two reads; the order row's is set below.
          budget: connections === 2 && id !== 'order' ? { op: '>=', limit: 0.85, of: 'ratio' } : undefined,
        });
        rows.push({
          id: `http.${id}.c${connections}.latency`,
          group: 'Sandbox over HTTP',
          measure: `${endpoint.label}, ${connections} connections: latency p50 / p99`,
          value: s.p99,
          display: `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} ms`,
          unit: 'ms',
          baseline: 'bare node:http, same bytes',
          baselineValue: b.p99,
          baselineDisplay: `${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} ms`,
          ratio: s.p99 / b.p99,
          // A margin over eight full runs of 2026-11-29 (p99 0.13–0.24 ms for the reads, 0.23–0.34 ms for orders; a
          // p99 of a loud minute can be twice its quiet one: 0.49 ms for a read on 2026-11-26). It was 1.5 and 3 ms,
          // over runs of 2026-11-26, when the order rounds' store grew to 170,000 orders (0.69–2.66 ms).
          budget: connections === 2 ? latencyBudget(id === 'order' ? 1 : 0.5) : undefined,
        });
      }
    }
    // The order row's budget and note, kept apart from the rows' shared shape above.
    const order = rows.find((row) => row.id === 'http.order.c2.rps');
    if (order !== undefined) Object.assign(order, { budget: ORDER_BUDGET, note: ORDER_NOTE });
    rows.push(...(await journalCost({ endpoint: endpoints.catalog, log, durationMs, warmupMs, rounds, routes })));
  } finally {
    await Promise.all([sandbox.stop(), bare.stop()]);
  }
  return rows;
}

/**
 * Sends the sandbox back to its seed (POST /__sandbox/reset; the header marks a control call, as the CLI's do).
 * @param {string} url
 */
async function resetSandbox(url) {
  const answer = await fetch(`${url}/__sandbox/reset`, { method: 'POST', headers: { 'x-topup-sandbox': '1' } });
  if (!answer.ok) throw new Error(`POST /__sandbox/reset answered ${answer.status}`);
  await answer.arrayBuffer();
}

/**
 * What the request journal and its live stream cost: the cheapest request (the catalog, where they weigh most) at 2
 * connections, alternating five servers: the sandbox with its journal on (the default, 1,000 entries) and a reader on
 * its live stream (what the dashboard and `topup mock logs --follow` hold open), the same with no reader, the same
 * with the journal off (--journal-size 0), and bare node:http answering the same bytes, with and without a reader of
 * the same events (bench/servers/bare.mjs `stream`). Three rows:
 * - the journal kept with no reader, against it off (issue 25's ≤ 5 % for the journal);
 * - the live stream: what a reader costs the sandbox, against what the same bytes to the same reader cost bare
 *   node:http (issue 25's ≤ 5 % for the stream, over what moving its bytes costs any server on these cores);
 * - the journal and a reader together against the journal off, as the row was first defined (information).
 * @param {{ endpoint: Endpoint, log: (line: string) => void, durationMs: number, warmupMs: number, rounds: number, routes: BareRoutes }} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
async function journalCost({ endpoint, log, durationMs, warmupMs, rounds, routes }) {
  /** @type {{ stop: () => Promise<unknown> }[]} */
  const started = [];
  /** @type {{ close: () => void }[]} */
  const readers = [];
  /** @param {Parameters<typeof startServer>} args */
  const start = async (...args) => {
    const server = await startServer(...args);
    started.push(server);
    return server;
  };
  try {
    const on = await start('sandbox.mjs', { rateLimit: false });
    const kept = await start('sandbox.mjs', { rateLimit: false });
    const off = await start('sandbox.mjs', { rateLimit: false, journalSize: 0 });
    const stream = { path: STREAM_PATH, event: await recordEvent(on.url, endpoint), batchMs: STREAM_BATCH_MS };
    const bare = await start('bare.mjs', { routes, stream });
    const bareStreamed = await start('bare.mjs', { routes, stream });
    const sandboxReader = await followStream(on.url);
    readers.push(sandboxReader);
    const bareReader = await followStream(bareStreamed.url);
    readers.push(bareReader);
    // Each ratio's two servers run one after the other (the journal off between its two others), so that the
    // machine's drift in a round's ten seconds does not come between them.
    const servers = { kept, off, on, bareStreamed, bare };
    // Twice the rounds of the other rows, and one more: the stream's row is a ratio of four rates, whose spread in runs
    // of the same code (0.89-0.96× in three full runs at eab53de, seven rounds each) was wider than the 5 % it judges.
    const measured = 2 * rounds + 1;
    const results = await alternate(servers, measured, async (server, name) => {
      const result = await runLoadProcess({ url: server.url, requests: [endpoint.request], connections: 2, durationMs, warmupMs });
      checkStatuses(result, endpoint.status, `journal ${name} ${endpoint.label}`);
      return result;
    });
    // Each reader must have had every request its server answered (at least those counted): a reader dropped part of
    // the way would leave rounds measured without it. (Until 2026-11-26 only one event was asked for, and the
    // sandbox dropped its reader whenever one 20 ms batch was over 1 MiB: the row measured the journal, not the stream.)
    for (const [reader, answered, name] of /** @type {const} */ ([
      [sandboxReader, results.on, 'the sandbox'],
      [bareReader, results.bareStreamed, 'bare node:http'],
    ])) {
      const counted = answered.reduce((sum, result) => sum + result.requests, 0);
      if (reader.events() < counted) {
        throw new Error(`the live stream of ${name} sent ${reader.events()} events for ${counted} requests: its reader was dropped`);
      }
    }
    /** @param {LoadResult[]} list */
    const rateOf = (list) => summary(list).rps;
    const [withReader, withJournal, without, bareRps, bareWithReader] = [
      rateOf(results.on),
      rateOf(results.kept),
      rateOf(results.off),
      rateOf(results.bare),
      rateOf(results.bareStreamed),
    ];
    const sandboxShare = pairedRatio(measured, (round) => rateRatio(results.on, results.off, round));
    const bareShare = pairedRatio(measured, (round) => rateRatio(results.bareStreamed, results.bare, round));
    /** @param {number} round */
    const streamRatio = (round) => rateRatio(results.on, results.off, round) / rateRatio(results.bareStreamed, results.bare, round);
    const streamCost = pairedRatio(measured, streamRatio);
    const keptShare = pairedRatio(measured, (round) => rateRatio(results.kept, results.off, round));
    log(
      `http: journal on ${Math.round(withJournal)} rps, with a live-stream reader ${Math.round(withReader)} (${sandboxReader.events()} events), off ${Math.round(without)}; bare ${Math.round(bareRps)}, with a reader ${Math.round(bareWithReader)} (${bareReader.events()} events); each round's ratio, journal on to off ${roundRatios(results.kept, results.off)}, the stream's row ${results.on.map((_, round) => streamRatio(round).toFixed(2)).join(' ')}`,
    );
    return [
      {
        id: 'http.journal-kept.c2.rps',
        group: 'Sandbox over HTTP',
        measure: `${endpoint.label}, 2 connections, request journal on (no reader): requests/s`,
        value: withJournal,
        unit: 'rps',
        baseline: 'the same with the journal off (--journal-size 0)',
        baselineValue: without,
        ratio: keptShare,
        budget: { op: '>=', limit: 0.95, of: 'ratio' },
        note: 'Each answered request is kept as a few references in a columnar ring of 1,000 and built into an entry only when read (mocks/inspect/request-journal.ts).',
      },
      {
        id: 'http.journal-stream.c2.rps',
        group: 'Sandbox over HTTP',
        measure: `${endpoint.label}, 2 connections, request journal on and its live stream read: share of the rate kept`,
        value: sandboxShare,
        display: `${sandboxShare.toFixed(2)}× (${Math.round(withReader).toLocaleString('en-US')} of ${Math.round(without).toLocaleString('en-US')} rps)`,
        unit: 'ratio',
        baseline: 'bare node:http streaming the same events to the same reader: share of its own rate kept',
        baselineValue: bareShare,
        baselineDisplay: `${bareShare.toFixed(2)}× (${Math.round(bareWithReader).toLocaleString('en-US')} of ${Math.round(bareRps).toLocaleString('en-US')} rps)`,
        ratio: streamCost,
        budget: { op: '>=', limit: 0.95, of: 'ratio' },
        note: `A reader is handed each request as the journal's LiveRequest, not as a built entry: its event's JSON in pieces kept as bytes per path for what the last request of that path carried, compared as it came (mocks/inspect/entry-text.ts), its entry built and its secrets cut only when something differs; the live stream sends the events of up to ${STREAM_BATCH_MS} ms as one write, the same buffer to every reader without a filter, each event's own bytes (its id and duration) written between the pieces (mocks/adapters/journal-event.ts). Over node:http the journal keeps a request once its answer is written. The baseline is bare node:http doing only the moving: the same recorded event with a new id line, copied into one buffer per batch (kept and filled again, as the sandbox keeps its own: a new buffer of some 400 KB a batch cost more in fresh pages than filling it), batched the same way, to the same raw-socket reader. What the sandbox pays beyond it (2026-11-29, in one process): keeping the request (about 0.33 µs), its LiveRequest (0.15 µs) and its event's bytes, nearly all of it the copy of some 2.2 KB an event that bare node:http makes too; all on the two cores the load generator and the reader share.`,
      },
      {
        id: 'http.journal.c2.rps',
        group: 'Sandbox over HTTP',
        measure: `${endpoint.label}, 2 connections, request journal on and its live stream read: requests/s`,
        value: withReader,
        unit: 'rps',
        baseline: 'the same with the journal off (--journal-size 0), no reader',
        baselineValue: without,
        ratio: sandboxShare,
        note: `The two rows above together, as this row was first defined; until 2026-11-26 it held issue 25's ≤ 5 % budget, and its reader was dropped by the sandbox after the first batch over 1 MiB, so it mostly measured the journal without a reader. On two cores shared with the load generator and the reader, moving the events costs any server a share of its rate: bare node:http keeps ${bareShare.toFixed(2)}× of its rate in the same run.`,
      },
    ];
  } finally {
    for (const reader of readers) reader.close();
    await Promise.all(started.map((server) => server.stop()));
  }
}

/** The sandbox's live request stream, and the same path on the bare server. */
const STREAM_PATH = '/__sandbox/requests/stream';
/** mocks/adapters/journal-stream.ts LIVE_BATCH_MS (not exported by the package), handed to the bare server's stream. */
const STREAM_BATCH_MS = 20;

/**
 * The event the sandbox's live stream sends for one `endpoint` request, as text: the request sent once, and its
 * journal entry read back (GET /__sandbox/requests), which the stream sends as its data.
 * @param {string} url
 * @param {Endpoint} endpoint
 */
async function recordEvent(url, endpoint) {
  const { request } = endpoint;
  const sent = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers ?? {}, body: request.body ?? null });
  await sent.arrayBuffer();
  const listed = await fetch(`${url}/__sandbox/requests`);
  if (!listed.ok) throw new Error(`GET /__sandbox/requests answered ${listed.status}`);
  const { data } = /** @type {{ data: { requests: { id: number, path: string }[] } }} */ (await listed.json());
  const entry = data.requests.findLast((kept) => kept.path === request.path);
  if (entry === undefined) throw new Error(`the request journal kept no ${endpoint.label}`);
  // Its id line is made anew for each event by the bare server (its own ids, in the sandbox's shape).
  return `id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;
}

const EVENT_LINE = Buffer.from('event: request');

/**
 * A reader of the sandbox's live request stream (GET /__sandbox/requests/stream), in this process, counting the
 * `request` events it receives; resolves once the stream answered 200. A raw socket that counts events on the bytes as
 * they come, without an HTTP parser or decoding: the reader shares the machine's two cores with the server and the
 * load generator, and node's HTTP client reading 2 KB an event cost as much CPU as the server answering the request.
 * (Each batch of events is one chunk of the chunked answer, so chunk framing never cuts an event line.)
 * @param {string} url
 * @returns {Promise<{ events: () => number, close: () => void }>}
 */
function followStream(url) {
  const { hostname, port, host } = new URL(url);
  return new Promise((resolve, reject) => {
    let events = 0;
    let head = '';
    /** @type {Buffer} The last bytes of the previous chunk: an event line cut between two reads is counted across them. */
    let carried = Buffer.alloc(0);
    let opened = false;
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(`GET ${STREAM_PATH} HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\n\r\n`),
    );
    socket.on('data', (/** @type {Buffer} */ chunk) => {
      if (!opened) {
        head += chunk.toString('latin1');
        const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
        if (status === undefined) return;
        opened = true;
        if (status !== '200') {
          reject(new Error(`the live stream answered ${status}`));
          socket.destroy();
          return;
        }
        resolve({ events: () => events, close: () => socket.destroy() });
      }
      if (carried.length > 0 && Buffer.concat([carried, chunk.subarray(0, EVENT_LINE.length - 1)]).includes(EVENT_LINE)) events += 1;
      for (let at = chunk.indexOf(EVENT_LINE); at >= 0; at = chunk.indexOf(EVENT_LINE, at + EVENT_LINE.length)) events += 1;
      carried = chunk.subarray(Math.max(0, chunk.length - EVENT_LINE.length + 1));
    });
    socket.on('error', reject);
  });
}

/**
 * @param {number} ms
 * @returns {NonNullable<import('../lib/types.js').Row['budget']>}
 */
function latencyBudget(ms) {
  return { op: '<', limit: ms, of: 'value', text: `p99 < ${ms} ms` };
}
