import { BoundedMemo } from '../core/bounded-memo.js';
import type { JournalEntry } from '../inspect/request-journal.js';

/**
 * One journal entry's Server-Sent Event as the bytes to send (`id: …\nevent: request\ndata: <the entry as JSON>\n\n`),
 * the entry's JSON text exactly as JSON.stringify writes an entry the journal built, in pieces:
 *
 * - what differs for every request (its id, time and duration) is written for each event;
 * - the fields around them (the request, its status, where it went) are kept ready as bytes for the last request of
 *   each path: a bot repeats its requests (a poll of the catalog, a balance check), and the fields of each
 *   are compared with the kept ones, not serialised again;
 * - the response body's JSON text is kept ready per body (the catalog's is one string for as long as its table stands).
 *
 * With a reader of the live stream every request is an event; serialising each entry whole cost the sandbox more than
 * building it (BENCHMARKS.md, journal cost).
 */
export interface WireEvent {
  /** `id: …\nevent: request\ndata: {"time":…` */
  readonly start: string;
  /** `,` and the fields from `method` to `status`, then `,"response_body":`. */
  readonly request: Buffer;
  /** The body's JSON text (`null` when there is none). */
  readonly body: Buffer;
  /** `,"duration_ms":…` */
  readonly duration: string;
  /** `,` and the fields from `route` to `near_miss`. */
  readonly outcome: Buffer;
  /** `,"id":…}` and the blank line that ends the event. */
  readonly end: string;
  readonly bytes: number;
}

/** The fields before the body, from `method` to `status`. */
type RequestFields = Pick<JournalEntry, 'method' | 'path' | 'query' | 'headers' | 'idempotency_key' | 'request_body' | 'status'>;
/** The fields between the duration and the id, from `route` to `near_miss`. */
type OutcomeFields = Pick<JournalEntry, 'route' | 'account' | 'rate_limit' | 'idempotent_replay' | 'fault' | 'near_miss'>;

/** What an entry has besides its time, duration, id and body, as records of their own and as the bytes written of them. */
interface Shape {
  readonly requestFields: Readonly<RequestFields>;
  readonly outcomeFields: Readonly<OutcomeFields>;
  readonly request: Buffer;
  readonly outcome: Buffer;
}

/** Fields longer than this (a large request body) are serialised for every event, not kept. */
const MAX_KEPT_SHAPE_BYTES = 8_192;
/** The last shape of this many paths; past it the table starts again. */
const MAX_KEPT_SHAPES = 64;

const shapes = new Map<string, Shape>();
const bodies = new BoundedMemo<string, Buffer>(64);
const NULL_TEXT = Buffer.from('null');

/** The event of `entry`, whose SSE id is `eventId`. */
export function wireEvent(entry: JournalEntry, eventId: string): WireEvent {
  const shape = shapeOf(entry);
  const start = `id: ${eventId}\nevent: request\ndata: {"time":${timeText(entry.time)}`;
  const body = bodyBytes(entry.response_body);
  const duration = `,"duration_ms":${numberText(entry.duration_ms)}`;
  const end = `,"id":${numberText(entry.id)}}\n\n`;
  return {
    start,
    request: shape.request,
    body,
    duration,
    outcome: shape.outcome,
    end,
    bytes:
      Buffer.byteLength(start) +
      shape.request.length +
      body.length +
      (typeof entry.duration_ms === 'number' ? duration.length : Buffer.byteLength(duration)) +
      shape.outcome.length +
      (typeof entry.id === 'number' ? end.length : Buffer.byteLength(end)),
  };
}

/** Events as one buffer, for one write: in `into` when it is given and large enough, else a new one. */
export function wireBytes(events: readonly WireEvent[], into?: (size: number) => Buffer): Buffer {
  let size = 0;
  for (const event of events) size += event.bytes;
  const out = into === undefined ? Buffer.allocUnsafe(size) : into(size);
  let at = 0;
  for (const event of events) {
    at += out.write(event.start, at);
    at += event.request.copy(out, at);
    at += event.body.copy(out, at);
    at += out.write(event.duration, at);
    at += event.outcome.copy(out, at);
    at += out.write(event.end, at);
  }
  return out.subarray(0, at);
}

