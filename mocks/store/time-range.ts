/**
 * The range every time and count of a sandbox stays in. A time past year 9999 has no `YYYY-MM-DD HH:MM:SS` form
 * (and past 275760 no Date at all), and a count past 2^53 stops counting: either once stored broke every later
 * request with a 500, and survived a restart in the state file.
 */

/** The earliest time a record may hold: 1970-01-01T00:00:00Z, in epoch milliseconds. */
export const TIME_MIN = 0;
/** The latest time a record may hold: the last millisecond of year 9999. */
export const TIME_MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/**
 * The latest the sandbox clock may read: the start of year 9999, so that what it dates from now (an invoice's
 * expiry, an idempotency key's end) still falls within TIME_MAX.
 */
export const CLOCK_MAX = Date.UTC(9999, 0, 1);
/**
 * The largest count or amount a record or counter may hold: far beyond any real balance or sequence, and far
 * enough below 2^53 that adding to it (a deposit, the next invoice number) stays exact.
 */
export const COUNT_MAX = 1e15;

/**
 * Whether the clock reads a whole millisecond from TIME_MIN to CLOCK_MAX: then every time a route dates from it (the
 * record's own, an expiry, an idempotency key's end) fits a record, and what it builds needs no parse for its times.
 */
export function isClockInRange(now: number): boolean {
  return Number.isSafeInteger(now) && now >= TIME_MIN && now <= CLOCK_MAX;
}
