import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/contract/index.js';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { isDropped } from '../../mocks/core/exchange.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { takeSnapshot } from '../../mocks/state/snapshot.js';
import { fuzzRequest, type FuzzRequest } from './fuzz-requests.js';
import { report } from './report.js';

/**
 * Whatever arrives, the sandbox answers with an envelope, never a 5xx, and a refused request changes nothing.
 * `npm run fuzz` runs the same properties with FUZZ_RUNS (10,000 by default there); the suite runs a sample.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const tally = { cases: 0, statuses: {} as Record<string, number> };

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function checkAnswer(request: FuzzRequest, answer: Answer, before: string, after: string): void {
  tally.cases += 1;
  tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1;
  expect(answer.status, `${request.method} ${request.path.slice(0, 80)}`).toBeLessThan(500);
  expect(answer.contentType).toMatch(/^application\/json/);
  if (request.method !== 'HEAD') {
    const body = JSON.parse(answer.body) as { success?: unknown };
    if (answer.status >= 400) expect(ErrorEnvelope.safeParse(body).success, answer.body.slice(0, 200)).toBe(true);
    else expect(body.success).toBe(true);
  }
  // Only a created order or a token check may change anything; a refusal never does.
  const mayChange =
    (answer.status === 201 && request.method === 'POST') ||
    (answer.status === 200 && request.path.startsWith('/api/v1/auth/token/validate'));
  if (!mayChange) expect(after === before, `state changed by ${request.method} ${request.path.slice(0, 80)} → ${answer.status}`).toBe(true);
}

function headerRecord(headers: [string, string][]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = record[name] === undefined ? value : `${record[name]}, ${value}`;
  return record;
}

const fixedNow = Date.parse('2026-05-01T12:00:00Z');
const state = (sandbox: Sandbox) => JSON.stringify(takeSnapshot(sandbox.store, 0));

describe('fuzzed requests', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ rateLimit: false, now: () => fixedNow });
    server = await startHttpSandbox(sandbox, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
    report('fuzz', tally);
  });

  it(`in-process core: ${RUNS} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const before = state(sandbox);
        const response = await sandbox.handle({
          method: request.method,
          url: `${sandbox.baseUrl}${request.path}`,
          headers: headerRecord(request.headers),
          body: request.body,
          clientAddress: '127.0.0.1',
        });
        expect(isDropped(response)).toBe(false);
        if (isDropped(response)) return;
        checkAnswer(
          request,
          { status: response.status, contentType: response.headers['content-type'] ?? '', body: response.body },
          before,
          state(sandbox),
        );
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);

  it(`raw bytes over a socket: ${Math.ceil(RUNS / 2)} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const before = state(sandbox);
        const answer = await rawExchange(server.url, request);
        checkAnswer(request, answer, before, state(sandbox));
      }),
      { numRuns: Math.ceil(RUNS / 2), ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);
});

/** Sends the request as raw HTTP/1.1 bytes (duplicate headers and all) and reads the whole answer. */
function rawExchange(base: string, request: FuzzRequest): Promise<Answer> {
  const { hostname, port } = new URL(base);
  // CR, LF and NUL would split the request into others; framing attacks are node's parser's job, tested apart.
  const clean = (s: string) => s.replace(/[\r\n\0]/g, '');
  const body = request.body === null ? Buffer.alloc(0) : Buffer.from(request.body, 'utf8');
  const lines = [
    `${clean(request.method)} ${clean(request.path).replace(/ /g, '%20') || '/'} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    'connection: close',
  ];
  for (const [name, value] of request.headers) lines.push(`${name}: ${clean(value)}`);
  if (request.body !== null) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${request.method} ${request.path.slice(0, 80)}`));
    }, 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0)
        return reject(
          new Error(
            `no HTTP answer to ${request.method} ${request.path.slice(0, 80)}: ${JSON.stringify(raw.toString('latin1').slice(0, 100))}`,
          ),
        );
      const headText = raw.subarray(0, split).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]);
      const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(headText)?.[1] ?? '';
      resolve({ status, contentType, body: raw.subarray(split + 4).toString('utf8') });
    });
    socket.write(Buffer.concat([head, body]));
  });
}
