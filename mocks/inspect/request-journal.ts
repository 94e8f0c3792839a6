import { isoTimeOfClock, parseFilterTime } from '../core/iso-time.js';
import { journalStatusProblem } from '../../src/contract/sandbox-control.js';
import { redactAnswered, redactEntryInput } from './request-journal-redaction.js';
import { entryText, LiveShapes, timeBytesAt, type EntryText } from './entry-text.js';
import type { KnownSecrets } from '../../src/contract/redact.js';

/** What the pipeline learnt about a request while answering it (filled in as it goes; see core/pipeline.ts). */
export interface RequestNotes {
  /** The operationId (`createOrder`) or control route (`control:pay`) it reached. */
  route?: string | undefined;
  /** The account of the token it carried, by username. */
  account?: string | undefined;
  /** The rate-limit class and what was left of it, or that the limit refused the request. */
  rateLimit?: { class: string; limit?: number; remaining?: number; refused: boolean } | undefined;
  /** An order creation answered from the Idempotency-Key store: nothing new was made. */
  idempotentReplay?: boolean | undefined;
  /** The injected fault that acted on it, e.g. `error 503`, `drop_after`, `latency 40ms`. */
  fault?: string | undefined;
  /** For an unknown route or method: the nearest real one ("did you mean"). */
  nearMiss?: string | undefined;
}

