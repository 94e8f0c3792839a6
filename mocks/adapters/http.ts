import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_HEADER, CONTROL_SECRET_HEADER, INSTANCE_HEADER } from '../../src/contract/sandbox-control.js';
import { ApiError, errorReply, isDropped, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';
import { publicOrigin } from '../core/public-origin.js';
import { isControlPath, JOURNAL_PATH } from '../routes/control.js';
import { streamJournal } from './journal-stream.js';
import { controlRefusal, hostnameOf, type ControlGuard } from '../rules/control-guard.js';
import { repeatedHeaderError, SINGLE_VALUED_HEADERS } from '../rules/single-headers.js';
import { MAX_BODY_BYTES, MAX_STATE_BYTES } from '../rules/json-body.js';
import { immediateHandler, type DeferredRecording, type ImmediateHandler, type Sandbox } from '../assembly/sandbox.js';

export interface HttpSandboxOptions {
  port?: number;
  host?: string;
  /**
   * Host names besides the loopback ones (and the address it listens on) under which the control API answers, e.g.
   * a container's service name. Everything else is refused, against DNS rebinding (rules/control-guard.ts).
   */
  allowedHosts?: readonly string[];
  /**
   * The origin written into absolute links (`invoice_url`, …), e.g. `http://sandbox:4010` for a bot in another
   * container. Default: the address it listens on. Never the request's Host header. Its host name may also open the
   * sandbox's pages and control API.
   */
  publicUrl?: string;
  /**
   * When set, every control call (and the dashboard's data calls) must present it in the X-Sandbox-Control-Secret
   * header: the Host check stops browsers only, not other clients on the network. Read it from the environment or a
   * private file, never from a command line (which other users of the machine can see).
   */
  controlSecret?: string;
}

export interface HttpSandbox {
  /** e.g. http://127.0.0.1:4010 */
  readonly url: string;
  /** A random id made at start, sent in the X-Topup-Sandbox-Instance header of every answer: which sandbox answers. */
  readonly instance: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Read past the body limit only far enough to know it is too large. */
const READ_LIMIT = MAX_BODY_BYTES + 1;

/** `topup mock serve`: the sandbox core over node:http, with nothing in between. */
export function startHttpSandbox(sandbox: Sandbox, options: HttpSandboxOptions = {}): Promise<HttpSandbox> {
  const listenHost = options.host ?? '127.0.0.1';
  const linkOrigin = options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl);
  if (options.controlSecret === '') throw new TypeError('The control secret must not be empty.');
  const guard: ControlGuard = {
    allowedHosts: new Set(
      [
        ...(options.allowedHosts ?? []),
        ...(WILDCARD_HOSTS.has(listenHost) ? [] : [hostnameOf(listenHost)]),
        ...(linkOrigin === undefined ? [] : [new URL(linkOrigin).hostname]),
      ].map((name) => name.toLowerCase()),
    ),
    secret: options.controlSecret,
  };
  // The server's own origin, known once it listens (no request comes before): every request URL is built on it.
  const own = { origin: linkOrigin ?? 'http://127.0.0.1' };
  const instance = randomUUID();
  const served: Served = { sandbox, answer: immediateHandler(sandbox), guard, instance };
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    try {
      serve(served, own.origin, req, res);
    } catch {
      res.destroy();
    }
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // Requests node's parser refuses (bad header bytes, oversized headers) still get an envelope, not an empty 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      success: false,
      message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
      error: { code: 'INVALID_HEADER' },
    });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, listenHost, () => {
      server.off('error', reject);
      const { address, port, family } = server.address() as AddressInfo;
      const host = family === 'IPv6' ? `[${address}]` : address;
      own.origin = linkOrigin ?? `http://${host}:${port}`;
      resolve({
        url: `http://${host}:${port}`,
        instance,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), 1_000).unref();
          }),
      });
    });
  });
}

/** Addresses that mean "every interface": the names a request arrives under are then not known in advance. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** Everything one request needs from the server it came to. */
interface Served {
  readonly sandbox: Sandbox;
  readonly answer: ImmediateHandler;
  readonly guard: ControlGuard;
  readonly instance: string;
}

/**
 * One request: its body read when it has one, then answered. No promise when none is needed: a GET that the sandbox
 * answers at once (the catalog, the balance) is written before this returns.
 */
function serve(served: Served, origin: string, req: IncomingMessage, res: ServerResponse): void {
  const path = requestPath(req.url ?? '/');
  const { headers, repeated } = joinedHeaders(req.rawHeaders);
  if (!hasBody(headers)) {
    serveRead(served, origin, path, headers, repeated, NO_BODY, req, res);
    return;
  }
  // A whole state (PUT /__sandbox/state) may be far larger than any request of the interface.
  const loadsState = req.method === 'PUT' && /^\/__sandbox\/state\/?(\?|$)/.test(path);
  readBody(req, loadsState ? MAX_STATE_BYTES + 1 : READ_LIMIT)
    .then((body) => {
      if (loadsState && body.tooLarge) {
        const reply = errorReply(
          new ApiError(
            413,
            `A state to load through the control API is at most ${MAX_STATE_BYTES / 1024 / 1024} MiB; start a sandbox from a larger one with \`topup mock serve --seed FILE\` (or --state FILE).`,
            'PAYLOAD_TOO_LARGE',
          ),
          { [CONTROL_HEADER]: '1' },
        );
        res.setHeader(INSTANCE_HEADER, served.instance);
        res.writeHead(reply.status, reply.headers).end(reply.body);
        req.socket.end();
        return;
      }
      serveRead(served, origin, path, headers, repeated, body, req, res);
    })
    .catch(() => res.destroy());
}

