import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request as a redirect test's server saw it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a server answers: a status, its headers and a body. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A server on a loopback address that records every request and answers with `reply`, which each test sets. Two
 * servers on 127.0.0.1 and 127.0.0.2 are two origins, as two hosts would be.
 */
export interface RecordingServer {
  /** The origin, e.g. `http://127.0.0.2:43123`. */
  url: string;
  port: number;
  received: Received[];
  reply: (request: Received) => Reply;
  close(): Promise<void>;
}

/** Another account's profile: what a server elsewhere answers, which must never pass for the user's own. */
export const SOMEONE_ELSES_PROFILE = {
  user: {
    id: 66,
    username: 'someone-else',
    name: 'Someone Else',
    email: 'else@example.test',
    chat_linked: false,
    chat_user_id: null,
    token_mode: 'test',
    created_at: '2026-01-01T00:00:00Z',
  },
};

/** A success envelope around `data`, as the API answers. */
export function success(data: unknown, status = 200): Reply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true, message: 'ok', data }) };
}

/** A redirect with the given status to `location`. */
export function redirect(status: number, location: string): Reply {
  return { status, headers: { location } };
}

/** Starts a recording server on `host` (a loopback address); over TLS with `tls`. */
export async function recordingServer(host: string, tls?: { key: string; cert: string }): Promise<RecordingServer> {
  const received: Received[] = [];
  const state: RecordingServer = {
    url: '',
    port: 0,
    received,
    reply: () => ({ status: 404, headers: { 'content-type': 'application/json' }, body: '{"success":false,"message":"Not Found"}' }),
    close: () => Promise.resolve(),
  };
  const listener: RequestListener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body };
      received.push(entry);
      const reply = state.reply(entry);
      res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
    });
  };
  const server: Server = tls === undefined ? createServer(listener) : createTlsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `${tls === undefined ? 'http' : 'https'}://${host}:${state.port}`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return state;
}
