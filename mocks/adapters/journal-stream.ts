import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_HEADER } from '../../src/contract/sandbox-control.js';
import { ApiError, errorReply, type SandboxRequest } from '../core/exchange.js';
import type { Sandbox } from '../assembly/sandbox.js';
import { filterFromQuery } from '../routes/control.js';
import { compileFilter, type JournalEntry } from '../inspect/request-journal.js';

/** At most this many streams at once per sandbox; one more gets 503 with Retry-After. */
export const MAX_STREAM_READERS = 16;

/**
 * The most a live stream may hold unsent for a reader before that reader is dropped (it reconnects with
 * Last-Event-ID and gets what the journal still holds): 1 MiB.
 */
export const MAX_READER_BUFFER_BYTES = 1024 * 1024;

/** How often an idle stream says it is alive, so that proxies and clients do not time it out. */
const HEARTBEAT_MS = 15_000;

/** Seconds a refused reader is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

/** The open streams of each sandbox's journal. */
const openStreams = new WeakMap<Sandbox['requests'], Set<ServerResponse>>();

/**
 * `GET /__sandbox/requests/stream`: the request journal as Server-Sent Events, one `request` event per answered
 * request (id = the entry's id), filtered like `GET /__sandbox/requests`. A client that reconnects with
 * `Last-Event-ID` (or `after_id`) first gets what it missed that the journal still holds.
 *
 * Bounded three ways: at most MAX_STREAM_READERS at once; what was missed is replayed only as fast as the reader takes
 * it (waiting for 'drain', reading from the journal, which holds it anyway), so an idle reader of `after_id=0` holds no
 * copy of the journal; and a reader that stops reading while live entries arrive is dropped once
 * MAX_READER_BUFFER_BYTES wait for it.
 */
export function streamJournal(sandbox: Sandbox, request: SandboxRequest, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(request.url);
  let filter;
  try {
    filter = filterFromQuery(url.searchParams);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const reply = errorReply(error, { [CONTROL_HEADER]: '1' });
    res.writeHead(reply.status, reply.headers).end(reply.body);
    return;
  }
  const journal = sandbox.requests;
  const open = openStreams.get(journal) ?? new Set<ServerResponse>();
  openStreams.set(journal, open);
  if (open.size >= MAX_STREAM_READERS) {
    const busy = new ApiError(
      503,
      `The sandbox already streams its requests to ${MAX_STREAM_READERS} readers; close one or retry later.`,
      'SERVICE_UNAVAILABLE',
    );
    const reply = errorReply(busy, { [CONTROL_HEADER]: '1', 'retry-after': String(RETRY_AFTER_SECONDS) });
    res.writeHead(reply.status, reply.headers).end(reply.body);
    return;
  }
  open.add(res);

  const lastEventId = request.headers['last-event-id'];
  const after = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : filter.afterId;
  const matches = compileFilter({ ...filter, afterId: undefined });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    [CONTROL_HEADER]: '1',
  });
  const event = (entry: JournalEntry) => `id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;

  /** The last entry this reader has been given or passed over; undefined until the first one. */
  let cursor = after;
  /** True while what was missed is still being sent: live entries then wait in the journal, in order. */
  let replaying = after !== undefined;
  let stopped = false;

  /** Sends what the journal holds after the cursor, pausing whenever the reader's socket is full. */
  const replay = () => {
    if (stopped) return;
    for (const entry of journal.list({ afterId: cursor })) {
      cursor = entry.id;
      if (matches(entry) && !res.write(event(entry))) {
        res.once('drain', replay);
        return;
      }
    }
    replaying = false;
  };
  const live = (entry: JournalEntry) => {
    // Once the replay is done, every new entry is newer than the cursor (a restarted sandbox numbers from 1 again).
    if (replaying) return;
    cursor = entry.id;
    if (matches(entry)) res.write(event(entry));
    // A reader that stopped reading is not buffered for forever.
    if (res.writableLength > MAX_READER_BUFFER_BYTES) res.destroy();
  };

  // Said at once, so that a client knows the stream is open before the first request arrives.
  res.write(': topup sandbox request stream\n\n');
  const unsubscribe = journal.subscribe(live);
  if (replaying) replay();
  const heartbeat = setInterval(() => {
    if (res.writableLength <= MAX_READER_BUFFER_BYTES) res.write(': alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const stop = () => {
    stopped = true;
    clearInterval(heartbeat);
    unsubscribe();
    open.delete(res);
  };
  req.socket.once('close', stop);
  res.once('close', stop);
}
