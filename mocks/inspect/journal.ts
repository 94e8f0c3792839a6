import { TOKEN_PREFIXES } from '../../src/contract/token-prefix.js';

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
  /** Epoch milliseconds on the sandbox's clock, and the same as ISO 8601. */
  at: number;
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; Authorization shows only the token's family and last 4 characters. */
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
  /** Only entries at or after this time (epoch ms, Date or ISO 8601). */
  since?: number | Date | string | undefined;
  /** Only entries with a larger id (for following a journal). */
  afterId?: number | undefined;
}

export interface JournalOptions {
  /** Entries kept; the oldest go first. Default 1,000; 0 keeps none (for load tests). */
  size?: number;
  /** Bodies longer than this many characters are cut, with a marker saying how long they were. Default 16,384. */
  bodyLimit?: number;
}

export const DEFAULT_JOURNAL_SIZE = 1_000;
const DEFAULT_BODY_LIMIT = 16_384;

/**
 * Every request the sandbox answered, in a bounded ring: what a bot sent and what it got, for a developer to look at
 * (`topup mock logs`, `/__sandbox/requests`) and for tests to verify (inspect/verify.ts).
 */
/** What the sandbox hands the journal for one request: the entry without its id, bodies not yet cut. */
export type EntryInput = Omit<JournalEntry, 'id'>;

/** A kept request: built into an entry only when someone reads it, so that a busy sandbox pays little to keep it. */
interface Slot {
  readonly id: number;
  build: (() => EntryInput) | undefined;
  entry: JournalEntry | undefined;
}

export class RequestJournal {
  readonly size: number;
  readonly #bodyLimit: number;
  #slots: Slot[] = [];
  #nextId = 1;
  readonly #listeners = new Set<(entry: JournalEntry) => void>();

  constructor(options: JournalOptions = {}) {
    this.size = Math.max(0, Math.floor(options.size ?? DEFAULT_JOURNAL_SIZE));
    this.#bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  }

  /** False with a size of 0: nothing is kept. */
  get enabled(): boolean {
    return this.size > 0;
  }

  /** Whether anyone wants entries: kept ones or a subscriber (`mock serve --log`). When not, the sandbox builds none. */
  get active(): boolean {
    return this.size > 0 || this.#listeners.size > 0;
  }

  /**
   * Keeps one answered request. Called by the sandbox core with the entry, or with a function that builds it: that is
   * called only when the entry is first read (or a listener wants it), as most kept requests never are.
   */
  record(input: EntryInput | (() => EntryInput)): void {
    const slot: Slot =
      typeof input === 'function'
        ? { id: this.#nextId++, build: input, entry: undefined }
        : { id: this.#nextId++, build: undefined, entry: undefined };
    if (typeof input !== 'function') slot.entry = this.#finish(slot.id, input);
    if (this.enabled) {
      this.#slots.push(slot);
      // Dropped in batches, so that a full journal does not shift its array on every request.
      if (this.#slots.length > this.size + Math.ceil(this.size / 10)) this.#slots = this.#slots.slice(-this.size);
    }
    if (this.#listeners.size > 0) {
      const entry = this.#entryOf(slot);
      for (const listener of this.#listeners) listener(entry);
    }
  }

  /** Entries matching the filter, oldest first. */
  list(filter: RequestFilter = {}): JournalEntry[] {
    const matches = compileFilter(filter);
    return this.#window().filter(matches);
  }

  /** The newest entry matching the filter. */
  find(filter: RequestFilter = {}): JournalEntry | undefined {
    const matches = compileFilter(filter);
    const entries = this.#window();
    for (let i = entries.length - 1; i >= 0; i--) if (matches(entries[i]!)) return entries[i];
    return undefined;
  }

  count(filter: RequestFilter = {}): number {
    return this.list(filter).length;
  }

  get(id: number): JournalEntry | undefined {
    const slot = this.#kept().find((s) => s.id === id);
    return slot === undefined ? undefined : this.#entryOf(slot);
  }

  clear(): void {
    this.#slots = [];
  }

  /** Calls `listener` with every entry from now on; returns the function that stops it. */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #kept(): Slot[] {
    return this.#slots.length > this.size ? this.#slots.slice(-this.size) : this.#slots;
  }

  #window(): JournalEntry[] {
    return this.#kept().map((slot) => this.#entryOf(slot));
  }

  #entryOf(slot: Slot): JournalEntry {
    if (slot.entry === undefined) {
      slot.entry = this.#finish(slot.id, slot.build!());
      slot.build = undefined;
    }
    return slot.entry;
  }

  #finish(id: number, input: EntryInput): JournalEntry {
    return { ...input, id, request_body: this.#cut(input.request_body), response_body: this.#cut(input.response_body) };
  }

  #cut(body: string | null): string | null {
    if (body === null || body.length <= this.#bodyLimit) return body;
    return `${body.slice(0, this.#bodyLimit)}…[truncated: ${body.length} characters in all]`;
  }
}

/** The Authorization value as the journal shows it: the scheme, the token's family and its last 4 characters. */
export function redactAuthorization(value: string): string {
  const match = /^(\S+)\s+(\S+)$/.exec(value.trim());
  if (match === null) return '[redacted]';
  const [, scheme, token] = match as unknown as [string, string, string];
  if (token.length < 12) return `${scheme} [redacted]`;
  const family = Object.values(TOKEN_PREFIXES).find((prefix) => token.startsWith(prefix)) ?? '';
  return `${scheme} ${family}…${token.slice(-4)}`;
}

/** A predicate for the filter; every field given must match. */
export function compileFilter(filter: RequestFilter): (entry: JournalEntry) => boolean {
  const methods =
    filter.method === undefined
      ? undefined
      : new Set((typeof filter.method === 'string' ? [filter.method] : filter.method).map((m) => m.toUpperCase()));
  const path = filter.path === undefined ? undefined : typeof filter.path === 'string' ? pathPattern(filter.path) : filter.path;
  const statuses =
    filter.status === undefined ? undefined : (Array.isArray(filter.status) ? filter.status : [filter.status]).map(statusTest);
  const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
  return (entry) =>
    (methods === undefined || methods.has(entry.method)) &&
    (path === undefined || path.test(entry.path)) &&
    (statuses === undefined || statuses.some((test) => test(entry.status))) &&
    (filter.account === undefined || entry.account === filter.account) &&
    (filter.idempotencyKey === undefined || entry.idempotency_key === filter.idempotencyKey) &&
    (since === undefined || entry.at >= since) &&
    (filter.afterId === undefined || entry.id > filter.afterId);
}

/** `/api/v1/me/orders/*` → one segment; `/**` → any rest; anything else is exact. */
function pathPattern(pattern: string): RegExp {
  const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const escaped = pattern
    .split('**')
    .map((part) => part.split('*').map(escape).join('[^/]+'))
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

function statusTest(status: number | string): (actual: number | null) => boolean {
  if (typeof status === 'number') return (actual) => actual === status;
  const text = status.trim().toLowerCase();
  if (/^[1-5]xx$/.test(text)) return (actual) => actual !== null && Math.floor(actual / 100) === Number(text[0]);
  if (text === 'dropped') return (actual) => actual === null;
  return (actual) => actual === Number(text);
}
