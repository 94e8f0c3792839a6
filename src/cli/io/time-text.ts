import { valueText } from './table.js';
import type { View } from './view.js';

/**
 * `YYYY-MM-DD HH:MM:SS` (the interface document's `published_at`), or ISO 8601 with `T`, fractions and a zone (`Z`,
 * `+07:00`, `+0700`). The document names no zone for its format: a time without one is a wall clock of the server's
 * zone, which only the view may know (View.serverTimeZone).
 */
const SERVER_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;

/** A time as a server wrote it: its wall clock (as if it were UTC, in ms) and its offset, when it names one. */
interface ServerTime {
  wall: number;
  /** Minutes east of UTC; undefined when the time names no zone. */
  offset: number | undefined;
}

function readServerTime(text: string): ServerTime | undefined {
  const match = SERVER_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Math.floor(Number(`0.${match[7] ?? '0'}`) * 1000);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(wall);
  // Date.UTC rolls 2026-02-30 over into March: such a date is not a time, and is shown as it was sent.
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  if (match[8] !== undefined) return { wall, offset: 0 };
  if (match[9] === undefined) return { wall, offset: undefined };
  return { wall, offset: (Number(match[10]) * 60 + Number(match[11])) * (match[9] === '-' ? -1 : 1) };
}

/**
 * Milliseconds since the epoch of a time as a server writes it; undefined for anything else, and for a time without a
 * zone unless `serverTimeZone` says which it is in (an IANA name, or UTC).
 */
export function parseServerTime(text: string, serverTimeZone?: string): number | undefined {
  const time = readServerTime(text);
  if (time === undefined) return undefined;
  if (time.offset !== undefined) return time.wall - time.offset * 60_000;
  if (serverTimeZone === undefined) return undefined;
  if (serverTimeZone === 'UTC') return time.wall;
  // The zone's offset at that wall clock: taken at the wall clock read as UTC, then again at the instant that gives
  // (which settles it unless a clock change lies between the two).
  const first = time.wall - wallClock(time.wall, serverTimeZone).offset * 60_000;
  return time.wall - wallClock(first, serverTimeZone).offset * 60_000;
}

/** Whether Intl knows this zone (an IANA name such as Asia/Jakarta, or UTC). */
export function isKnownTimeZone(zone: string): boolean {
  return canonicalTimeZone(zone) !== undefined;
}

/** The zone's name as Intl spells it (`asia/jakarta`: `Asia/Jakarta`); undefined when Intl does not know it. */
export function canonicalTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const two = (n: number) => String(n).padStart(2, '0');

/** `2026-03-02T10:00:00Z`: ISO 8601 in UTC, for scripts; milliseconds only when there are some. */
export function isoTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall clock of `epochMs` in `timeZone`, and that zone's offset then, in minutes. Undefined: the process's own zone
 * (TZ as node applied it), read from Date at no cost; a named zone needs Intl, whose time zone data costs ~12 ms to load.
 */
function wallClock(epochMs: number, timeZone: string | undefined): { wall: Date; offset: number } {
  if (timeZone === undefined) {
    const local = new Date(Math.floor(epochMs / 1000) * 1000);
    const offset = -local.getTimezoneOffset();
    return { wall: new Date(local.getTime() + offset * 60_000), offset };
  }
  const key = timeZone;
  let format = formats.get(key);
  if (format === undefined) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    };
    try {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone });
    } catch {
      // A TZ that Intl does not know: the system's zone, which is what node itself falls back to.
      format = new Intl.DateTimeFormat('en-US', options);
    }
    formats.set(key, format);
  }
  const parts = Object.fromEntries(format.formatToParts(epochMs).map((p) => [p.type, p.value]));
  const seconds = Math.floor(epochMs / 1000) * 1000;
  const wallMs = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return { wall: new Date(wallMs), offset: Math.round((wallMs - seconds) / 60_000) };
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** `2026-03-02 17:00 +07:00`: the local date and time with the zone's offset, for people. */
export function localTime(epochMs: number, timeZone: string | undefined): string {
  const { wall, offset } = wallClock(epochMs, timeZone);
  const date = `${wall.getUTCFullYear()}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())}`;
  return `${date} ${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())} ${offsetText(offset)}`;
}

/**
 * `17:00:05 +07:00`: a time of day, for progress and log lines on a terminal; with `.123` when `millis`, and without
 * the offset when `offset` is false (a log prints it on every line otherwise).
 */
export function localClock(epochMs: number, timeZone: string | undefined, options: { millis?: boolean; offset?: boolean } = {}): string {
  const { wall, offset } = wallClock(epochMs, timeZone);
  const millis = options.millis ? `.${String(((epochMs % 1000) + 1000) % 1000).padStart(3, '0')}` : '';
  const zone = options.offset === false ? '' : ` ${offsetText(offset)}`;
  return `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}${millis}${zone}`;
}

/**
 * The one way the CLI shows a time a server sent: local with its offset on a terminal, ISO 8601 in UTC when piped,
 * a dash when missing, and anything that is not a time as it was sent (it is not ours to guess), a value that is not
 * even text (a number, an object) included. A time without a zone, from a server whose zone is not known, is shown
 * as the wall clock it is, never as a zone's: as sent on a terminal, ISO 8601 without an offset when piped.
 */
export function timeText(value: unknown, view: Pick<View, 'terminal' | 'timeZone' | 'serverTimeZone'>): string {
  if (typeof value !== 'string' || value === '') return valueText(value);
  const epochMs = parseServerTime(value, view.serverTimeZone);
  if (epochMs !== undefined) return view.terminal ? localTime(epochMs, view.timeZone) : isoTime(epochMs);
  const time = readServerTime(value);
  if (time === undefined) return value;
  if (view.terminal) return value.trim();
  const iso = new Date(time.wall).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, -1);
}