function serveRead(
  served: Served,
  origin: string,
  path: string,
  headers: Record<string, string>,
  repeated: string[],
  body: ReadBody,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  // Kept out of the headers the journal records (and the dashboard and `topup mock logs` show).
  const presentedControlSecret = headers[CONTROL_SECRET_HEADER];
  if (presentedControlSecret !== undefined) delete headers[CONTROL_SECRET_HEADER];
  const request: SandboxRequest = {
    method: req.method ?? 'GET',
    // The Host header is data (the control guard reads it), never part of a URL: only the path comes from the request.
    url: `${origin}${path}`,
    headers,
    body: body.tooLarge ? 'x'.repeat(READ_LIMIT) : body.text,
    clientAddress: req.socket.remoteAddress ?? 'unknown',
    controlGuard: served.guard,
  };
  if (presentedControlSecret !== undefined) request.presentedControlSecret = presentedControlSecret;
  const refusal = repeatedHeaderError(repeated);
  if (refusal === undefined && request.method === 'GET' && path.startsWith(STREAM_PATH) && /^(\?|$)/.test(path.slice(STREAM_PATH.length))) {
    res.setHeader(INSTANCE_HEADER, served.instance);
    const guarded = controlRefusal(request, served.guard);
    if (guarded !== undefined) {
      const reply = errorReply(guarded, { [CONTROL_HEADER]: '1' });
      res.writeHead(reply.status, reply.headers).end(reply.body);
      return;
    }
    streamJournal(served.sandbox, served.instance, request, req, res);
    return;
  }
  // A refused repeated header still says it is the sandbox's on a control path, so that `topup mock` shows it.
  // The request is kept in the journal once its answer is written (requestHandler, in mocks/assembly/sandbox.ts).
  const recording: DeferredRecording = {};
  const response =
    refusal !== undefined ? errorReply(refusal, isControlPath(path) ? { [CONTROL_HEADER]: '1' } : {}) : served.answer(request, recording);
  if (response instanceof Promise)
    response.then((answered) => sendThenKeep(served, answered, body.tooLarge, req, res, recording)).catch(() => res.destroy());
  else sendThenKeep(served, response, body.tooLarge, req, res, recording);
}

function sendThenKeep(
  served: Served,
  response: SandboxResponse,
  tooLarge: boolean,
  req: IncomingMessage,
  res: ServerResponse,
  recording: DeferredRecording,
): void {
  try {
    send(served, response, tooLarge, req, res);
  } finally {
    recording.keep?.();
  }
}

function send(served: Served, response: SandboxResponse, tooLarge: boolean, req: IncomingMessage, res: ServerResponse): void {
  if (isDropped(response)) {
    req.socket.destroy();
    return;
  }
  // Every header in one object, the instance first as always: node:http then writes them without its setHeader() path.
  res.writeHead(response.status, {
    [INSTANCE_HEADER]: served.instance,
    ...response.headers,
    'content-length': Buffer.byteLength(response.body),
  });
  res.end(response.body);
  if (tooLarge) req.socket.end();
}

/**
 * The path and query of a request target. Origin-form (`/path?query`) as it is; absolute-form (`http://host/path`,
 * which HTTP/1.1 servers must accept) without its authority, which names no one we answer for; anything else is `/`.
 */
export function requestPath(target: string): string {
  if (target.startsWith('/')) return target;
  try {
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return `${url.pathname}${url.search}`;
  } catch {
    // Not a URL either (`*` of OPTIONS): the root, which answers 404 with the nearest route.
  }
  return '/';
}

interface ReadBody {
  text: string | null;
  tooLarge: boolean;
}
const NO_BODY: ReadBody = { text: null, tooLarge: false };

/**
 * Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3); node drains what is left after
 * the answer. Read from the joined headers: node's own `req.headers` is built on first use, and nothing else uses it.
 */
function hasBody(headers: Readonly<Record<string, string>>): boolean {
  return headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
}

/**
 * Header names in lower case, repeated headers joined as fetch joins them, so the core sees the same thing from
 * every adapter. Read from rawHeaders: cheaper than node's headersDistinct, which builds arrays for every header.
 */
function joinedHeaders(raw: readonly string[]): { headers: Record<string, string>; repeated: string[] } {
  const headers: Record<string, string> = {};
  const repeated: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (Object.hasOwn(headers, name) && SINGLE_VALUED_HEADERS.has(name) && !repeated.includes(name)) repeated.push(name);
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return { headers, repeated };
}

function readBody(req: IncomingMessage, readLimit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > readLimit) {
        done = true;
        req.pause();
        resolve({ text: null, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve({ text: size === 0 ? null : Buffer.concat(chunks).toString('utf8'), tooLarge: false });
    });
    req.on('error', reject);
  });
}

const STREAM_PATH = `${JOURNAL_PATH}/stream`;
