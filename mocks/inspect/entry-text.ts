import { BoundedMemo } from '../core/bounded-memo.js';
import { isoTimeOfClock } from '../core/iso-time.js';
import type { KnownSecrets } from '../../src/contract/redact.js';
import type { AnsweredRequest, JournalEntry, RequestNotes } from './request-journal.js';
import { redactAnswer, secretsOf } from './request-journal-redaction.js';

/**
 * A journal entry's JSON text, exactly as JSON.stringify writes an entry the journal built, in pieces, each ending
 * where the next part of its own begins:
 *
 * `{"time":` time request body durationMs outcome id `}`
 *
 * - what differs for every request (its id, time and duration) is its own;
 * - the fields around them (the request, its status, where it went) are bytes kept for the last request of each path:
 *   a bot repeats its requests (a poll of the catalog, a balance check);
 * - the response body's JSON text is kept per body (the catalog's is one string for as long as its table stands).
 *
 * With a reader of the live stream every request is an event: serialising each entry whole cost the sandbox more than
 * answering some requests, and building each one about as much (BENCHMARKS.md, journal cost). So a live request's text
 * comes from what it carried (LiveShapes): when that is what the last request of its path carried, the kept bytes are
 * its entry's, cut of secrets as that one's were, and no entry is built for it.
 */
export interface EntryText {
  /** The entry's id. */
  readonly id: number;
  /** The time's JSON text, `"2026-11-25T20:08:01.000Z"`. */
  readonly time: Buffer;
  /** `,` and the fields from `method` to `status`, then `,"response_body":`. */
  readonly request: Buffer;
  /** The response body's JSON text (`null` when there is none), then `,"duration_ms":`. */
  readonly body: Buffer;
  /** The entry's `duration_ms` (a number, unless an entry was recorded with another). */
  readonly durationMs: unknown;
  /** `,` and the fields from `route` to `near_miss`, then `,"id":`. */
  readonly outcome: Buffer;
}

/** The fields before the body, from `method` to `status`. */
type RequestFields = Pick<JournalEntry, 'method' | 'path' | 'query' | 'headers' | 'idempotency_key' | 'request_body' | 'status'>;
/** The fields between the duration and the id, from `route` to `near_miss`. */
type OutcomeFields = Pick<JournalEntry, 'route' | 'account' | 'rate_limit' | 'idempotent_replay' | 'fault' | 'near_miss'>;

/** What an entry has besides its time, duration, id and body: as records of its own, and as the bytes written of them. */
interface Shape {
  readonly requestFields: Readonly<RequestFields>;
  readonly outcomeFields: Readonly<OutcomeFields>;
  readonly request: Buffer;
  readonly outcome: Buffer;
  /** Whether its records are small and flat enough to be kept and compared (see keepable). */
  readonly keepable: boolean;
}

/** Shapes (and the requests they are kept for) longer than this are made for every entry, not kept. */
const MAX_KEPT_SHAPE_CHARS = 8_192;
/** The last shape of this many paths; past it the table starts again. */
const MAX_KEPT_SHAPES = 64;

const NULL_TEXT = Buffer.from('null');

/** The text of an entry already built (one read from the journal, or recorded whole). */
export function entryText(entry: JournalEntry): EntryText {
  const shape = shapeOfEntry(entry);
  return {
    id: entry.id,
    time: timeBytes(entry.time),
    request: shape.request,
    body: bodyBytes(entry.response_body),
    durationMs: entry.duration_ms,
    outcome: shape.outcome,
  };
}

/** Of entries already built: the last shape of each path. */
const entryShapes = new Map<string, Shape>();

/** The kept shape of the entry's path when every field matches it; else the entry's own, kept if small. */
function shapeOfEntry(entry: JournalEntry): Shape {
  const kept = entryShapes.get(entry.path);
  if (kept !== undefined && sameShape(kept, entry)) return kept;
  const shape = shapeOf(entry);
  if (shape.keepable) keepIn(entryShapes, entry.path, shape);
  return shape;
}

/**
 * An entry's shape, its records copies of the entry's: whoever else the entry is handed to may change its own. Their
 * JSON text is the entry's (the same keys in the same order), and the bytes are written from them.
 */