/** One request the sandbox answered, as the journal keeps it. */
export interface JournalEntry {
  /** Increasing from 1 for the life of the sandbox (a `clear()` does not restart it). */
  id: number;
  /**
   * When it was answered, on the sandbox's clock: ISO 8601 in UTC with milliseconds (`2026-11-25T20:08:01.000Z`), the
   * one time format of every control view (mocks/core/iso-time.ts).
   */
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; credentials cut (Authorization shows only the token's family and last 4 characters). */
  headers: Record<string, string>;
  idempotency_key: string | null;
  request_body: string | null;
  /** null when the connection was dropped without an answer (an injected fault). */
  status: number | null;
  response_body: string | null;
  duration_ms: number;
  route: string | null;
  account: string | null;
  rate_limit: RequestNotes['rateLimit'] | null;
  idempotent_replay: boolean;
  fault: string | null;
  near_miss: string | null;
}

/** Which entries to pick. Every given field must match. */
export interface RequestFilter {
  /** One method or several (`['GET', 'POST']`), any case. */
  method?: string | readonly string[] | undefined;
  /** The exact path, a pattern with `*` for one segment and `**` for any rest (`/api/v1/me/orders/*`), or a RegExp. */
  path?: string | RegExp | undefined;
  /** A status, a class (`'4xx'`), or several. */
  status?: number | string | readonly (number | string)[] | undefined;
  /** The account's username. */
  account?: string | undefined;
  idempotencyKey?: string | undefined;
  /** Only entries at or after this time on the sandbox clock (epoch ms, Date, or ISO 8601: UTC unless it names a zone). */
  since?: number | Date | string | undefined;
  /** Only entries with a larger id (for following a journal). */
  afterId?: number | undefined;
}

export interface JournalOptions {
  /** Entries kept; the oldest go first. Default 1,000; 0 keeps none (for load tests). */
  size?: number;
  /** Bodies longer than this many characters are cut, with a marker saying how long they were. Default 16,384. */
  bodyLimit?: number;
  /**
   * The most characters of headers and bodies the kept requests may hold together; past it the oldest go first, however
   * few are kept. Default 268,435,456 (256 Mi: 256 to 512 MiB of memory, as the text is one or two bytes a character),
   * which the default 1,000 requests never reach (each holds at most two 64 KiB bodies and node's 16 KiB of headers).
   */
  maxChars?: number;
}

export const DEFAULT_JOURNAL_SIZE = 1_000;
export const DEFAULT_JOURNAL_MAX_CHARS = 256 * 2 ** 20;
const DEFAULT_BODY_LIMIT = 16_384;
/**
 * The longest body a slot keeps by reference until it is read. A longer one (a state loaded through the control API,
 * up to 64 MiB; a page of large orders) has its entry built, and so cut, as it is kept: a test suite that loads a
 * 10 MB state before each test would otherwise hold a thousand of them alive in the ring. The interface's own bodies
 * are at most 64 KiB, so the requests of a bot's usual traffic stay references.
 */
const MAX_REFERENCED_BODY_CHARS = 65_536;

/** What the sandbox hands the journal for one request: the entry without its id, bodies not yet cut. */
export type EntryInput = Omit<JournalEntry, 'id'>;

/**
 * One answered request as the core hands it over: references to what the request and its answer already hold, no
 * copies of what needs none. The entry (secrets cut by request-journal-redaction.ts, parsed query, ISO time, cut
 * bodies) is built from that only when read.
 */
export interface AnsweredRequest {
  at: number;
  durationMs: number;
  method: string;
  path: string;
  /** The raw query string, `?a=1` or empty. */
  search: string;
  /** Lower-case names, as the request carried them; redacted as the journal records them. */
  headers: Readonly<Record<string, string>>;
  requestBody: string | null;
  /** null when the connection was dropped. */
  status: number | null;
  responseBody: string | null;
  notes: RequestNotes;
}

/**
 * Every request the sandbox answered, in a bounded ring: what a bot sent and what it got, for a developer to look at
 * (`topup mock logs`, `/__sandbox/requests`) and for tests to verify (inspect/verify.ts).
 *
 * Kept in columns, not as an object per request: a busy sandbox writes a few references into arrays allocated once,
 * and builds an entry only when someone reads it. What a request leaves alive is then only what it carried (its
 * headers and bodies), which keeps the garbage collector's copying small (BENCHMARKS.md, journal cost).
 *
 * Secrets are cut as an entry is built, and an entry is the only thing that leaves this class: every reader (`list`,
 * `find`, `get`, the live stream, and through them `/__sandbox/requests`, the dashboard, `topup mock logs` and the
 * embedded sandbox's request log) sees an entry, never the columns. Cutting them when the request is kept cost the
 * cheapest requests a quarter of the sandbox's time for them, for entries most of which no one ever reads; until a
 * slot is read or reused, the columns hold only references to what the request itself carried.
 */
export class RequestJournal {
  readonly size: number;
  readonly #bodyLimit: number;
  readonly #maxChars: number;
  /** Characters of headers and bodies the kept slots hold (#charge summed): bounded by #maxChars. */
  #chars = 0;
  /** Per slot: what its request added to #chars; 0 once it is gone. */
  readonly #charge: Float64Array;
  /** Id of the next request; the kept ones are the ids from #firstId to #nextId - 1 (at most `size` of them). */
  #nextId = 1;
  #firstId = 1;
  /** The first id after the last clear(): what went before was cleared on purpose, not let go. */
  #clearedAt = 1;
  readonly #at: Float64Array;
  readonly #duration: Float64Array;
  /** The status, or -1 for a dropped connection. */
  readonly #status: Int16Array;
  readonly #method: (string | undefined)[];
  readonly #path: (string | undefined)[];
  readonly #search: (string | undefined)[];
  readonly #headers: (Readonly<Record<string, string>> | undefined)[];
  readonly #requestBody: (string | null)[];
  readonly #responseBody: (string | null)[];
  readonly #notes: (RequestNotes | undefined)[];
  /** Entries already built, by slot; cleared when the slot is reused. */
  readonly #built: (JournalEntry | undefined)[];
  readonly #listeners = new Set<(entry: JournalEntry) => void>();
  readonly #followers = new Set<(request: LiveRequest) => void>();
  /** What live requests of each path carried last, and their entries' text (for #followers). */
  readonly #liveShapes = new LiveShapes((body) => this.#cut(body));
  /** How a live request's entry is built: its secrets cut (with `known` when they are known already). */
  readonly #buildLive = (id: number, answered: AnsweredRequest, known?: KnownSecrets) => this.#build(id, redactAnswered(answered, known));

  constructor(options: JournalOptions = {}) {
    this.size = Math.max(0, Math.floor(options.size ?? DEFAULT_JOURNAL_SIZE));
    this.#bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.#maxChars = options.maxChars ?? DEFAULT_JOURNAL_MAX_CHARS;
    const n = this.size;
    this.#charge = new Float64Array(n);
    this.#at = new Float64Array(n);
    this.#duration = new Float64Array(n);
    this.#status = new Int16Array(n);
    this.#method = new Array<string | undefined>(n).fill(undefined);
    this.#path = new Array<string | undefined>(n).fill(undefined);
    this.#search = new Array<string | undefined>(n).fill(undefined);
    this.#headers = new Array<Readonly<Record<string, string>> | undefined>(n).fill(undefined);
    this.#requestBody = new Array<string | null>(n).fill(null);
    this.#responseBody = new Array<string | null>(n).fill(null);
    this.#notes = new Array<RequestNotes | undefined>(n).fill(undefined);
    this.#built = new Array<JournalEntry | undefined>(n).fill(undefined);
  }

