import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import { request as httpRequest } from 'node:http';
import { afterEach, expect } from 'vitest';
import { createFetch } from '../../mocks/adapters/fetch.js';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import type { SandboxResponse } from '../../mocks/core/exchange.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../mocks/assembly/sandbox.js';
import type { SandboxSnapshot } from '../../mocks/state/snapshot.js';
import { withContractCheck } from './openapi-validator.js';
import { fakeClock, type FakeClock } from './fake-clock.js';

/** The two ways every rule is exercised: straight through the fetch adapter, and over a real socket. */
export type Transport = 'in-process' | 'http';
export const transports: readonly Transport[] = ['in-process', 'http'];

export { CLOCK_START, fakeClock, type FakeClock } from './fake-clock.js';

export interface OpenOptions {
  rateLimit?: boolean;
  /** Answer only what the interface document guarantees. */
  lean?: boolean;
  /** The sandbox's clock; by default the harness's fake clock (see `clock`). */
  now?: () => number;
  stateWriter?: SandboxOptions['stateWriter'];
  snapshot?: unknown;
  seed?: unknown;
  faults?: SandboxOptions['faults'];
  autoPay?: SandboxOptions['autoPay'];
  autoExpire?: SandboxOptions['autoExpire'];
  maxInvoices?: SandboxOptions['maxInvoices'];
  /** How injected latency waits; by default the real timer. */
  sleep?: SandboxOptions['sleep'];
}

export interface RequestOptions {
  token?: string | undefined;
  /** Serialised as JSON and sent with Content-Type: application/json. */
  body?: unknown;
  /** Sent as-is; a string gets fetch's own text/plain type unless `headers` says otherwise, bytes get none. */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** Client address to send from (HTTP: the socket's local address on loopback). */
  from?: string;
}

export interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. Tests assert its shape. */
  json: any;
}

