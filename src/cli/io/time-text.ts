import { valueText } from './table.js';
import type { View } from './view.js';

/**
 * `YYYY-MM-DD HH:MM:SS` (the interface document's `published_at`, and our sandbox's every timestamp, which its contract
 * gives in UTC), or ISO 8601 with `T`, fractions and a zone (`Z`, `+07:00`, `+0700`). A time without a zone is UTC.
 */
const SERVER_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;

/** Milliseconds since the epoch of a time as a server writes it; undefined for anything else. */
export function parseServerTime(text: string): number | undefined {
  const match = SERVER_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Math.floor(Number(`0.${match[7] ?? '0'}`) * 1000);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(wall);
  // Date.UTC rolls 2026-02-30 over into March: such a date is not a time, and is shown as it was sent.
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  if (match[9] === undefined) return wall;
  const offset = (Number(match[10]) * 60 + Number(match[11])) * (match[9] === '-' ? -1 : 1);
  return wall - offset * 60_000;
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
 * even text (a number, an object) included.
 */
export function timeText(value: unknown, view: Pick<View, 'terminal' | 'timeZone'>): string {
  if (typeof value !== 'string' || value === '') return valueText(value);
  const epochMs = parseServerTime(value);
  if (epochMs === undefined) return value;
  return view.terminal ? localTime(epochMs, view.timeZone) : isoTime(epochMs);
}
