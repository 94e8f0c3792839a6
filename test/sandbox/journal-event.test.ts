import { describe, expect, it } from 'vitest';
import { wireBytes, wireEvent } from '../../mocks/adapters/journal-event.js';
import type { JournalEntry } from '../../mocks/inspect/request-journal.js';
import { journalEntry as anyEntry } from '../support/journal-entry.js';

/** An entry with its fields in the order the journal builds them (request-journal.ts #build): `id` last. */
function journalEntry(fields: Partial<JournalEntry> = {}): JournalEntry {
  const { id, ...rest } = anyEntry(fields);
  return { ...rest, id };
}

/** The event's text, as a reader gets it. */
function eventText(entry: JournalEntry, id = `${entry.id}@run`): string {
  return wireBytes([wireEvent(entry, id)]).toString('utf8');
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
    const text = wireBytes(entries.map((entry) => wireEvent(entry, `${entry.id}@run`))).toString('utf8');
    expect(text).toBe(entries.map((entry) => expected(entry)).join(''));
  });
});
