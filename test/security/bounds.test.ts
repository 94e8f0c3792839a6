import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError } from '../../src/client/index.js';
import { tempConfigDir } from '../support/fake-io.js';
import { baseEnv, ensureBuilt, ROOT, topup } from '../e2e/built-cli.js';
import { spawnServe, type Served } from '../support/spawn-cli.js';
import { MAX_READER_BUFFER_BYTES, MAX_STREAM_READERS } from '../../mocks/adapters/journal-stream.js';

/**
 * Everything bounded (issue 20, section 8), tried as a hostile server or an unlucky user would: a --jq filter that
 * never ends or eats memory, on the built binary with real signals; an answer that inflates to far more than any
 * answer of this API holds, with and without Content-Length; readers of the live request stream that never read.
 */

const MiB = 1024 * 1024;
/** What the bomb inflates to: far past the 8 MiB limit and the 200 MB of growth these tests allow. */
const BOMB_BYTES = 512 * MiB;

let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let bomb: Buffer;

/** `BOMB_BYTES` of zeros, gzipped: some 500 KB on the wire. */
async function gzipBomb(): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < BOMB_BYTES / MiB; i++) if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end();
  await new Promise((resolve) => gzip.once('end', resolve));
  return Buffer.concat(out);
}

/** How a hostile server sends its answer to every request. */
type BombMode = 'gzip with Content-Length' | 'gzip, chunked' | 'plain, chunked, endless';

/** A server we did not write: every path answers 200 with the bomb, as `mode` says. */
async function startBombServer(): Promise<{ url: string; setMode(mode: BombMode): void; close(): Promise<void> }> {
  let mode: BombMode = 'gzip with Content-Length';
  const server: Server = createServer((req, res) => {
    req.resume();
    if (mode === 'plain, chunked, endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(MiB, 0x20);
      res.write('{"success":true,"data":"');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
      return;
    }
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    if (mode === 'gzip with Content-Length') headers['content-length'] = bomb.length;
    res.writeHead(200, headers);
    // Written in pieces so that a chunked answer really is several chunks.
    for (let at = 0; at < bomb.length; at += 64 * 1024) res.write(bomb.subarray(at, at + 64 * 1024));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode: (next) => {
      mode = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: Awaited<ReturnType<typeof startBombServer>>;

beforeAll(async () => {
  ensureBuilt();
  config = tempConfigDir();
  env = baseEnv(config.dir);
  bomb = await gzipBomb();
  server = await startBombServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
  config?.cleanup();
});

/** Runs the built topup and reports its exit, output, and peak RSS (VmHWM, sampled from /proc while it runs). */
function topupWithPeak(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'topup.js'), ...args], {
      cwd: ROOT,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const sample = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        if (hwm !== undefined) peakKb = Math.max(peakKb, Number(hwm));
      } catch {
        // Gone already.
      }
    }, 20);
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      clearTimeout(guard);
      resolve({ code, stdout, stderr, peakMb: peakKb / 1024 });
    });
  });
}

const MODES: BombMode[] = ['gzip with Content-Length', 'gzip, chunked', 'plain, chunked, endless'];

describe('an answer larger than the client reads (a gzip bomb, an endless body)', () => {
  it.each(MODES)('the client over the global fetch: %s → ResponseTooLargeError, memory bounded', async (mode) => {
    server.setMode(mode);
    const client = createClient({ baseUrl: server.url, maxRetries: 0 });
    const before = process.memoryUsage().rss;
    const failure = await client.catalog.creditPackages().then(
      () => undefined,
      (error: unknown) => error,
    );
    const grownMb = (process.memoryUsage().rss - before) / MiB;
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect((failure as Error).message).toBe(
      `The answer from ${server.url} is larger than 8 MiB and was not read (maxResponseBytes sets the limit).`,
    );
    expect(grownMb).toBeLessThan(200);
  });

  it('maxResponseBytes changes the limit, and a larger limit is still enforced', async () => {
    server.setMode('gzip, chunked');
    const client = createClient({ baseUrl: server.url, maxRetries: 0, maxResponseBytes: 1024 });
    await expect(client.request({ method: 'GET', path: '/api/v1/packages' })).rejects.toThrow(
      `The answer from ${server.url} is larger than 1024 bytes and was not read (maxResponseBytes sets the limit).`,
    );
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(8 * MiB);
    expect(() => createClient({ baseUrl: server.url, maxResponseBytes: 0 })).toThrow(
      'The maxResponseBytes option must be an integer from 1 to 9007199254740991.',
    );
  });

  it.each(MODES.flatMap((mode) => [[mode, 'packages'] as const, [mode, 'api'] as const]))(
    'the built CLI: %s, `topup %s` → exit 1 at once, one sentence, RSS bounded',
    async (mode, command) => {
      server.setMode(mode);
      const args = command === 'api' ? ['api', 'packages'] : ['packages'];
      const run = await topupWithPeak([...args, '--base-url', server.url]);
      expect(run.stderr).toBe(
        `Error: The answer from ${server.url} is larger than 8 MiB and was not read (topup reads no more of one answer).\n`,
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.peakMb).toBeLessThan(200);
    },
  );
});

