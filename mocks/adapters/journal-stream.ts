import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_HEADER } from '../../src/contract/sandbox-control.js';
import { ApiError, errorReply, type SandboxRequest } from '../core/exchange.js';
import { monotonicMs } from '../core/builtins.js';
import type { Sandbox } from '../assembly/sandbox.js';
import { filterFromQuery } from '../routes/control.js';
import { compileFilter, type JournalEntry, type LiveRequest, type RequestFilter } from '../inspect/request-journal.js';
import { entryText } from '../inspect/entry-text.js';
import { eventBytes } from './journal-event.js';

/** At most this many streams at once per sandbox; one more gets 503 with Retry-After. */
export const MAX_STREAM_READERS = 16;

/**
 * The most a live stream may hold unsent for a reader, of earlier batches, before that reader is dropped (it
 * reconnects with Last-Event-ID and gets what the journal still holds): 1 MiB. What one reader may hold is this plus one
 * batch.
 */
export const MAX_READER_BUFFER_BYTES = 1024 * 1024;

/** How often an idle stream says it is alive, so that proxies and clients do not time it out. */
const HEARTBEAT_MS = 15_000;

/** Seconds a refused reader is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Live entries are gathered this long at most and sent together, one write per reader: under load a write (and the
 * reader's wake-up) per request cost more than answering it. The first entry after a quiet spell goes out at once.
 */
export const LIVE_BATCH_MS = 20;

/** What is sent to every reader of one journal through one server: its live entries, gathered and written in one go. */
interface Feed {
  readonly journal: Sandbox['requests'];
  /** The server's instance (X-Topup-Sandbox-Instance), in every event's id. */
  readonly instance: string;
  readonly readers: Set<Reader>;
  /** Live requests not yet sent, oldest first. */
  pending: LiveRequest[];
  /** When the last batch went out (monotonicMs()); a batch waits only if one went out less than LIVE_BATCH_MS ago. */
  sentAt: number;
  scheduled: boolean;
  unsubscribe: (() => void) | undefined;
  /** The buffer of the last batch sent whole, to every reader that wants every request. */
  readonly batch: BatchBuffer;
}

interface Reader {
  readonly res: ServerResponse;
  readonly matches: (entry: JournalEntry) => boolean;
  /** Whether it asked for every request (no filter): it is sent each batch whole, the same bytes as every such reader. */
  readonly everything: boolean;
  /** True while what was missed is still being sent: live entries then wait in the journal, in order. */
  replaying: boolean;
  /** The last entry the replay sent or passed over: live entries up to it were in the replay already. */
  replayedTo: number;
  /** The buffer of its last batch of its own (it has a filter, or wants part of a batch). */
  readonly batch: BatchBuffer;
}

/** The live feeds of each sandbox's journal, one per server instance that streams it, while it has readers. */
const feeds = new WeakMap<Sandbox['requests'], Map<string, Feed>>();

/**
 * Where a reconnecting reader's replay starts: after the id it last got when that id is this run's (or a bare
 * number, as `after_id` is); from the start when it is another run's. Undefined for an id that is neither.
 */
export function replayAfter(lastEventId: string, instance: string): number | undefined {
  const id = /^(\d+)(?:@(.+))?$/.exec(lastEventId);
  if (id === null) return undefined;
  if (id[2] !== undefined && id[2] !== instance) return 0;
  // A number past any a journal gives (past 2^53, where it is no whole number any more) is after every id: no replay.
  const after = Number(id[1]);
  return Number.isSafeInteger(after) ? after : Number.MAX_SAFE_INTEGER;
}

/**
 * The largest batch buffer a reader keeps for its next batch. Under load a batch is some 400 KB to 1 MiB; a new buffer
 * that size each time costs more in fresh pages (the kernel's, page by page) than filling it. At most
 * MAX_STREAM_READERS × this is kept, and only while readers are connected.
 */