function shapeOf(entry: JournalEntry): Shape {
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
  const request = Buffer.from(`${fieldsText(requestFields)},"response_body":`);
  const outcome = Buffer.from(`${fieldsText(outcomeFields)},"id":`);
  return {
    requestFields,
    outcomeFields,
    request,
    outcome,
    keepable:
      request.length + outcome.length <= MAX_KEPT_SHAPE_CHARS &&
      isFlat(entry.query) &&
      isFlat(entry.headers) &&
      (entry.rate_limit === null || isFlat(entry.rate_limit)),
  };
}

function keepIn<T>(table: Map<string, T>, path: string, shape: T): void {
  if (table.size >= MAX_KEPT_SHAPES && !table.has(path)) table.clear();
  table.set(path, shape);
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
    sameFlat(outcome.rate_limit, entry.rate_limit)
  );
}

/** What a live request carried that its entry is made of, besides its time, duration and answer body: a copy. */
interface Carried {
  readonly method: string;
  readonly search: string;
  /** The headers' names and values, in their order. */
  readonly headerNames: readonly string[];
  readonly headerValues: readonly string[];
  readonly requestBody: string | null;
  readonly status: number | null;
  readonly route: string | undefined;
  readonly account: string | undefined;
  readonly rateLimit: RequestNotes['rateLimit'];
  readonly idempotentReplay: boolean | undefined;
  readonly fault: string | undefined;
  readonly nearMiss: string | undefined;
}

/** The parts of a live request's text besides its id, time and duration. */
export interface LivePieces {
  readonly request: Buffer;
  readonly outcome: Buffer;
  /** The answer body's JSON text, cut of secrets and to the journal's body limit. */
  readonly answerText: Buffer;
}

/** A shape kept for what a live request of its path carried, with the secrets its parts were cut for. */
interface LiveShape extends LivePieces {
  readonly carried: Carried;
  readonly known: KnownSecrets;
  /** The answer body `answerText` was made of, as it came; undefined for one too long to keep (see keptAnswer). */
  answer: string | null | undefined;
  answerText: Buffer;
}

/**
 * The text of live requests from what each carried, for one journal (whose body limit its answer texts are cut to).
 * Per path, what the last request carried is kept (a copy, in memory only, as the journal's columns hold it) with the
 * bytes its entry was written as; a request that carried the same gets those bytes, and no entry is built for it.
 * Cutting secrets is a pure function of what a request carried (request-journal-redaction.ts), so those bytes are what
 * its own entry's would be.
 */
export class LiveShapes {
  readonly #shapes = new Map<string, LiveShape>();
  /** An answer body as the journal keeps it: cut to its body limit. */
  readonly #cutBody: (body: string | null) => string | null;

  constructor(cutBody: (body: string | null) => string | null) {
    this.#cutBody = cutBody;
  }

