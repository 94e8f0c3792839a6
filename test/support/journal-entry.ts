import type { JournalEntry } from '../../mocks/inspect/request-journal.js';

/** A request-journal entry with every field, as the journal builds one: a GET answered 200, changed by `fields`. */
export function journalEntry(fields: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id: 1,
    time: '1970-01-01T00:00:00.000Z',
    method: 'GET',
    path: '/',
    query: {},
    headers: {},
    idempotency_key: null,
    request_body: null,
    status: 200,
    response_body: null,
    duration_ms: 1,
    route: null,
    account: null,
    rate_limit: null,
    idempotent_replay: false,
    fault: null,
    near_miss: null,
    ...fields,
  };
}