const MAX_KEPT_BATCH_BYTES = 2 * 1024 * 1024;

/** A batch's buffer, kept for the next batch, and the answers (readers' sockets) it was written to. */
interface BatchBuffer {
  buffer: Buffer | undefined;
  writtenTo: ServerResponse[];
}

const newBatchBuffer = (): BatchBuffer => ({ buffer: undefined, writtenTo: [] });

/**
 * A buffer of `size` bytes or more for the next batch: the kept one again when node has written all of it to every
 * socket it went to (nothing is left to write: `writableLength` counts every byte a write still holds, until the
 * kernel took it), else a new one, somewhat larger so that a growing load does not make one per batch. The caller
 * adds the answers it writes it to.
 */
function nextBatchBuffer(kept: BatchBuffer, size: number): Buffer {
  const free = kept.writtenTo.every((res) => res.writableLength === 0 || res.destroyed);
  kept.writtenTo = [];
  if (kept.buffer !== undefined && kept.buffer.length >= size && free) return kept.buffer;
  const fresh = Buffer.allocUnsafeSlow(Math.min(Math.ceil(size * 1.25), Math.max(size, MAX_KEPT_BATCH_BYTES)));
  kept.buffer = fresh.length <= MAX_KEPT_BATCH_BYTES ? fresh : undefined;
  return fresh;
}

/**
 * `GET /__sandbox/requests/stream`: the request journal as Server-Sent Events, one `request` event per answered
 * request (id = the entry's id), filtered like `GET /__sandbox/requests`. A client that reconnects with
 * `Last-Event-ID` (or `after_id`) first gets what it missed that the journal still holds. Live entries go out in
 * batches (LIVE_BATCH_MS), each one serialised once whatever the number of readers.
 *
 * Bounded three ways: at most MAX_STREAM_READERS at once; what was missed is replayed only as fast as the reader takes
 * it (waiting for 'drain', reading from the journal, which holds it anyway), so an idle reader of `after_id=0` holds no
 * copy of the journal; and a reader that stops reading while live entries arrive is dropped once
 * MAX_READER_BUFFER_BYTES wait for it.
 */