  /** False with a size of 0: nothing is kept. */
  get enabled(): boolean {
    return this.size > 0;
  }

  /** Whether anyone wants entries: kept ones or a subscriber (`mock serve --log`). When not, the sandbox builds none. */
  get active(): boolean {
    return this.size > 0 || this.#listeners.size > 0 || this.#followers.size > 0;
  }

  /** Keeps one answered request, as the sandbox core hands it over; its secrets are cut when it is read. */
  keep(answered: AnsweredRequest): void {
    this.#keep(answered, undefined);
  }

  /** Keeps an entry that is already built (tests, imports), its secrets cut the same way. */
  record(given: EntryInput): void {
    const input = redactEntryInput(given);
    this.#keep(
      {
        at: Date.parse(input.time),
        durationMs: input.duration_ms,
        method: input.method,
        path: input.path,
        search: '',
        headers: input.headers,
        requestBody: input.request_body,
        status: input.status,
        responseBody: input.response_body,
        notes: {},
      },
      input,
    );
  }

  #keep(answered: AnsweredRequest, input: EntryInput | undefined): void {
    const id = this.#nextId++;
    if (this.size > 0) {
      const slot = id % this.size;
      let built = input === undefined ? undefined : this.#finish(id, input);
      // Built (redacted, then cut) at once when a body is long: see MAX_REFERENCED_BODY_CHARS.
      if (built === undefined && (isLong(answered.requestBody) || isLong(answered.responseBody)))
        built = this.#build(id, redactAnswered(answered));
      // A built entry is what every read of the slot gets: it keeps no reference to the bodies it was built from.
      if (built !== undefined) answered = { ...answered, requestBody: null, responseBody: null };
      this.#at[slot] = answered.at;
      this.#duration[slot] = answered.durationMs;
      this.#status[slot] = answered.status ?? -1;
      this.#method[slot] = answered.method;
      this.#path[slot] = answered.path;
      this.#search[slot] = answered.search;
      this.#headers[slot] = answered.headers;
      this.#requestBody[slot] = answered.requestBody;
      this.#responseBody[slot] = answered.responseBody;
      this.#notes[slot] = answered.notes;
      this.#built[slot] = built;
      // The slot's last request goes (its charge with it) as this one takes its place.
      const charge = charged(answered.headers, built?.request_body ?? answered.requestBody, built?.response_body ?? answered.responseBody);
      this.#chars += charge - this.#charge[slot]!;
      this.#charge[slot] = charge;
      if (id - this.#firstId >= this.size) this.#firstId = id - this.size + 1;
      while (this.#chars > this.#maxChars && this.#firstId < id) this.#dropOldest();
    } else {
      this.#firstId = this.#nextId;
    }
    if (this.#followers.size > 0) {
      const built = this.size > 0 ? this.#built[id % this.size] : input === undefined ? undefined : this.#finish(id, input);
      const live = new LiveRequest(id, answered, built, this.#liveShapes, this.#buildLive);
      for (const follower of this.#followers) notify(follower, live);
      if (this.#listeners.size > 0) {
        const entry = live.entry();
        for (const listener of this.#listeners) notify(listener, entry);
      }
    } else if (this.#listeners.size > 0) {
      // Not kept built in the ring: a listener (`mock serve --log`) is done with it at once, and an entry kept for the
      // 1,000 requests after would outlive the young generation; a read builds the same entry again.
      const entry =
        this.size > 0
          ? this.#entryAt(id, false)
          : input !== undefined
            ? this.#finish(id, input)
            : this.#build(id, redactAnswered(answered));
      for (const listener of this.#listeners) notify(listener, entry);
    }
  }

  /** Entries matching the filter, oldest first. */
  list(filter: RequestFilter = {}): JournalEntry[] {
    const matches = compileFilter(filter);
    const entries: JournalEntry[] = [];
    // after_id (following a journal) skips what it has seen without building it.
    const from = filter.afterId === undefined ? this.#firstId : Math.max(this.#firstId, filter.afterId + 1);
    for (let id = from; id < this.#nextId; id++) {
      const entry = this.#entryAt(id);
      if (matches(entry)) entries.push(entry);
    }
    return entries;
  }

  /** The newest entry matching the filter. */
  find(filter: RequestFilter = {}): JournalEntry | undefined {
    const matches = compileFilter(filter);
    for (let id = this.#nextId - 1; id >= this.#firstId; id--) {
      const entry = this.#entryAt(id);
      if (matches(entry)) return entry;
    }
    return undefined;
  }

  count(filter: RequestFilter = {}): number {
    return this.list(filter).length;
  }

  get(id: number): JournalEntry | undefined {
    return Number.isInteger(id) && id >= this.#firstId && id < this.#nextId ? this.#entryAt(id) : undefined;
  }

  /** Forgets every kept request; ids go on from where they were. */
  clear(): void {
    this.#firstId = this.#nextId;
    this.#clearedAt = this.#nextId;
    this.#chars = 0;
    this.#charge.fill(0);
    this.#headers.fill(undefined);
    this.#notes.fill(undefined);
    this.#requestBody.fill(null);
    this.#responseBody.fill(null);
    this.#built.fill(undefined);
    this.#liveShapes.clear();
  }

  /** The oldest kept request goes, and with it what its slot held (past #maxChars). */
  #dropOldest(): void {
    const slot = this.#firstId % this.size;
    this.#chars -= this.#charge[slot]!;
    this.#charge[slot] = 0;
    this.#headers[slot] = undefined;
    this.#notes[slot] = undefined;
    this.#requestBody[slot] = null;
    this.#responseBody[slot] = null;
    this.#built[slot] = undefined;
    this.#firstId += 1;
  }

  /**
   * How many of the requests a filter asks about are no longer kept: let go past the journal's size or character
   * budget since it was made or last cleared (with size 0, every one). Only those after `afterId`, and none when the
   * oldest kept request is already older than `since`. A count over the journal would miss them.
   */
  letGo(filter: Pick<RequestFilter, 'afterId' | 'since'> = {}): number {
    const from = Math.max(this.#clearedAt, (filter.afterId ?? 0) + 1);
    const lost = Math.max(0, this.#firstId - from);
    if (lost === 0 || filter.since === undefined || this.#firstId >= this.#nextId) return lost;
    return Date.parse(this.#entryAt(this.#firstId).time) < sinceMs(filter.since) ? 0 : lost;
  }

  /** Calls `listener` with every entry from now on; returns the function that stops it. */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `follower` with every request from now on as a LiveRequest, whose entry is built only when asked for: for
   * the live stream, which needs its text (entry-text.ts), most often without an entry. Returns the function that
   * stops it. The sandbox's own (mocks/adapters/journal-stream.ts), not part of the documented API: a test or a tool
   * subscribes (`subscribe`), and gets entries.
   */
  follow(follower: (request: LiveRequest) => void): () => void {
    this.#followers.add(follower);
    return () => this.#followers.delete(follower);
  }

  /** The entry `id` (in the ring), built from its columns the first time; `keep` keeps it built for the next read. */
  #entryAt(id: number, keep = true): JournalEntry {
    const slot = id % this.size;
    let entry = this.#built[slot];
    if (entry === undefined) {
      const status = this.#status[slot]!;
      entry = this.#build(
        id,
        redactAnswered({
          at: this.#at[slot]!,
          durationMs: this.#duration[slot]!,
          method: this.#method[slot]!,
          path: this.#path[slot]!,
          search: this.#search[slot]!,
          headers: this.#headers[slot]!,
          requestBody: this.#requestBody[slot]!,
          status: status === -1 ? null : status,
          responseBody: this.#responseBody[slot]!,
          notes: this.#notes[slot]!,
        }),
      );
      if (keep) this.#built[slot] = entry;
    }
    return entry;
  }

  /**
   * The entry of an answered request whose secrets are already cut. One object literal, in the order of the fields of
   * JournalEntry (what JSON.stringify writes): with a live-stream reader every request is built at once.
   */
  #build(id: number, answered: AnsweredRequest): JournalEntry {
    const { headers, notes } = answered;
    return {
      time: isoTimeOf(answered.at),
      method: answered.method,
      path: answered.path,
      query: answered.search === '' ? {} : Object.fromEntries(new URLSearchParams(answered.search)),
      headers,
      idempotency_key: headers['idempotency-key'] ?? null,
      request_body: this.#cut(answered.requestBody),
      status: answered.status,
      response_body: this.#cut(answered.responseBody),
      duration_ms: roundedDuration(answered.durationMs),
      route: notes.route ?? null,
      account: notes.account ?? null,
      rate_limit: notes.rateLimit ?? null,
      idempotent_replay: notes.idempotentReplay ?? false,
      fault: notes.fault ?? null,
      near_miss: notes.nearMiss ?? null,
      id,
    };
  }

  #finish(id: number, input: EntryInput): JournalEntry {
    return { ...input, id, request_body: this.#cut(input.request_body), response_body: this.#cut(input.response_body) };
  }

  #cut(body: string | null): string | null {
    if (body === null || body.length <= this.#bodyLimit) return body;
    // A copy: V8's slice of a long string points into it, and would keep the whole body alive with the entry.
    return detached(`${body.slice(0, this.#bodyLimit)}…[truncated: ${body.length} characters in all]`);
  }
}

/**
 * One request as it is answered, for a live reader (RequestJournal.follow): its entry's JSON text in pieces, made from
 * what the request carried (entry-text.ts LiveShapes), and the entry itself, built (secrets cut) only when asked for.
 * Nothing in it is the request's own text uncut.
 */
export class LiveRequest implements EntryText {
  readonly id: number;
  readonly time: Buffer;
  readonly request: Buffer;
  readonly body: Buffer;
  readonly durationMs: unknown;
  readonly outcome: Buffer;
  #entry: JournalEntry | undefined;
  readonly #answered: AnsweredRequest;
  readonly #build: (id: number, answered: AnsweredRequest, known?: KnownSecrets) => JournalEntry;

  constructor(
    id: number,
    answered: AnsweredRequest,
    built: JournalEntry | undefined,
    shapes: LiveShapes,
    build: (id: number, answered: AnsweredRequest, known?: KnownSecrets) => JournalEntry,
  ) {
    this.id = id;
    this.#answered = answered;
    this.#build = build;
    this.#entry = built;
    if (built !== undefined) {
      // Recorded whole, or with a long body cut as it was kept: written from the entry.
      const text = entryText(built);
      this.time = text.time;
      this.request = text.request;
      this.body = text.body;
      this.durationMs = text.durationMs;
      this.outcome = text.outcome;
    } else {
      this.time = timeBytesAt(answered.at);
      this.durationMs = roundedDuration(answered.durationMs);
      const pieces = shapes.piecesOf(answered, (known) => (this.#entry = build(id, answered, known)));
      this.request = pieces.request;
      this.body = pieces.answerText;
      this.outcome = pieces.outcome;
    }
  }

  /** Its entry, as every read of the journal would build it. */
  entry(): JournalEntry {
    return (this.#entry ??= this.#build(this.id, this.#answered));
  }
}

/** An entry's `duration_ms`: milliseconds to the microsecond. */
const roundedDuration = (durationMs: number) => Math.round(durationMs * 1000) / 1000;

const isLong = (body: string | null) => body !== null && body.length > MAX_REFERENCED_BODY_CHARS;

/** What a kept request holds alive, in characters: its headers' names and values, and its bodies. */
function charged(headers: Readonly<Record<string, string>>, requestBody: string | null, responseBody: string | null): number {
  let chars = (requestBody?.length ?? 0) + (responseBody?.length ?? 0);
  for (const name in headers) chars += name.length + headers[name]!.length;
  return chars;
}

/** The same text in a string of its own (UTF-16 both ways, so that any string, lone surrogates too, comes back whole). */
const detached = (text: string) => Buffer.from(text, 'utf16le').toString('utf16le');

/** The last time turned into ISO 8601: requests that come in the same millisecond share it. */
let lastIso = { at: Number.NaN, text: '' };
function isoTimeOf(at: number): string {
  if (at !== lastIso.at) lastIso = { at, text: isoTimeOfClock(at) };
  return lastIso.text;
}

/** A filter that cannot match as meant (a status that is none, a time that is none): it is refused, never run. */
export class RequestFilterError extends TypeError {
  override name = 'RequestFilterError';
  constructor(
    message: string,
    /** The filter's field at fault, as `/__sandbox/requests` names it (`status`, `since`, `after_id`). */
    readonly field: string,
  ) {
    super(message);
  }
}

/** A filter's `since` in epoch milliseconds: text as the control API reads it (UTC unless it names a zone). */
function sinceMs(since: number | Date | string): number {
  return typeof since === 'string' ? parseFilterTime(since) : new Date(since).getTime();
}

/**
 * A predicate for the filter; every field given must match. A value that can match nothing by mistake (a status `abc`,
 * a `since` that is no time) throws RequestFilterError, so that an assertion built on it cannot pass for that reason.
 */
export function compileFilter(filter: RequestFilter): (entry: JournalEntry) => boolean {
  const methods =
    filter.method === undefined
      ? undefined
      : new Set((typeof filter.method === 'string' ? [filter.method] : filter.method).map(knownMethod));
  const path =
    filter.path === undefined ? undefined : typeof filter.path === 'string' ? pathPattern(filter.path) : plainRegExp(filter.path);
  const statuses = filter.status === undefined ? undefined : statusValues(filter.status).map(statusTest);
  const since = filter.since === undefined ? undefined : sinceMs(filter.since);
  if (since !== undefined && !Number.isFinite(since))
    throw new RequestFilterError(`since must be a time (a Date, epoch milliseconds or ISO 8601), not ${String(filter.since)}.`, 'since');
  if (filter.afterId !== undefined && !Number.isSafeInteger(filter.afterId))
    throw new RequestFilterError(`afterId must be a whole number, not ${String(filter.afterId)}.`, 'after_id');
  return (entry) =>
    (methods === undefined || methods.has(entry.method)) &&
    (path === undefined || path.test(entry.path)) &&
    (statuses === undefined || statuses.some((test) => test(entry.status))) &&
    (filter.account === undefined || entry.account === filter.account) &&
    (filter.idempotencyKey === undefined || entry.idempotency_key === filter.idempotencyKey) &&
    (since === undefined || Date.parse(entry.time) >= since) &&
    (filter.afterId === undefined || entry.id > filter.afterId);
}

/** The methods a journal entry can have: a filter naming another could only match nothing, by mistake. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function knownMethod(method: string): string {
  const upper = String(method).toUpperCase();
  if (METHODS.has(upper)) return upper;
  throw new RequestFilterError(
    `method must be one of ${[...METHODS].join(', ')}, not ${JSON.stringify(String(method).slice(0, 40))}.`,
    'method',
  );
}

/** A caller's RegExp without `g` or `y`, whose test() would carry lastIndex from one entry to the next. */
function plainRegExp(pattern: RegExp): RegExp {
  return pattern.global || pattern.sticky ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')) : pattern;
}

/** `/api/v1/me/orders/*` → one segment; `/**` → any rest; anything else is exact. */
function pathPattern(pattern: string): RegExp {
  // A journal keeps paths as `/api/v1/…`: a URL or a relative path could only match nothing, by mistake.
  if (!pattern.startsWith('/')) {
    const url = URL.canParse(pattern) ? new URL(pattern) : undefined;
    throw new RequestFilterError(
      `path must start with / (a path, as /api/v1/me/orders), not ${JSON.stringify(pattern.slice(0, 80))}${url === undefined ? '.' : `; did you mean ${url.pathname}?`}`,
      'path',
    );
  }
  const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const escaped = pattern
    .split('**')
    .map((part) => part.split('*').map(escape).join('[^/]+'))
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

/** The statuses a filter names: one, several, or several in one string as a query gives them (`2xx,429`). */
function statusValues(status: NonNullable<RequestFilter['status']>): (number | string)[] {
  const given = (Array.isArray(status) ? status : [status]) as readonly (number | string)[];
  const values = given.flatMap((value): (number | string)[] => (typeof value === 'string' ? value.split(',') : [value]));
  if (values.length === 0) throw new RequestFilterError('status must name at least one status or class.', 'status');
  return values;
}

function statusTest(status: number | string): (actual: number | null) => boolean {
  const problem = journalStatusProblem(status);
  if (problem !== undefined) throw new RequestFilterError(`status: ${problem}.`, 'status');
  if (typeof status === 'number') return (actual) => actual === status;
  const text = status.trim().toLowerCase();
  if (/^[1-5]xx$/.test(text)) return (actual) => actual !== null && Math.floor(actual / 100) === Number(text[0]);
  if (text === 'dropped') return (actual) => actual === null;
  return (actual) => actual === Number(text);
}

/**
 * A listener's own failure is its own: it must not fail the request being answered (a bot would see a dropped
 * connection, though the order was made). Reported as an event listener's is, as an uncaught exception, on its own.
 */
function notify<T>(listener: (value: T) => void, entry: T): void {
  try {
    listener(entry);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
