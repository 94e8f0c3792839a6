// @ts-check
// The baseline: a bare node:http server that answers each route with recorded bytes, and nothing else.
// argv[2]: { routes: { "GET /path": { status, headers, body } }, stream?: { path, event, batchMs } }.
// With `stream`, GET `path` is a Server-Sent Events stream that gets `event` (an event the sandbox's live request
// stream sent, recorded) for every request answered while it is open, batched as the sandbox batches them (a batch
// every `batchMs` at most, the first after a quiet spell at once): what moving the same bytes to the same reader costs
// a server that does nothing else (the journal rows' baseline).
import { createServer } from 'node:http';

/** @type {{ routes: Record<string, { status: number, headers: Record<string, string>, body: string }>, stream?: { path: string, event: string, batchMs: number } }} */
const { routes, stream } = JSON.parse(process.argv[2] ?? '{}');
const replies = new Map(
  Object.entries(routes).map(([route, reply]) => [
    route,
    { ...reply, headers: { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) } },
  ]),
);

/** @type {Set<import('node:http').ServerResponse>} */
const readers = new Set();
/** An instance id as the sandbox's (a UUID), which its event ids carry (`12@<instance>`). */
const INSTANCE = '00000000-0000-4000-8000-000000000000';
/** The recorded event without its `id:` line, which each event gets anew: bytes made once, as the sandbox keeps bodies. */
const eventRest = Buffer.from(stream === undefined ? '' : stream.event.slice(stream.event.indexOf('\n') + 1));
let nextId = 1;
let pending = 0;
let scheduled = false;
let sentAt = Number.NEGATIVE_INFINITY;

/** The buffer of the last batch, written over by the next once every reader's socket has let go of it. */
let kept = Buffer.alloc(0);

/**
 * A buffer of `size` bytes or more for the next batch: the last one again once node has written all of it (as the
 * sandbox's stream keeps one per reader: mocks/adapters/journal-stream.ts), so that neither pays for fresh pages.
 * @param {number} size
 */
function batchBuffer(size) {
  if (kept.length >= size && [...readers].every((reader) => reader.writableLength === 0)) return kept;
  kept = Buffer.allocUnsafeSlow(Math.ceil(size * 1.25));
  return kept;
}

/** The pending events as one buffer (each its own id line, then the recorded bytes), written once to every reader. */
function sendBatch() {
  const bytes = batchBuffer(pending * (eventRest.length + 24 + INSTANCE.length));
  let at = 0;
  for (; pending > 0; pending--) {
    at += bytes.write(`id: ${nextId++}@${INSTANCE}\n`, at, 'latin1');
    at += eventRest.copy(bytes, at);
  }
  scheduled = false;
  sentAt = performance.now();
  const batch = bytes.subarray(0, at);
  for (const reader of readers) reader.write(batch);
}

function streamAnswered() {
  if (readers.size === 0) return;
  pending += 1;
  if (scheduled) return;
  scheduled = true;
  const wait = sentAt + (stream?.batchMs ?? 0) - performance.now();
  if (wait <= 0) setImmediate(sendBatch);
  else setTimeout(sendBatch, wait);
}

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  if (stream !== undefined && req.method === 'GET' && req.url === stream.path) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    res.write(': bare request stream\n\n');
    readers.add(res);
    res.once('close', () => readers.delete(res));
    return;
  }
  const reply = replies.get(`${req.method} ${req.url}`);
  // The body is read, as any server must before answering on a kept-alive connection.
  req.resume();
  req.on('end', () => {
    if (reply === undefined) res.writeHead(404).end();
    else res.writeHead(reply.status, reply.headers).end(reply.body);
    streamAnswered();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.on('message', (message) => {
    if (/** @type {{ type?: string }} */ (message).type === 'rss') process.send?.(process.memoryUsage());
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}` });
});