export function streamJournal(
  sandbox: Sandbox,
  instance: string,
  request: SandboxRequest,
  req: IncomingMessage,
  res: ServerResponse,
): void {
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
  let ofJournal = feeds.get(journal);
  if (ofJournal === undefined) feeds.set(journal, (ofJournal = new Map<string, Feed>()));
  let feed = ofJournal.get(instance);
  if (feed === undefined) {
    feed = {
      journal,
      instance,
      readers: new Set(),
      pending: [],
      sentAt: Number.NEGATIVE_INFINITY,
      scheduled: false,
      unsubscribe: undefined,
      batch: newBatchBuffer(),
    };
    ofJournal.set(instance, feed);
  }
  let readers = 0;
  for (const each of ofJournal.values()) readers += each.readers.size;
  if (readers >= MAX_STREAM_READERS) {
    const busy = new ApiError(
      503,
      `The sandbox already streams its requests to ${MAX_STREAM_READERS} readers; close one or retry later.`,
      'SERVICE_UNAVAILABLE',
    );
    const reply = errorReply(busy, { [CONTROL_HEADER]: '1', 'retry-after': String(RETRY_AFTER_SECONDS) });
    res.writeHead(reply.status, reply.headers).end(reply.body);
    return;
  }

  const lastEventId = request.headers['last-event-id'];
  const after = (lastEventId === undefined ? undefined : replayAfter(lastEventId, instance)) ?? filter.afterId;
  const reader: Reader = {
    res,
    matches: compileFilter({ ...filter, afterId: undefined }),
    replaying: after !== undefined,
    replayedTo: 0,
    batch: newBatchBuffer(),
    everything: isEverything(filter),
  };
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    [CONTROL_HEADER]: '1',
  });

  /** The last entry this reader has been given or passed over by the replay. */
  let cursor = after;
  let stopped = false;
  /** Sends what the journal holds after the cursor, pausing whenever the reader's socket is full. */
  const replay = () => {
    if (stopped) return;
    for (const entry of journal.list({ afterId: cursor })) {
      cursor = entry.id;
      reader.replayedTo = entry.id;
      if (reader.matches(entry) && !res.write(eventBytes([entryText(entry)], instance))) {
        res.once('drain', replay);
        return;
      }
    }
    reader.replaying = false;
  };

  // Said at once, so that a client knows the stream is open before the first request arrives.
  res.write(': topup sandbox request stream\n\n');
  join(journal, feed, reader);
  if (reader.replaying) replay();
  const heartbeat = setInterval(() => {
    if (res.writableLength <= MAX_READER_BUFFER_BYTES) res.write(': alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(heartbeat);
    leave(feed, reader);
  };
  req.socket.once('close', stop);
  res.once('close', stop);
}

function join(journal: Sandbox['requests'], feed: Feed, reader: Reader): void {
  feed.readers.add(reader);
  feed.unsubscribe ??= journal.follow((request) => {
    feed.pending.push(request);
    if (feed.scheduled) return;
    feed.scheduled = true;
    // The entries of this turn of the event loop go together at least; more of them if a batch went out just now.
    const wait = feed.sentAt + LIVE_BATCH_MS - monotonicMs();
    if (wait <= 0) setImmediate(send, feed);
    else setTimeout(send, wait, feed);
  });
}

function leave(feed: Feed, reader: Reader): void {
  feed.readers.delete(reader);
  reader.batch.buffer = undefined;
  if (feed.readers.size > 0) return;
  feed.unsubscribe?.();
  feed.unsubscribe = undefined;
  feed.pending = [];
  feed.batch.buffer = undefined;
  // A server started again on the same sandbox streams under a new instance: the old one's feed is not kept.
  feeds.get(feed.journal)?.delete(feed.instance);
}

/**
 * One write per reader: each batch is made into bytes once for every reader that wants every request (one buffer, the
 * same for all of them), and once for each reader with a filter (of the requests it wants).
 */
function send(feed: Feed): void {
  const batch = feed.pending;
  feed.pending = [];
  feed.scheduled = false;
  feed.sentAt = monotonicMs();
  if (batch.length === 0) return;
  let whole: Buffer | undefined;
  for (const reader of feed.readers) {
    // A replaying reader finds these in the journal, after what it is sending now.
    if (reader.replaying) continue;
    const wanted =
      reader.everything && batch[0]!.id > reader.replayedTo
        ? batch
        : batch.filter((request) => request.id > reader.replayedTo && reader.matches(request.entry()));
    if (wanted.length === 0) continue;
    // A reader that stopped reading is not buffered for forever: judged by what it left unread of the batches before,
    // which it had a batch's time at least to take. One batch may be larger than the limit under load (20 ms of
    // entries at some 30,000 requests a second are over 1 MiB); it says nothing of the reader, and is sent whole.
    if (reader.res.writableLength > MAX_READER_BUFFER_BYTES) {
      reader.res.destroy();
      continue;
    }
    // The whole batch in one buffer for every reader that wants it all; a reader's own for the part it wants.
    const kept = wanted === batch ? feed.batch : reader.batch;
    const made = (events: readonly LiveRequest[]) => eventBytes(events, feed.instance, (size) => nextBatchBuffer(kept, size));
    const bytes = wanted === batch ? (whole ??= made(batch)) : made(wanted);
    kept.writtenTo.push(reader.res);
    reader.res.write(bytes);
  }
}

/** Whether a stream's filter asks for every request (its `after_id` says where it starts, not which it wants). */
function isEverything(filter: RequestFilter): boolean {
  return Object.entries(filter).every(([name, value]) => name === 'afterId' || value === undefined);
}