/** The kept shape of the entry's path when every field matches it; else the entry's own, kept if small. */
function shapeOf(entry: JournalEntry): Shape {
  const kept = shapes.get(entry.path);
  if (kept !== undefined && sameShape(kept, entry)) return kept;
  // Copies of the entry's records: whoever else the entry is handed to may change its own. Their JSON text is the
  // entry's (the same keys in the same order), and the bytes are written from them, so a shape's bytes are its records'.
  const requestFields: RequestFields = {
    method: entry.method,
    path: entry.path,
    query: copied(entry.query),
    headers: copied(entry.headers),
    idempotency_key: entry.idempotency_key,
    request_body: entry.request_body,
    status: entry.status,
  };
  const outcomeFields: OutcomeFields = {
    route: entry.route,
    account: entry.account,
    rate_limit: copied(entry.rate_limit),
    idempotent_replay: entry.idempotent_replay,
    fault: entry.fault,
    near_miss: entry.near_miss,
  };
  const shape: Shape = {
    requestFields,
    outcomeFields,
    request: Buffer.from(`${fieldsText(requestFields)},"response_body":`),
    outcome: Buffer.from(fieldsText(outcomeFields)),
  };
  const keepable =
    shape.request.length + shape.outcome.length <= MAX_KEPT_SHAPE_BYTES &&
    isFlat(entry.query) &&
    isFlat(entry.headers) &&
    (entry.rate_limit === null || isFlat(entry.rate_limit));
  if (keepable) {
    if (shapes.size >= MAX_KEPT_SHAPES && kept === undefined) shapes.clear();
    shapes.set(entry.path, shape);
  }
  return shape;
}

/**
 * Whether the entry's fields are the shape's: the same strings, numbers and flags, and records with the same keys in
 * the same order holding the same values, so the same JSON text.
 */
function sameShape({ requestFields: fields, outcomeFields: outcome }: Shape, entry: JournalEntry): boolean {
  return (
    fields.method === entry.method &&
    fields.path === entry.path &&
    fields.status === entry.status &&
    fields.request_body === entry.request_body &&
    fields.idempotency_key === entry.idempotency_key &&
    outcome.route === entry.route &&
    outcome.account === entry.account &&
    outcome.idempotent_replay === entry.idempotent_replay &&
    outcome.fault === entry.fault &&
    outcome.near_miss === entry.near_miss &&
    sameFlat(fields.headers, entry.headers) &&
    sameFlat(fields.query, entry.query) &&
    sameFlat(outcome.rate_limit ?? null, entry.rate_limit)
  );
}

/** Equal JSON text for two records whose values are strings, numbers, booleans or absent (see isFlat). */
function sameFlat(kept: object | null, given: unknown): boolean {
  if (kept === given) return true;
  if (kept === null || typeof given !== 'object' || given === null) return false;
  const keys = Object.keys(kept);
  const givenKeys = Object.keys(given);
  if (keys.length !== givenKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i]!;
    if (name !== givenKeys[i]) return false;
    if ((kept as Record<string, unknown>)[name] !== (given as Record<string, unknown>)[name]) return false;
  }
  return true;
}

/** A record's own copy (its keys in the same order); anything else as it is. */
function copied<T>(record: T): T {
  return typeof record === 'object' && record !== null ? { ...record } : record;
}

/** A record that sameFlat can compare: an object none of whose values is an object of its own. */
function isFlat(record: unknown): boolean {
  if (typeof record !== 'object' || record === null) return false;
  for (const value of Object.values(record)) if (typeof value === 'object' && value !== null) return false;
  return true;
}

/** `,"name":value,…` of the fields, as JSON.stringify writes them inside an object after another field. */
function fieldsText(fields: object): string {
  const text = JSON.stringify(fields).slice(1, -1);
  return text === '' ? '' : `,${text}`;
}

/** The body's JSON text: kept for the bodies met last; `null` for none (and for a body an entry recorded without). */
function bodyBytes(body: string | null): Buffer {
  if (typeof body === 'string') return bodies.get(body, (text) => Buffer.from(JSON.stringify(text)));
  return body === null || body === undefined ? NULL_TEXT : Buffer.from(json(body));
}

/** The time's JSON text; requests answered in the same millisecond share their time's string (request-journal.ts). */
let lastTime: { time: string | undefined; text: string } = { time: undefined, text: 'null' };
function timeText(time: string): string {
  if (time !== lastTime.time) lastTime = { time, text: json(time) };
  return lastTime.text;
}

/** A number's JSON text (what JSON.stringify writes for it), without a call to it. */
function numberText(value: number): string {
  return typeof value !== 'number' ? json(value) : Number.isFinite(value) ? String(value) : 'null';
}

/** JSON text of one value; `null` for one JSON.stringify would leave out (an entry the journal built has none). */
function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
