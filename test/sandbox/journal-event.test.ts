import { describe, expect, it } from 'vitest';
import { eventBytes } from '../../mocks/adapters/journal-event.js';
import { entryText } from '../../mocks/inspect/entry-text.js';
import { RequestJournal, type AnsweredRequest, type JournalEntry, type LiveRequest } from '../../mocks/inspect/request-journal.js';
import { journalEntry as anyEntry } from '../support/journal-entry.js';

/** An entry with its fields in the order the journal builds them (request-journal.ts #build): `id` last. */
function journalEntry(fields: Partial<JournalEntry> = {}): JournalEntry {
  const { id, ...rest } = anyEntry(fields);
  return { ...rest, id };
}

/** The event's text, as a reader gets it. */
function eventText(entry: JournalEntry): string {
  return eventBytes([entryText(entry)], 'run').toString('utf8');
}

/** What the event must be: the entry exactly as JSON.stringify writes it. */
function expected(entry: JournalEntry, id = `${entry.id}@run`): string {
  return `id: ${id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;
}

const CATALOG = '{"success":true,"message":"Credit packages retrieved.","data":{"packages":[]}}';

describe('a journal entry as its Server-Sent Event', () => {
  it('is JSON.stringify of the entry, whatever its fields hold', () => {
    const entries = [
      journalEntry(),
      journalEntry({ response_body: CATALOG, headers: { host: 'x', connection: 'keep-alive' } }),
      journalEntry({
        method: 'POST',
        path: '/api/v1/me/orders',
        query: Object.fromEntries([
          ['__proto__', 'p'],
          ['2', 'b'],
          ['1', 'a'],
          ['é', '\u2028'],
        ]),
        headers: { 'x-lone': '\ud800', 'idempotency-key': 'k"1', authorization: 'Bearer topu…dc' },
        idempotency_key: 'k"1',
        request_body: '{"a":"\u0000"}',
        status: null,
        response_body: null,
        duration_ms: 0.125,
        route: 'createOrder',
        account: 'démo',
        rate_limit: { class: 'orders', limit: 10, remaining: 9, refused: false },
        idempotent_replay: true,
        fault: 'drop_after',
        near_miss: '"response_body":"\u0000"',
        id: 2 ** 40,
      }),
    ];
    for (const entry of entries) expect(eventText(entry)).toBe(expected(entry));
  });

  it('gives each repeated request its own text when one field at a time differs from the last of its path', () => {
    const base = journalEntry({
      path: '/api/v1/me/balance',
      headers: { host: 'a', authorization: 'Bearer topu…dc' },
      response_body: CATALOG,
    });
    const variants: Partial<JournalEntry>[] = [
      {},
      {}, // the same again: the kept bytes
      { method: 'HEAD' },
      { query: { page: '2' } },
      { query: { page: '3' } },
      { headers: { host: 'b', authorization: 'Bearer topu…dc' } },
      { headers: { authorization: 'Bearer topu…dc', host: 'a' } }, // the same headers in another order
      { headers: { host: 'a', authorization: 'Bearer topu…dc', accept: '*/*' } },
      { headers: { host: 'a' } },
      { idempotency_key: 'k1' },
      { request_body: '{}' },
      { status: 401 },
      { status: null },
      { route: 'getBalance' },
      { account: 'demo' },
      { account: 'rich' },
      { rate_limit: { class: 'reads', limit: 60, remaining: 59, refused: false } },
      { rate_limit: { class: 'reads', limit: 60, remaining: 58, refused: false } },
      { rate_limit: { class: 'reads', remaining: 58, limit: 60, refused: false } },
      { idempotent_replay: true },
      { fault: 'error 503' },
      { near_miss: 'GET /api/v1/me/balance' },
      { response_body: null },
      { duration_ms: Number.NaN },
      {},
    ];
    variants.forEach((fields, index) => {
      const entry = journalEntry({ ...base, ...fields, id: index + 1, time: `2026-11-29T00:00:0${index % 10}.000Z` });
      expect(eventText(entry), JSON.stringify(fields)).toBe(expected(entry));
    });
  });

  it('keeps its own copy of what it compares: an entry changed after its event does not change the next', () => {
    const first = journalEntry({ path: '/copied', headers: { a: '1' }, query: { q: '1' }, rate_limit: { class: 'reads', refused: false } });
    expect(eventText(first)).toBe(expected(first));
    // Whoever else was handed the entry changes it; the next request carries what it was changed to.
    first.headers.a = '2';
    first.query.q = '2';
    first.rate_limit!.refused = true;
    const second = journalEntry({
      id: 2,
      path: '/copied',
      headers: { a: '2' },
      query: { q: '2' },
      rate_limit: { class: 'reads', refused: true },
    });
    expect(eventText(second)).toBe(expected(second));
  });

  it('writes an entry recorded with missing fields as valid JSON', () => {
    const partial = { id: 3, time: '2026-11-29T00:00:00.000Z', method: 'GET', path: '/partial' } as unknown as JournalEntry;
    const text = eventText(partial);
    const data = JSON.parse(text.slice(text.indexOf('data: ') + 6)) as Record<string, unknown>;
    expect(data).toMatchObject({ id: 3, method: 'GET', path: '/partial', response_body: null, duration_ms: null });
  });

  it('puts many events in one buffer, each whole', () => {
    const entries = Array.from({ length: 200 }, (_, i) =>
      journalEntry({ id: i + 1, path: `/p/${i % 70}`, headers: { n: String(i % 3) }, response_body: i % 2 === 0 ? CATALOG : null }),
    );
    const text = eventBytes(entries.map(entryText), 'run').toString('utf8');
    expect(text).toBe(entries.map((entry) => expected(entry)).join(''));
  });
});

/** A request as the sandbox's core hands it to the journal: node's headers, the route's notes. */
function answered(fields: Partial<AnsweredRequest> = {}): AnsweredRequest {
  return {
    at: Date.UTC(2026, 10, 29, 0, 0, 0, 7),
    durationMs: 0.0523,
    method: 'GET',
    path: '/api/v1/me/balance',
    search: '',
    headers: { host: '127.0.0.1:4010', authorization: `Bearer ${TOKEN}`, accept: '*/*' },
    requestBody: null,
    status: 200,
    responseBody: CATALOG,
    notes: { route: 'getBalance', account: 'demo' },
    ...fields,
  };
}

const TOKEN = 'topup_test_live0000000000000000000000000001';
const OTHER_TOKEN = 'topup_test_live0000000000000000000000000002';

/** What a journal's follower gets for each request, as its events' text, beside what a read of the journal builds. */
function followed(journal: RequestJournal, requests: readonly AnsweredRequest[]): { sent: string; held: string }[] {
  const live: LiveRequest[] = [];
  const stop = journal.follow((request) => live.push(request));
  for (const request of requests) journal.keep(request);
  stop();
  return live.map((request) => ({
    sent: eventBytes([request], 'run').toString('utf8'),
    // A journal of size 0 holds none: the follower's own entry, built as a read would build it.
    held: expected(journal.size > 0 ? journal.get(request.id)! : request.entry()),
  }));
}

describe('a live request as its Server-Sent Event, written from what it carried', () => {
  it('is the entry a read of the journal builds, when each request differs from the last of its path in one thing', () => {
    const base = answered();
    const variants: Partial<AnsweredRequest>[] = [
      {},
      {}, // the same again: the kept bytes
      { at: base.at + 1, durationMs: 12.3456 },
      { method: 'HEAD' },
      { search: '?page=2' },
      { search: `?page=2&access_token=${TOKEN}` },
      { headers: { host: '127.0.0.1:4010', authorization: `Bearer ${OTHER_TOKEN}`, accept: '*/*' } },
      { headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1:4010', accept: '*/*' } }, // another order
      { headers: { host: '127.0.0.1:4010', authorization: `Bearer ${TOKEN}` } }, // one fewer
      { headers: { host: '127.0.0.1:4010', authorization: `Bearer ${TOKEN}`, accept: '*/*', 'x-trace': '1' } },
      { headers: { host: '127.0.0.1:4010', authorization: `Bearer ${TOKEN}`, accept: '*/*', 'idempotency-key': 'k"1' } },
      { requestBody: '{"token":"topup_test_body000000000000000000000000000"}' },
      { requestBody: '{"token":"topup_test_body000000000000000000000000001"}' },
      { status: 401 },
      { status: null, responseBody: null },
      { notes: { route: 'getProfile', account: 'demo' } },
      { notes: { route: 'getBalance', account: 'rich' } },
      { notes: { route: 'getBalance', account: 'demo', rateLimit: { class: 'reads', limit: 60, remaining: 59, refused: false } } },
      { notes: { route: 'getBalance', account: 'demo', rateLimit: { class: 'reads', limit: 60, remaining: 58, refused: false } } },
      { notes: { route: 'getBalance', account: 'demo', rateLimit: { class: 'reads', remaining: 58, limit: 60, refused: false } } },
      { notes: { route: 'getBalance', account: 'demo', idempotentReplay: true } },
      { notes: { route: 'getBalance', account: 'demo', fault: 'error 503' } },
      { notes: { route: 'getBalance', account: 'demo', nearMiss: 'GET /api/v1/me/balance' } },
      { notes: { route: 'getBalance', account: 'demo', fault: undefined } }, // as none
      {},
    ];
    // Each one after the base request, and the base again after it: each differs from the last in that one thing.
    const requests = variants.flatMap((fields) => [base, answered({ ...base, ...fields })]);
    for (const size of [1_000, 0]) {
      const events = followed(new RequestJournal({ size }), requests);
      expect(events).toHaveLength(requests.length);
      events.forEach(({ sent, held }, index) => expect(sent, `${size}: ${JSON.stringify(variants[index >> 1])}`).toBe(held));
    }
  });

  it('cuts the secrets of each request out of its answer, whichever answer comes with the same request', () => {
    // The same request each time; the answers echo its token, another one, or nothing. Each answer is cut for the
    // secrets its own request carried (the kept ones, as the request is the same), never shown whole.
    const echo = (token: string) => JSON.stringify({ success: true, data: { note: `you sent ${token}` } });
    const bodies = [CATALOG, echo(TOKEN), echo(TOKEN), CATALOG, echo(OTHER_TOKEN), null, echo(TOKEN)];
    const events = followed(
      new RequestJournal(),
      bodies.map((responseBody) => answered({ responseBody })),
    );
    for (const { sent, held } of events) {
      expect(sent).toBe(held);
      expect(sent).not.toContain(TOKEN);
      expect(sent).not.toContain(OTHER_TOKEN);
    }
    // Cut as a token is shown: its family and last four characters.
    expect(events[1]!.sent).toContain('you sent topup_test_…0001');
  });

  it("cuts bodies to the journal's limit, and writes entries built as they were kept (a long body, record())", () => {
    const journal = new RequestJournal({ bodyLimit: 20 });
    const long = JSON.stringify({ pad: 'y'.repeat(70_000), token: TOKEN });
    const requests = [
      answered({ responseBody: 'x'.repeat(30) }),
      answered({ responseBody: 'z'.repeat(30) }),
      answered({ responseBody: long }),
    ];
    const live: LiveRequest[] = [];
    journal.follow((request) => live.push(request));
    for (const request of requests) journal.keep(request);
    journal.record(journalEntry({ path: '/recorded', headers: { authorization: `Bearer ${TOKEN}` }, response_body: 'w'.repeat(30) }));
    expect(live).toHaveLength(4);
    for (const request of live) {
      const sent = eventBytes([request], 'run').toString('utf8');
      expect(sent).toBe(expected(journal.get(request.id)!));
      expect(sent).not.toContain(TOKEN);
      expect(sent).toContain('[truncated: ');
    }
  });

  it('writes the same entries after the journal is cleared (which forgets what the last requests carried)', () => {
    const journal = new RequestJournal();
    const first = followed(journal, [answered()]);
    journal.clear();
    const second = followed(journal, [answered()]);
    expect(second[0]!.sent).toBe(second[0]!.held);
    // Only the id differs, in the event's id line and at the end of its data: the same request, kept again.
    const asFirst = second[0]!.sent.replace(/^id: 2@/, 'id: 1@').replace(/,"id":2\}\n\n$/, ',"id":1}\n\n');
    expect(asFirst).toBe(first[0]!.sent);
  });
});

describe('the events of a batch', () => {
  it('write ids, durations and odd values as JSON.stringify does', () => {
    const entries = [0, 9, 10, 99, 100, 2 ** 40, Number.MAX_SAFE_INTEGER].flatMap((id) =>
      [0, 0.001, 0.01, 1.5, 10, 123_456.789, 1e21, -0, Number.NaN, Number.POSITIVE_INFINITY].map((duration_ms) =>
        journalEntry({ id, duration_ms }),
      ),
    );
    const odd = [
      journalEntry({ id: 3, duration_ms: '12' as unknown as number }),
      journalEntry({ id: 4, duration_ms: 'é"' as unknown as number }),
    ];
    const all = [...entries, ...odd];
    expect(eventBytes(all.map(entryText), 'run').toString('utf8')).toBe(all.map((entry) => expected(entry)).join(''));
  });

  it('write a duration to the microsecond, as the journal rounds it, and any other fraction, as String() does', () => {
    // Every thousandth up to 20 ms, then some from each power of ten up to the fast path's end (1e12) and past it.
    const rounded = Array.from({ length: 20_000 }, (_, k) => k / 1000);
    for (let power = 1; power <= 14; power++)
      for (const k of [1, 7, 10, 99, 100, 101, 999, 1001, 123_457])
        rounded.push(Math.round(10 ** power * 1000 + k) / 1000, Math.round(10 ** power * 999 + k) / 1000);
    const others = [0.0001, 0.0005, 1e-7, 5e-324, 0.1 + 0.2, 1 / 3, 999_999_999_999.999, 1e12 + 0.5, 2 ** 53 + 2, 1e21];
    const entries = [...rounded, ...others].map((duration_ms, index) => journalEntry({ id: index, duration_ms }));
    expect(eventBytes(entries.map(entryText), 'run').toString('utf8')).toBe(entries.map((entry) => expected(entry)).join(''));
  });

  it("name each event by its server's instance, whatever its text", () => {
    const entry = journalEntry({ id: 7 });
    for (const instance of ['run', 'é-ü', '00000000-0000-4000-8000-000000000000'])
      expect(eventBytes([entryText(entry)], instance).toString('utf8')).toBe(expected(entry, `7@${instance}`));
  });
});
