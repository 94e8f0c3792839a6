// @ts-check
// The baseline: a bare node:http server that answers each route with recorded bytes, and nothing else.
// argv[2]: { routes: { "GET /path": { status, headers, body } } }.
import { createServer } from 'node:http';

/** @type {{ routes: Record<string, { status: number, headers: Record<string, string>, body: string }> }} */
const { routes } = JSON.parse(process.argv[2] ?? '{}');
const replies = new Map(
  Object.entries(routes).map(([route, reply]) => [
    route,
    { ...reply, headers: { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) } },
  ]),
);

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const reply = replies.get(`${req.method} ${req.url}`);
  // The body is read, as any server must before answering on a kept-alive connection.
  req.resume();
  req.on('end', () => {
    if (reply === undefined) res.writeHead(404).end();
    else res.writeHead(reply.status, reply.headers).end(reply.body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.on('message', (message) => {
    if (/** @type {{ type?: string }} */ (message).type === 'rss') process.send?.(process.memoryUsage());
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}` });
});
