import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A server we did not write, on 127.0.0.1: every request gets `body` as it stands (200, JSON), whatever it asked. For
 * answers the sandbox never gives (data that is null, fields of another type), which only a deliberately odd server
 * can send. Started before the file's tests and closed after them; `url` is set once it listens.
 */
export function useFixedBodyServer(): { body: string; url: string } {
  const state = { body: '', url: '' };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(state.body) });
        res.end(state.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}
