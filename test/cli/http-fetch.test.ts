import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/cli/http-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback server that records what it got and answers by path. */
async function listen(
  answer: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(entry);
      answer(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let main: Awaited<ReturnType<typeof listen>>;
let stalledClosed: Promise<void> | undefined;
let other: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  other = await listen((_req, res) => res.end('other'));
  main = await listen((req, res, seen) => {
    switch (req.url) {
      case '/json':
        res.writeHead(200, [
          ['Content-Type', 'application/json'],
          ['X-Two', 'a'],
          ['X-Two', 'b'],
        ]);
        res.end(JSON.stringify({ got: seen.body }));
        return;
      case '/empty':
        res.writeHead(204).end();
        return;
      case '/gzip':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('unzipped'));
        return;
      case '/found':
        res.writeHead(302, { location: '/json' }).end();
        return;
      case '/see-other':
        res.writeHead(303, { location: '/json' }).end();
        return;
      case '/temporary':
        res.writeHead(307, { location: '/json' }).end();
        return;
      case '/elsewhere':
        res.writeHead(302, { location: `${other.url}/landed` }).end();
        return;
      case '/slow':
        setTimeout(() => res.end('late'), 2_000).unref();
        return;
      case '/stalled-body':
        // Headers and half the body, then nothing; the test learns when the client closes the connection.
        stalledClosed = new Promise((resolve) => req.socket.once('close', () => resolve()));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' }).write('{"half":');
        return;
      default:
        res.writeHead(404).end('no');
    }
  });
});

afterAll(async () => {
  for (const { server } of [main, other]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('httpFetch', () => {
  it('sends the method, headers and body, and answers with status, headers and body', async () => {
    const response = await httpFetch(`${main.url}/json`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-two')).toBe('a, b');
    expect(await response.json()).toEqual({ got: '{"a":1}' });
    const seen = main.seen.at(-1)!;
    expect(seen).toMatchObject({ method: 'POST', url: '/json', body: '{"a":1}' });
    expect(seen.headers).toMatchObject({ authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': '7' });
  });

  it('takes a Request as ky hands it over', async () => {
    const response = await httpFetch(new Request(`${main.url}/json`, { headers: { accept: 'application/json' } }), {});
    expect(await response.json()).toEqual({ got: '' });
    expect(main.seen.at(-1)!.headers.accept).toBe('application/json');
  });

  it.each([
    ['/empty', 204, ''],
    ['/gzip', 200, 'unzipped'],
    ['/nowhere', 404, 'no'],
  ])('%s answers %i with body %j', async (path, status, body) => {
    const response = await httpFetch(`${main.url}${path}`);
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
    expect(response.headers.get('content-encoding')).toBeNull();
  });

  it.each([
    ['GET', '/found', 'GET', ''],
    ['GET', '/see-other', 'GET', ''],
    ['POST', '/temporary', 'POST', 'kept'],
  ])('%s %s is followed as a %s with body %j, keeping the token on the same origin', async (method, path, nextMethod, nextBody) => {
    const response = await httpFetch(`${main.url}${path}`, {
      method,
      headers: { authorization: 'Bearer t' },
      ...(method === 'POST' ? { body: 'kept' } : {}),
    });
    expect(response.status).toBe(200);
    const seen = main.seen.at(-1)!;
    expect(seen).toMatchObject({ method: nextMethod, url: '/json', body: nextBody });
    expect(seen.headers.authorization).toBe('Bearer t');
  });

  it.each(['/found', '/see-other'])('POST %s is not repeated as a GET: it fails as fetch fails, the refusal its cause', async (path) => {
    const error = await httpFetch(`${main.url}${path}`, { method: 'POST', body: 'kept' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toMatchObject({
      name: 'RedirectRefusedError',
      message: `${main.url} answered ${path === '/found' ? 302 : 303} with a redirect to ${main.url}, which would repeat the POST as a GET; it was not followed, and the POST may have taken effect.`,
    });
    expect(main.seen.at(-1)).toMatchObject({ method: 'POST', url: path });
  });

  it('follows a request without credentials to another origin, and refuses one with the token', async () => {
    const response = await httpFetch(`${main.url}/elsewhere`);
    expect(await response.text()).toBe('other');
    expect(other.seen.map((r) => r.url)).toEqual(['/landed']);
    const error = await httpFetch(`${main.url}/elsewhere`, { headers: { authorization: 'Bearer t' } }).catch((e: unknown) => e);
    expect(((error as TypeError).cause as Error).message).toBe(
      `${main.url} answered 302 with a redirect to ${other.url}, another origin; a request with credentials or an Idempotency-Key is never repeated there: if the API moved there, point the base URL (--base-url, or baseUrl) at it.`,
    );
    expect(other.seen).toHaveLength(1);
  });

  it('returns the redirect itself with redirect: manual', async () => {
    const response = await httpFetch(`${main.url}/found`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/json');
  });

  it('fails like fetch when nothing listens: a TypeError whose cause has the code', async () => {
    const closed = await listen(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    const error = await httpFetch(`${closed.url}/json`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it("rejects with the signal's reason when aborted, before or during the answer", async () => {
    const reason = new Error('stop');
    await expect(httpFetch(`${main.url}/json`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = httpFetch(`${main.url}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  // The client's per-attempt timeout relies on this: httpFetch reads the body before it resolves.
  it("rejects with the signal's reason when aborted while the body is stalled, and closes the connection", { timeout: 5_000 }, async () => {
    const reason = new Error('stop');
    const controller = new AbortController();
    const pending = httpFetch(`${main.url}/stalled-body`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
    expect(main.seen.at(-1)!.url).toBe('/stalled-body');
    await stalledClosed;
  });
});
