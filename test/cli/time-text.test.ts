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
  ])('%j', (sent, piped, jakarta, stJohns) => {
    expect(timeText(sent, { terminal: false, timeZone: 'Asia/Jakarta' })).toBe(piped);
    expect(timeText(sent, { terminal: true, timeZone: 'Asia/Jakarta' })).toBe(jakarta);
    expect(timeText(sent, { terminal: true, timeZone: 'America/St_Johns' })).toBe(stJohns);
  });

  it('a zone Intl does not know falls back to the system zone rather than failing', () => {
    expect(timeText('2026-11-25 03:04:05', { terminal: true, timeZone: 'Not/A_Zone' })).toBe(
      timeText('2026-11-25 03:04:05', { terminal: true, timeZone: undefined }),
    );
  });

  it('parseServerTime reads only times', () => {
    expect(parseServerTime('2026-03-02 10:00:00')).toBe(at('2026-03-02T10:00:00Z'));
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
