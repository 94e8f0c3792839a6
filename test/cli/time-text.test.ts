import { describe, expect, it } from 'vitest';
import { isoTime, localClock, parseServerTime, timeText } from '../../src/cli/io/time-text.js';

const at = (iso: string) => Date.parse(iso);

describe('timeText: local with its offset on a terminal, ISO 8601 piped, anything else as sent', () => {
  it.each([
    // sent, piped, Asia/Jakarta, America/St_Johns (a half-hour zone, behind UTC)
    ['2026-11-25 03:04:05', '2026-11-25T03:04:05Z', '2026-11-25 10:04 +07:00', '2026-11-24 23:34 -03:30'],
    ['2026-11-25T03:04:05Z', '2026-11-25T03:04:05Z', '2026-11-25 10:04 +07:00', '2026-11-24 23:34 -03:30'],
    ['2026-11-25T10:04:05+07:00', '2026-11-25T03:04:05Z', '2026-11-25 10:04 +07:00', '2026-11-24 23:34 -03:30'],
    ['2026-11-25T08:34:05.250+0530', '2026-11-25T03:04:05.250Z', '2026-11-25 10:04 +07:00', '2026-11-24 23:34 -03:30'],
    ['2026-07-01 12:00:00', '2026-07-01T12:00:00Z', '2026-07-01 19:00 +07:00', '2026-07-01 09:30 -02:30'],
    ['2026-02-30 00:00:00', '2026-02-30 00:00:00', '2026-02-30 00:00:00', '2026-02-30 00:00:00'],
    ['2026-11-25 24:00:00', '2026-11-25 24:00:00', '2026-11-25 24:00:00', '2026-11-25 24:00:00'],
    ['yesterday', 'yesterday', 'yesterday', 'yesterday'],
    ['1764039845', '1764039845', '1764039845', '1764039845'],
    ['', '-', '-', '-'],
    [null, '-', '-', '-'],
    [undefined, '-', '-', '-'],
  ])('%j (from a server whose zone is UTC, as our sandbox)', (sent, piped, jakarta, stJohns) => {
    const server = { serverTimeZone: 'UTC' };
    expect(timeText(sent, { terminal: false, timeZone: 'Asia/Jakarta', ...server })).toBe(piped);
    expect(timeText(sent, { terminal: true, timeZone: 'Asia/Jakarta', ...server })).toBe(jakarta);
    expect(timeText(sent, { terminal: true, timeZone: 'America/St_Johns', ...server })).toBe(stJohns);
  });

  it.each([
    // sent, piped, on a terminal in Asia/Jakarta: the wall clock the server wrote, in no zone of ours
    ['2026-11-25 03:04:05', '2026-11-25T03:04:05', '2026-11-25 03:04:05'],
    [' 2026-11-25 03:04:05 ', '2026-11-25T03:04:05', '2026-11-25 03:04:05'],
    ['2026-11-25T03:04:05.250', '2026-11-25T03:04:05.250', '2026-11-25T03:04:05.250'],
    // A time with its zone is one instant, whatever the server's zone.
    ['2026-11-25T03:04:05Z', '2026-11-25T03:04:05Z', '2026-11-25 10:04 +07:00'],
    ['2026-02-30 00:00:00', '2026-02-30 00:00:00', '2026-02-30 00:00:00'],
  ])('%j from a server whose zone is not known is shown as its wall clock, never as UTC', (sent, piped, terminal) => {
    expect(timeText(sent, { terminal: false, timeZone: 'Asia/Jakarta' })).toBe(piped);
    expect(timeText(sent, { terminal: true, timeZone: 'Asia/Jakarta' })).toBe(terminal);
  });

  it("a server's zone named (TOPUP_SERVER_TIME_ZONE) places its wall clocks, across clock changes", () => {
    expect(timeText('2026-11-25 10:04:05', { terminal: false, serverTimeZone: 'Asia/Jakarta' })).toBe('2026-11-25T03:04:05Z');
    expect(timeText('2026-11-25 10:04:05', { terminal: true, timeZone: 'Asia/Jakarta', serverTimeZone: 'Asia/Jakarta' })).toBe(
      '2026-11-25 10:04 +07:00',
    );
    // New York: -05:00 in winter, -04:00 in summer; the change was at 02:00 on 2026-03-08.
    expect(timeText('2026-01-15 12:00:00', { terminal: false, serverTimeZone: 'America/New_York' })).toBe('2026-01-15T17:00:00Z');
    expect(timeText('2026-07-15 12:00:00', { terminal: false, serverTimeZone: 'America/New_York' })).toBe('2026-07-15T16:00:00Z');
    expect(timeText('2026-03-08 01:30:00', { terminal: false, serverTimeZone: 'America/New_York' })).toBe('2026-03-08T06:30:00Z');
    expect(timeText('2026-03-08 03:30:00', { terminal: false, serverTimeZone: 'America/New_York' })).toBe('2026-03-08T07:30:00Z');
  });

  it('a zone Intl does not know falls back to the system zone rather than failing', () => {
    expect(timeText('2026-11-25T03:04:05Z', { terminal: true, timeZone: 'Not/A_Zone' })).toBe(
      timeText('2026-11-25T03:04:05Z', { terminal: true, timeZone: undefined }),
    );
  });

  it('parseServerTime reads only times, and a time without a zone only with the zone it is in', () => {
    expect(parseServerTime('2026-03-02 10:00:00')).toBeUndefined();
    expect(parseServerTime('2026-03-02 10:00:00', 'UTC')).toBe(at('2026-03-02T10:00:00Z'));
    expect(parseServerTime('2026-03-02 10:00:00', 'Asia/Kolkata')).toBe(at('2026-03-02T04:30:00Z'));
    expect(parseServerTime('2026-03-02T10:00:00-01:00')).toBe(at('2026-03-02T11:00:00Z'));
    expect(parseServerTime('2026-03-02')).toBeUndefined();
    expect(parseServerTime('2026-03-02 10:00')).toBeUndefined();
  });

  it('isoTime and localClock', () => {
    expect(isoTime(at('2026-03-02T10:00:00Z'))).toBe('2026-03-02T10:00:00Z');
    expect(isoTime(at('2026-03-02T10:00:00.042Z'))).toBe('2026-03-02T10:00:00.042Z');
    expect(localClock(at('2026-03-02T09:05:07.042Z'), 'Asia/Kolkata')).toBe('14:35:07 +05:30');
    expect(localClock(at('2026-03-02T09:05:07.042Z'), 'UTC', { millis: true })).toBe('09:05:07.042 +00:00');
  });
});
