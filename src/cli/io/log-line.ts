import type { JournalEntry } from '../../../mocks/facade/requests.js';
import type { Style } from './plain-style.js';
import { sanitizeText } from './sanitize.js';
import { terminalMeasure, truncateMiddle } from './text-width.js';
import { localClock } from './time-text.js';

export interface LogLineView {
  terminal: boolean;
  style: Style;
  timeZone?: string | undefined;
  /** The terminal's width in cells; undefined when it does not say (the line then takes the width it needs). */
  width?: number | undefined;
}

/** The path's column when the terminal has room: most API paths fit, so status and duration line up. */
const PATH_COLUMN = 40;
/** A narrow terminal keeps about this much room for the details before it leaves out the time or the duration. */
const DETAILS_ROOM = 20;
/** The path's column is not narrowed below this to keep the time and the duration: most paths still line up. */
const NARROWEST_PATH_COLUMN = 28;
/** Shortened in its middle, a path keeps at least this many cells (its start and its end). */
const SHORTEST_PATH = 12;

/**
 * The details after the duration, in the order they are left out on a narrow terminal: first what can be told from
 * the rest of the line (the route is the method and path's name), last what explains an odd answer.
 */
const DETAIL_DROP_ORDER = ['route', 'key', 'account', 'replay', 'rate limited', 'fault', 'near miss'] as const;
type DetailKind = (typeof DETAIL_DROP_ORDER)[number];

/**
 * One request of the sandbox's journal as `topup mock logs` and `mock serve --log` print it, like `stripe logs tail`:
 * time, method, path, status, duration, then what is worth knowing (account, route, key, replay, fault, near miss).
 * On a terminal the time is local and the columns aligned and coloured, and the line fits the terminal (fitLine);
 * piped, the time is ISO 8601 and every field is whole, whatever the width.
 */
export function logLine(entry: JournalEntry, options: LogLineView): string {
  const status = entry.status === null ? 'dropped' : String(entry.status);
  const details: [DetailKind, string][] = (
    [
      ['account', entry.account ?? undefined],
      ['route', entry.route ?? undefined],
      ['key', entry.idempotency_key === null ? undefined : `key ${entry.idempotency_key}`],
      ['replay', entry.idempotent_replay ? 'replay' : undefined],
      ['rate limited', entry.rate_limit?.refused ? 'rate limited' : undefined],
      ['fault', entry.fault === null ? undefined : `fault: ${entry.fault}`],
      ['near miss', entry.near_miss === null ? undefined : `did you mean ${entry.near_miss}?`],
    ] as [DetailKind, string | undefined][]
  )
    .filter((detail): detail is [DetailKind, string] => detail[1] !== undefined)
    .map(([kind, text]) => [kind, safe(text)]);
  const path = safe(entry.path + (Object.keys(entry.query).length === 0 ? '' : `?${new URLSearchParams(entry.query).toString()}`));
  const method = safe(entry.method);
  if (!options.terminal) return [entry.time, method, path, status, `${entry.duration_ms}ms`, ...details.map(([, text]) => text)].join('\t');
  const time = localClock(Date.parse(entry.time), options.timeZone, { millis: true, offset: false });
  return fitLine(
    { time, method, path, status, duration: `${Math.round(entry.duration_ms)} ms`, details },
    options.width,
    colours(entry.status, options.style),
  );
}

interface LineParts {
  time: string;
  method: string;
  path: string;
  status: string;
  duration: string;
  details: [DetailKind, string][];
}

interface Colours {
  time: (text: string) => string;
  status: (text: string) => string;
  details: (text: string) => string;
}

function colours(status: number | null, style: Style): Colours {
  const statusColour = (text: string) =>
    status === null || status >= 500 ? style.red(text) : status >= 400 ? style.yellow(text) : style.green(text);
  return { time: (text) => style.dim(text), status: statusColour, details: (text) => style.dim(text) };
}

/** Which aligned columns a terminal of `width` cells shows: the same for every line, so that they stay lined up. */
function columnsFor(width: number | undefined): { time: boolean; duration: boolean; path: number } {
  if (width === undefined || width <= 0) return { time: true, duration: true, path: PATH_COLUMN };
  // time + 2, method 6 + 1, path + 1, status 8 (its gap included), duration 8 (its gap included)
  const room = (time: boolean, duration: boolean) => width - DETAILS_ROOM - (time ? 14 : 0) - 8 - 8 - (duration ? 8 : 0);
  for (const [time, duration] of [
    [true, true],
    [true, false],
    [false, false],
  ] as const) {
    if (room(time, duration) >= NARROWEST_PATH_COLUMN) return { time, duration, path: Math.min(PATH_COLUMN, room(time, duration)) };
  }
  return { time: false, duration: false, path: NARROWEST_PATH_COLUMN };
}

/**
 * A terminal line no wider than `width` (when it is known). The columns shown depend on the width alone (columnsFor):
 * the path's column narrows from 40 cells to 28, then the duration and then the time are left out. A line still too
 * wide leaves out its details (DETAIL_DROP_ORDER), and at last its path is shortened in the middle with "…".
 * Method and status always show.
 */
function fitLine(parts: LineParts, width: number | undefined, colour: Colours): string {
  const layout = columnsFor(width);
  const measure = terminalMeasure;
  const pad = (text: string, cells: number) => text + ' '.repeat(Math.max(0, cells - measure.width(text)));
  const render = (path: string, details: readonly [DetailKind, string][], coloured: boolean) => {
    const c = coloured ? colour : { time: same, status: same, details: same };
    const head = `${layout.time ? `${c.time(parts.time)}  ` : ''}${pad(parts.method, 6)} ${pad(path, layout.path)} `;
    const statusCell = c.status(parts.status) + ' '.repeat(Math.max(1, 8 - parts.status.length));
    const durationCell = layout.duration ? pad(parts.duration, 8) : '';
    return `${head}${statusCell}${durationCell}${c.details(details.map(([, text]) => text).join('  '))}`.trimEnd();
  };
  if (width === undefined || width <= 0) return render(parts.path, parts.details, true);
  let details = parts.details;
  const fits = (path: string) => measure.width(render(path, details, false)) <= width;
  for (const kind of DETAIL_DROP_ORDER) {
    if (fits(parts.path)) break;
    details = details.filter(([k]) => k !== kind);
  }
  if (fits(parts.path)) return render(parts.path, details, true);
  // What the line needs besides its path, the duration counted as if it were 4 digits, so that the path is cut the
  // same whether its request took 2 ms or 2000.
  const tail = layout.duration ? Math.max(8, parts.status.length + 1) + Math.max(7, parts.duration.length) : parts.status.length;
  const rest = (layout.time ? measure.width(parts.time) + 2 : 0) + 7 + 1 + tail;
  return render(truncateMiddle(parts.path, Math.max(SHORTEST_PATH, width - rest)), [], true);
}

const same = (text: string): string => text;

/** Paths, keys and account names come from whoever sent the request: never raw to a terminal. */
function safe(text: string): string {
  return sanitizeText(text, { multiline: false });
}
