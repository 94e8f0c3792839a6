import { compileFilter, type JournalEntry, type RequestFilter, type RequestJournal } from './request-journal.js';

/** Thrown when a verification fails; its message lists what was received instead. Works with any test runner. */
export class VerificationError extends Error {
  override name = 'VerificationError';
}

export interface RequestExpectation {
  /** The requests that match, oldest first. */
  readonly requests: readonly JournalEntry[];
  /** Exactly `count` matching requests were made. */
  toHaveCount(count: number): RequestExpectation;
  /** At least one matching request was made. */
  toHaveBeenMade(): RequestExpectation;
  /** No matching request was made. */
  notToHaveBeenMade(): RequestExpectation;
  /** Every matching request carried the same Idempotency-Key (a retry of one order, not a second order). */
  toShareIdempotencyKey(): RequestExpectation;
  /** Every matching request was answered with this status (a number or a class such as `'2xx'`). */
  toAllHaveStatus(status: number | string): RequestExpectation;
}

/**
 * Verifies what a bot sent, from the sandbox's request journal, the way WireMock's verify does:
 *
 *   expectRequests(sandbox, { method: 'POST', path: '/api/v1/me/orders' }).toHaveCount(2).toShareIdempotencyKey();
 *
 * A failure says what was expected and lists the requests that came near (same path, or same method), so that a
 * typo in the bot shows at once.
 */
export function expectRequests(source: { requests: RequestJournal } | RequestJournal, filter: RequestFilter = {}): RequestExpectation {
  const journal = 'requests' in source ? source.requests : source;
  if (!journal.enabled)
    throw new VerificationError('The sandbox keeps no requests (journalSize: 0): there is nothing to verify; give it a journal.');
  const requests = journal.list(filter);
  const described = describeFilter(filter);
  const fail = (expected: string): never => {
    throw new VerificationError(`Expected ${expected}.\n${received(requests, journal, filter)}`);
  };
  // A count is only as good as what the journal still keeps: one that let requests go cannot say none was made.
  const lost = journal.letGo(filter);
  const whole = () => {
    if (lost > 0)
      throw new VerificationError(
        `Cannot verify requests ${described}: the journal no longer keeps ${lost} of the requests since it began (it keeps the last ${journal.size}); raise journalSize, clear it before the requests that matter, or filter with since or afterId.`,
      );
  };
  const expectation: RequestExpectation = {
    requests,
    toHaveCount(count) {
      whole();
      if (requests.length !== count) fail(`${count} request${count === 1 ? '' : 's'} ${described}, got ${requests.length}`);
      return expectation;
    },
    toHaveBeenMade() {
      if (requests.length === 0) whole();
      if (requests.length === 0) fail(`a request ${described}, got none`);
      return expectation;
    },
    notToHaveBeenMade() {
      if (requests.length === 0) whole();
      if (requests.length > 0) fail(`no request ${described}, got ${requests.length}`);
      return expectation;
    },
    toShareIdempotencyKey() {
      whole();
      const keys = new Set(requests.map((r) => r.idempotency_key));
      if (requests.length === 0) fail(`requests ${described} sharing one Idempotency-Key, got none`);
      if (keys.has(null))
        fail(
          `every request ${described} to carry an Idempotency-Key; ${requests.filter((r) => r.idempotency_key === null).length} had none`,
        );
      if (keys.size > 1) fail(`every request ${described} to share one Idempotency-Key, got ${keys.size}: ${[...keys].join(', ')}`);
      return expectation;
    },
    toAllHaveStatus(status) {
      whole();
      const test = compileFilter({ status });
      const others = requests.filter((r) => !test(r));
      if (requests.length === 0) fail(`requests ${described} answered ${status}, got none`);
      if (others.length > 0) fail(`every request ${described} to be answered ${status}; ${others.length} were not`);
      return expectation;
    },
  };
  return expectation;
}

function describeFilter(filter: RequestFilter): string {
  const parts: string[] = [];
  if (filter.method !== undefined) parts.push(typeof filter.method === 'string' ? filter.method : filter.method.join('|'));
  if (filter.path !== undefined) parts.push(String(filter.path));
  if (filter.status !== undefined) parts.push(`answered ${Array.isArray(filter.status) ? filter.status.join('|') : String(filter.status)}`);
  if (filter.account !== undefined) parts.push(`from ${filter.account}`);
  if (filter.idempotencyKey !== undefined) parts.push(`with Idempotency-Key ${filter.idempotencyKey}`);
  return parts.length === 0 ? 'of any kind' : `matching ${parts.join(' ')}`;
}

/** The matching requests, or, when there are none, the ones that came near. */
function received(matching: readonly JournalEntry[], journal: RequestJournal, filter: RequestFilter): string {
  const line = (r: JournalEntry) =>
    `  #${r.id} ${r.method} ${r.path} → ${r.status ?? 'dropped'}${r.idempotency_key ? ` (Idempotency-Key ${r.idempotency_key})` : ''}${r.near_miss ? `; did you mean ${r.near_miss}?` : ''}`;
  if (matching.length > 0) return `Matching requests:\n${matching.map(line).join('\n')}`;
  const all = journal.list();
  const near = all.filter(
    (r) =>
      filter.path === undefined ||
      r.path.includes(String(filter.path).split('*')[0] ?? '') ||
      r.near_miss !== null ||
      (filter.method !== undefined && compileFilter({ method: filter.method })(r)),
  );
  if (all.length === 0) return 'The sandbox received no requests at all.';
  return `Requests it received instead${near.length < all.length ? ' (the nearest)' : ''}:\n${(near.length > 0 ? near : all).slice(-10).map(line).join('\n')}`;
}