  /**
   * The parts of an answered request's text: the kept shape of its path when the request carried the same, else made
   * from the entry that `build` makes of it with its secrets (secretsOf), and kept for the next.
   */
  piecesOf(answered: AnsweredRequest, build: (known: KnownSecrets) => JournalEntry): LivePieces {
    const kept = this.#shapes.get(answered.path);
    if (kept !== undefined && sameCarried(kept.carried, answered)) {
      if (answered.responseBody !== kept.answer) {
        const body = answered.responseBody;
        kept.answerText = bodyBytes(this.#cutBody(body === null ? null : redactAnswer(body, kept.known)));
        kept.answer = keptAnswer(body);
      }
      return kept;
    }
    const known = secretsOf(answered);
    const entry = build(known);
    const made = shapeOf(entry);
    const carried = made.keepable ? carriedOf(answered) : undefined;
    const shape: LiveShape = {
      carried: carried ?? NOTHING_CARRIED,
      known,
      request: made.request,
      outcome: made.outcome,
      answer: keptAnswer(answered.responseBody),
      answerText: bodyBytes(entry.response_body),
    };
    if (carried !== undefined) keepIn(this.#shapes, answered.path, shape);
    return shape;
  }

  /** Forgets what the last requests carried (the journal was cleared: it holds no secret of theirs any more). */
  clear(): void {
    this.#shapes.clear();
  }
}

/**
 * An answer body as a shape keeps it to compare the next with: none past MAX_KEPT_SHAPE_CHARS, which a shape would keep
 * alive whole (a journal of size 0 builds no entry of a long body as it is kept), where its text is cut to the body
 * limit. Such an answer is cut again for each request.
 */
function keptAnswer(body: string | null): string | null | undefined {
  return body !== null && body.length > MAX_KEPT_SHAPE_CHARS ? undefined : body;
}

/** The carried of a shape that is not kept (never compared). */
const NOTHING_CARRIED: Carried = {
  method: '',
  search: '',
  headerNames: [],
  headerValues: [],
  requestBody: null,
  status: null,
  route: undefined,
  account: undefined,
  rateLimit: undefined,
  idempotentReplay: undefined,
  fault: undefined,
  nearMiss: undefined,
};

/** A copy of what the request carried, or undefined when it is too much to keep and compare. */
function carriedOf(answered: AnsweredRequest): Carried | undefined {
  const { headers, notes } = answered;
  const headerNames: string[] = [];
  const headerValues: string[] = [];
  let chars = answered.search.length + (answered.requestBody?.length ?? 0);
  for (const name in headers) {
    const value = headers[name]!;
    headerNames.push(name);
    headerValues.push(value);
    chars += name.length + value.length;
  }
  if (chars > MAX_KEPT_SHAPE_CHARS || (notes.rateLimit !== undefined && !isFlat(notes.rateLimit))) return undefined;
  return {
    method: answered.method,
    search: answered.search,
    headerNames,
    headerValues,
    requestBody: answered.requestBody,
    status: answered.status,
    route: notes.route,
    account: notes.account,
    rateLimit: copied(notes.rateLimit),
    idempotentReplay: notes.idempotentReplay,
    fault: notes.fault,
    nearMiss: notes.nearMiss,
  };
}

/** Whether the request carried what was kept: the same strings, numbers and flags, the same headers in the same order. */
function sameCarried(carried: Carried, answered: AnsweredRequest): boolean {
  const { notes } = answered;
  if (
    carried.method !== answered.method ||
    carried.search !== answered.search ||
    carried.status !== answered.status ||
    carried.requestBody !== answered.requestBody
  )
    return false;
  if (
    carried.route !== notes.route ||
    carried.account !== notes.account ||
    carried.idempotentReplay !== notes.idempotentReplay ||
    carried.fault !== notes.fault ||
    carried.nearMiss !== notes.nearMiss ||
    !sameFlat(carried.rateLimit, notes.rateLimit)
  )
    return false;
  const { headers } = answered;
  const { headerNames, headerValues } = carried;
  let i = 0;
  for (const name in headers) {
    if (name !== headerNames[i] || headers[name] !== headerValues[i]) return false;
    i++;
  }
  return i === headerNames.length;
}

/** Equal JSON text for two records whose values are strings, numbers, booleans or absent (see isFlat). */
function sameFlat(kept: object | null | undefined, given: unknown): boolean {
  if (kept === given) return true;
  if (kept === null || kept === undefined || typeof given !== 'object' || given === null) return false;
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

/**
 * The body's JSON text, then `,"duration_ms":`: kept for the bodies met last; `null` for none (and for a body an entry
 * was recorded without).
 */
const bodies = new BoundedMemo<string, Buffer>(64);
function bodyBytes(body: unknown): Buffer {
  if (typeof body === 'string') return bodies.get(body, (text) => Buffer.from(`${JSON.stringify(text)}${AFTER_BODY}`));
  return body === null || body === undefined ? NULL_BODY : Buffer.from(`${json(body)}${AFTER_BODY}`);
}
const AFTER_BODY = ',"duration_ms":';
const NULL_BODY = Buffer.from(`null${AFTER_BODY}`);

/** A time's JSON text, kept for the last: requests answered in the same millisecond share it. */
let lastTime: { time: unknown; text: Buffer } = { time: undefined, text: NULL_TEXT };
export function timeBytes(time: unknown): Buffer {
  if (time !== lastTime.time) lastTime = { time, text: Buffer.from(json(time)) };
  return lastTime.text;
}

/** The JSON text of an epoch time as an entry's `time` (ISO 8601 in UTC), kept for the last. */
let lastAt = { at: Number.NaN, text: NULL_TEXT };
export function timeBytesAt(at: number): Buffer {
  if (at !== lastAt.at) lastAt = { at, text: Buffer.from(`"${isoTimeOfClock(at)}"`) };
  return lastAt.text;
}

/** JSON text of one value; `null` for one JSON.stringify would leave out (an entry the journal built has none). */
function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
