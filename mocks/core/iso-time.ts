/**
 * The one time format of the control API's views (`/__sandbox/*` answers, the request journal, `sandbox.control`'s
 * invoice views): ISO 8601 in UTC with milliseconds, `2026-11-25T20:08:01.000Z`. Any language parses it without
 * knowing our epoch. Saved state files keep epoch milliseconds, their own exact format.
 */
export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The same for a time that may not be set (an unpaid invoice's `paid_at`). */
export function isoTimeOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : isoTime(epochMs);
}