describe('--jq is bounded and hears signals (the built binary)', () => {
  /** Spawns a filter that never ends, sends `signal` once the command runs jq on its data, and times the exit. */
  async function signalled(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; afterSignalMs: number }> {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'topup.js'), '--mock', 'packages', '--jq', 'def f: f; f'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let sentAt = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    // The notice comes once the command runs; jq then spins on the packages (given time to get there on a busy machine).
    child.stderr.setEncoding('utf8').once('data', () => {
      setTimeout(() => {
        sentAt = Date.now();
        child.kill(signal);
      }, 1500);
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    return { code, stdout, afterSignalMs: Date.now() - sentAt };
  }

  it.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('%s while jq spins → exit %i within a second', async (signal, code) => {
    const run = await signalled(signal);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.afterSignalMs).toBeLessThan(1000);
  });

  it('a filter that never ends is stopped after TOPUP_JQ_TIMEOUT_MS with one sentence, exit 1', async () => {
    const run = await topup(['--mock', 'packages', '--jq', 'def f: f; f'], { env: { ...env, TOPUP_JQ_TIMEOUT_MS: '1500' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      '{"success":false,"message":"The --jq expression ran longer than 1500 ms on one value and was stopped (TOPUP_JQ_TIMEOUT_MS sets the limit).","error":{"code":"FAILED","kind":"failed"},"target":{"origin":"http://sandbox.localhost","profile":null,"mode":"sandbox"}}\n',
    );
  });

  it('a filter that eats memory is stopped at TOPUP_JQ_MEMORY_MB with one sentence, exit 1, RSS bounded', async () => {
    const run = await topupWithPeak(['--mock', 'packages', '--jq', '[range(1e9)]'], { TOPUP_JQ_MEMORY_MB: '32' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      '{"success":false,"message":"The --jq expression needed more than 32 MB of memory and was stopped (TOPUP_JQ_MEMORY_MB sets the limit).","error":{"code":"FAILED","kind":"failed"},"target":{"origin":"http://sandbox.localhost","profile":null,"mode":"sandbox"}}\n',
    );
    expect(run.peakMb).toBeLessThan(300);
  });

  it('a limit that is no number is refused in one sentence', async () => {
    const run = await topup(['--mock', 'packages', '--jq', '.'], { env: { ...env, TOPUP_JQ_TIMEOUT_MS: 'soon' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"message":"TOPUP_JQ_TIMEOUT_MS must be a positive whole number, not \\"soon\\"."');
  });
});

describe('the live request stream (`mock serve`, the built binary)', () => {
  let served: Served;
  const ENTRIES = 1000;

  /** The resident memory of the served sandbox, in MB. */
  const serverRssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${served.child.pid}/status`, 'utf8'))![1]) / 1024;

  /** `count` requests whose 16 KB bodies the journal keeps (some 17 MB of journal as JSON per 1000), `at` at a time. */
  async function fill(count: number, at = 8): Promise<void> {
    const agent = new Agent({ keepAlive: true, maxSockets: at });
    const body = JSON.stringify({ note: 'x'.repeat(16_000) });
    const one = () =>
      new Promise<void>((resolve, reject) => {
        const sent = httpRequest(
          `${served.url}/api/v1/auth/token/validate`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (answer) => answer.resume().on('end', resolve),
        );
        sent.on('error', reject);
        sent.end(body);
      });
    for (let done = 0; done < count; done += at) await Promise.all(Array.from({ length: Math.min(at, count - done) }, one));
    agent.destroy();
  }

  /** A raw reader of the stream: resolves with the socket and the first chunk of its answer, then reads no more. */
  function openReader(query: string): Promise<{ socket: Socket; head: string }> {
    const { port } = new URL(served.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(
      `GET /__sandbox/requests/stream${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-topup-sandbox: 1\r\naccept: text/event-stream\r\n\r\n`,
    );
    return new Promise((resolve) =>
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        resolve({ socket, head: chunk.toString('utf8') });
      }),
    );
  }

  beforeAll(async () => {
    served = await spawnServe(['--no-rate-limit'], { HOME: config.dir, TOPUP_CONFIG_DIR: config.dir });
    await fill(ENTRIES);
  }, 60_000);
  afterAll(() => served?.child.kill('SIGKILL'));

  it(`40 idle readers of after_id=0: ${MAX_STREAM_READERS} are served, the rest get 503 with Retry-After, memory stays bounded`, async () => {
    const before = serverRssMb();
    const readers: { socket: Socket; head: string }[] = [];
    for (let i = 0; i < 40; i++) readers.push(await openReader('?after_id=0'));
    // Time for the server to write (or, unbounded, to buffer) its replies.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const grownMb = serverRssMb() - before;
    const statuses = readers.map((r) => r.head.split(' ')[1]);
    expect(statuses).toEqual([...Array<string>(MAX_STREAM_READERS).fill('200'), ...Array<string>(40 - MAX_STREAM_READERS).fill('503')]);
    const refused = readers.at(-1)!.head;
    expect(refused).toMatch(/\r\nretry-after: 5\r\n/i);
    // The body, chunked: its one chunk holds the whole envelope.
    expect(refused).toContain(
      JSON.stringify({
        success: false,
        message: `The sandbox already streams its requests to ${MAX_STREAM_READERS} readers; close one or retry later.`,
        error: { code: 'SERVICE_UNAVAILABLE' },
      }),
    );
    expect(grownMb).toBeLessThan(200);
    for (const reader of readers) reader.socket.destroy();
    // A closed reader frees its place.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await openReader('?after_id=0');
    expect(again.head.split(' ')[1]).toBe('200');
    again.socket.destroy();
  });

  /**
   * A reader of the stream that reads everything: the ids of the request events it got, in order, and a promise for
   * when it has `count` of them. `opened` settles once the stream's first comment came.
   */
  function followEvents(query: string) {
    const { port } = new URL(served.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /__sandbox/requests/stream${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-topup-sandbox: 1\r\n\r\n`);
    const ids: number[] = [];
    let text = '';
    let wanted = Number.POSITIVE_INFINITY;
    let reached: () => void = () => undefined;
    let opened: () => void = () => undefined;
    const open = new Promise<void>((resolve) => (opened = resolve));
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes(': topup sandbox request stream')) opened();
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const id = /^id: (\d+)@\S+$/m.exec(text.slice(0, end))?.[1];
        text = text.slice(end + 2);
        if (id !== undefined) ids.push(Number(id));
      }
      if (ids.length >= wanted) reached();
    });
    const received = (count: number) =>
      new Promise<void>((resolve) => {
        wanted = count;
        reached = resolve;
        if (ids.length >= count) resolve();
      });
    return { socket, ids, opened: open, received };
  }

  it('a reader that reads gets every entry the journal holds once, in order, then the live ones', async () => {
    const reader = followEvents('?after_id=0');
    // The whole journal first (replayed as fast as this reader reads), then 8 live entries.
    await reader.received(ENTRIES);
    const live = reader.received(ENTRIES + 8);
    await fill(8);
    await live;
    reader.socket.destroy();
    expect(reader.ids).toEqual(Array.from({ length: ENTRIES + 8 }, (_, i) => reader.ids[0]! + i));
  }, 30_000);

  it(`a reader that reads is kept when one batch of live entries is larger than ${MAX_READER_BUFFER_BYTES / 1024 / 1024} MiB`, async () => {
    const reader = followEvents('');
    const closed = new Promise<'closed'>((resolve) => reader.socket.once('close', () => resolve('closed')));
    const BURST = 400;
    const all = reader.received(BURST).then(() => 'all' as const);
    // The stream is open (its first comment came) before the requests are sent.
    await reader.opened;
    // 400 requests of 16 KB at once, on 64 connections: some 6.5 MB of entries within a few batches of 20 ms.
    await fill(BURST, 64);
    expect(await Promise.race([all, closed])).toBe('all');
    expect(reader.ids).toHaveLength(BURST);
    reader.socket.destroy();
  }, 60_000);

  it(`a reader that stops reading while requests arrive is dropped once ${MAX_READER_BUFFER_BYTES / 1024 / 1024} MiB wait for it`, async () => {
    const reader = await openReader('');
    const ended = new Promise<void>((resolve) => reader.socket.once('close', () => resolve()));
    // Some 17 MB of live entries: more than the socket buffers and the limit together.
    await fill(ENTRIES);
    reader.socket.resume();
    const guard = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000));
    expect(await Promise.race([ended.then(() => 'closed' as const), guard])).toBe('closed');
  }, 60_000);
});
