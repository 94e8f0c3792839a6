// @ts-check
import { connect } from 'node:net';
import { quantile } from './stats.mjs';

/**
 * A closed-loop HTTP/1.1 load generator on raw sockets: each connection sends one request, waits for the whole
 * answer, records the latency and sends the next. node:http's client costs about as much per request as a bare
 * node:http server, so on two cores it would measure itself; parsing only the status line and Content-Length
 * keeps the generator out of the way. Run it in its own process (load-worker.mjs), never beside the server.
 *
 * @param {{ url: string, requests: { method: string, path: string, headers?: Record<string, string>, body?: string }[],
 *   connections: number, durationMs: number, warmupMs?: number, maxRequests?: number }} options
 *   `maxRequests` ends the run early once that many answers were measured (for requests that grow the store).
 * @returns {Promise<import('./types.js').LoadResult>}
 */
export async function runLoad(options) {
  const target = new URL(options.url);
  const port = Number(target.port || 80);
  const host = target.hostname;
  const wires = options.requests.map((r) => serialise(r, target.host));
  const warmupMs = options.warmupMs ?? 0;
  /** @type {number[]} */
  const latencies = [];
  /** @type {Record<string, number>} */
  const statuses = {};
  let errors = 0;
  let measuring = false;
  let stopping = false;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
  /** @type {() => void} */
  let reachedMax = () => {};
  const enough = new Promise((resolve) => (reachedMax = () => resolve(undefined)));

  const connections = Array.from({ length: options.connections }, (_, index) => drive(index));
  await sleep(warmupMs);
  measuring = true;
  const startedAt = performance.now();
  await Promise.race([sleep(options.durationMs), enough]);
  const elapsedMs = performance.now() - startedAt;
  measuring = false;
  stopping = true;
  await Promise.all(connections);

  return {
    requests: latencies.length,
    rps: latencies.length / (elapsedMs / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    mean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
    statuses,
    errors,
  };

  /**
   * One connection's loop; reconnects if the server closes it.
   * @param {number} index
   */
  async function drive(index) {
    let sent = index;
    while (!stopping) {
      try {
        await session();
      } catch {
        if (measuring) errors += 1;
        if (!stopping) await sleep(10);
      }
    }

    /** @returns {Promise<void>} */
    function session() {
      return new Promise((resolve, reject) => {
        const socket = connect({ port, host, noDelay: true });
        let pending = Buffer.alloc(0);
        let sentAt = 0;
        const next = () => {
          if (stopping) {
            socket.end();
            resolve();
            return;
          }
          sentAt = performance.now();
          socket.write(/** @type {Buffer} */ (wires[sent++ % wires.length]));
        };
        socket.once('connect', next);
        socket.on('data', (chunk) => {
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          for (;;) {
            let answer;
            try {
              answer = parseAnswer(pending);
            } catch (error) {
              socket.destroy(/** @type {Error} */ (error));
              return;
            }
            if (answer === undefined) return;
            pending = pending.subarray(answer.length);
            if (measuring) {
              latencies.push(performance.now() - sentAt);
              statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
              if (latencies.length >= maxRequests) reachedMax();
            }
            if (answer.close) {
              socket.end();
              resolve();
              return;
            }
            next();
          }
        });
        socket.on('error', reject);
        socket.on('close', () => reject(new Error('closed')));
      });
    }
  }
}

/**
 * The wire bytes of one request.
 * @param {import('./types.js').LoadRequest} request
 * @param {string} host
 */
function serialise(request, host) {
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const headers = {
    host,
    connection: 'keep-alive',
    ...request.headers,
    ...(body.length > 0 ? { 'content-length': String(body.length) } : {}),
  };
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Status and total length of the first complete answer in `bytes`, or undefined while it is incomplete.
 * @param {Buffer} bytes
 */
function parseAnswer(bytes) {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length === null) throw new Error(`answer without Content-Length (status ${status}); the generator reads only those`);
  const total = headEnd + 4 + Number(length[1]);
  if (bytes.length < total) return undefined;
  return { status, length: total, close: /\r\nconnection:\s*close/i.test(head) };
}

/**
 * A timer that does not keep the process alive once the run is over.
 * @param {number} ms
 * @returns {Promise<void>}
 */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