export interface TestSandbox {
  readonly transport: Transport;
  readonly sandbox: Sandbox;
  /** Where requests go: the sandbox's own base URL in-process, the server's URL over HTTP. */
  readonly baseUrl: string;
  /** The clock the sandbox reads unless `now` was given. */
  readonly clock: FakeClock;
  /** Contract problems of every answer so far; checked empty after each test. */
  readonly problems: string[];
  request(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** The sandbox state, deep-copied, so that later changes cannot reach it. */
  state(): SandboxSnapshot;
  close(): Promise<void>;
}

export async function open(transport: Transport, options: OpenOptions = {}): Promise<TestSandbox> {
  const clock = fakeClock();
  const sandbox = await createSandbox({
    now: options.now ?? clock.now,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.lean === undefined ? {} : { lean: options.lean }),
    ...(options.stateWriter === undefined ? {} : { stateWriter: options.stateWriter }),
    ...(options.snapshot === undefined ? {} : { snapshot: options.snapshot }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(options.autoPay === undefined ? {} : { autoPay: options.autoPay }),
    ...(options.autoExpire === undefined ? {} : { autoExpire: options.autoExpire }),
    ...(options.maxInvoices === undefined ? {} : { maxInvoices: options.maxInvoices }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  });
  const { handle, problems } = withContractCheck(sandbox.handle, { requireRateLimitHeaders: options.rateLimit !== false });
  const state = () => JSON.parse(JSON.stringify(sandbox.snapshot())) as SandboxSnapshot;

  if (transport === 'in-process') {
    const fetch = createFetch(handle);
    return {
      transport,
      sandbox,
      baseUrl: sandbox.baseUrl,
      clock,
      problems,
      state,
      request: (method, path, opts = {}) =>
        opts.from === undefined
          ? viaFetch(fetch, sandbox.baseUrl, method, path, opts)
          : viaHandle(handle, sandbox.baseUrl, method, path, opts, opts.from),
      close: async () => undefined,
    };
  }

  const server = await startHttpSandbox({ ...sandbox, handle }, { port: 0, host: '127.0.0.1' });
  return {
    transport,
    sandbox,
    baseUrl: server.url,
    clock,
    problems,
    state,
    request: (method, path, opts = {}) =>
      opts.from === undefined
        ? viaFetch(globalThis.fetch, server.url, method, path, opts)
        : viaSocketFrom(server.url, method, path, opts, opts.from),
    close: () => server.close(),
  };
}

/**
 * Opens sandboxes for the tests of the enclosing describe, and after each test closes them
 * and asserts that every answer they gave matched the OpenAPI document.
 */
export function useSandboxes(): (transport: Transport, options?: OpenOptions) => Promise<TestSandbox> {
  const opened: TestSandbox[] = [];
  afterEach(async () => {
    const all = opened.splice(0);
    await Promise.all(all.map((t) => t.close()));
    for (const t of all) expect(t.problems, 'answers that break the OpenAPI document').toEqual([]);
  });
  return async (transport, options) => {
    const t = await open(transport, options);
    opened.push(t);
    return t;
  };
}

/** Control calls go out as topup's own tools send them, with the header a cross-site form cannot send (rules/control-guard.ts). */
function requestHeaders(opts: RequestOptions, path: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (path.startsWith(`${CONTROL_PREFIX}/`)) headers[CONTROL_HEADER] = '1';
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  return { ...headers, ...lowerCased(opts.headers ?? {}) };
}

function requestBody(opts: RequestOptions): string | Uint8Array<ArrayBuffer> | undefined {
  return opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
}

async function viaFetch(fetch: typeof globalThis.fetch, base: string, method: string, path: string, opts: RequestOptions): Promise<Answer> {
  const body = requestBody(opts);
  const response = await fetch(`${base}${path}`, { method, headers: requestHeaders(opts, path), ...(body === undefined ? {} : { body }) });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return answer(response.status, headers, await response.text());
}

async function viaHandle(
  handle: (request: Parameters<Sandbox['handle']>[0]) => Promise<SandboxResponse>,
  base: string,
  method: string,
  path: string,
  opts: RequestOptions,
  from: string,
): Promise<Answer> {
  const body = requestBody(opts);
  const response = await handle({
    method,
    url: `${base}${path}`,
    headers: requestHeaders(opts, path),
    body: body === undefined ? null : typeof body === 'string' ? body : Buffer.from(body).toString('utf8'),
    clientAddress: from,
  });
  if ('drop' in response) throw new Error('the sandbox dropped the connection');
  return answer(response.status, lowerCased(response.headers), response.body);
}

/** node:http rather than fetch, because only it lets a test choose the local address it connects from. */
function viaSocketFrom(base: string, method: string, path: string, opts: RequestOptions, from: string): Promise<Answer> {
  const body = requestBody(opts);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers: requestHeaders(opts, path), localAddress: from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve(answer(res.statusCode ?? 0, headers, Buffer.concat(chunks).toString('utf8')));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function answer(status: number, headers: Record<string, string>, text: string): Answer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, text, json };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

// ---- shared test values ---------------------------------------------------------------------------

/** The fixture accounts by name, read from a fresh sandbox (the seed is deterministic). */
export async function accounts(): Promise<
  Record<'demo' | 'rich' | 'broke' | 'unlinked', { token: string; chat_user_id: string | null; balance: number }>
> {
  const sandbox = await createSandbox({ now: fakeClock().now });
  const byName = Object.fromEntries(sandbox.fixtures().accounts.map((a) => [a.name, a]));
  const pick = (name: string) => {
    const account = byName[name];
    if (account === undefined) throw new Error(`the fixtures have no account named ${name}`);
    return account;
  };
  return { demo: pick('demo'), rich: pick('rich'), broke: pick('broke'), unlinked: pick('unlinked') };
}

/** BuilderBob's 100-credit Speed Coil: the cheapest valid order (12,000). */
export const SIMPLE_ORDER = { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 } as const;

/** The success envelope's `data`, or a failure that shows the whole answer. */
export function dataOf(answer: Answer, status = 200): any {
  expect({ status: answer.status, body: answer.json }).toMatchObject({ status, body: { success: true } });
  return answer.json.data;
}

/** Asserts an error envelope with this status and code (none: no `error` at all) and, when given, exactly these fields. */
export function expectError(answer: Answer, status: number, code?: string, fields?: readonly string[]): void {
  expect({ status: answer.status, body: answer.json }).toMatchObject({ status, body: { success: false, message: expect.any(String) } });
  expect(answer.json.message.length).toBeGreaterThan(0);
  if (code === undefined) {
    expect(answer.json).not.toHaveProperty('error');
    return;
  }
  expect(answer.json.error?.code).toBe(code);
  if (fields !== undefined) expect(answer.json.error?.fields).toEqual(fields);
}
