import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** What the server sends next: any status, headers and bytes, exactly as given. */
export interface ScriptedAnswer {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Sends only this many bytes of the body (no Content-Length), then drops the connection. */
  cutAfter?: number;
}

/**
 * A server we did not write, on 127.0.0.1, answering every request with `answer` (which a test sets) and counting
 * the requests: for answers no sandbox gives (odd values, refusals with other statuses, nested thousands of levels
 * deep, a body that is not what its Content-Encoding says). Started before the file's tests, closed after them; the
 * count starts at 0 before each test.
 */
export function useAnswerServer(): { answer: ScriptedAnswer; url: string; requests: number } {
  const state = { answer: { status: 200, body: '' } as ScriptedAnswer, url: '', requests: 0 };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        state.requests++;
        const { status, body, headers, cutAfter } = state.answer;
        if (cutAfter !== undefined) {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.write(Buffer.from(body).subarray(0, cutAfter), () => setTimeout(() => res.socket?.destroy(), 20));
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    state.requests = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}

/** A JSON list nested `levels` deep: `[[…]]`. */
export const nestedList = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** A credit-package list answer whose `data.x` is a list nested `levels` deep: the whole answer nests levels + 2. */
export const deepPackages = (levels: number): string =>
  `{"success":true,"message":"ok","data":{"packages":[],"limit":50,"x":${nestedList(levels)}}}`;

/** A 500 error envelope whose `error.x` is a list nested `levels` deep: the whole answer nests levels + 2. */
export const deepServerError = (levels: number): string =>
  `{"success":false,"message":"The server failed.","error":{"code":"INTERNAL_ERROR","x":${nestedList(levels)}}}`;
