import type { JournalEntry } from '../../../mocks/facade/requests.js';
import type { Style } from './plain-style.js';
import { sanitizeText } from './sanitize.js';
import { localClock } from './time-text.js';

const pad = (text: string, width: number) => (text.length >= width ? text : text + ' '.repeat(width - text.length));

/**
 * One request of the sandbox's journal as `topup mock logs` and `mock serve --log` print it, like `stripe logs tail`:
 * time, method, path, status, duration, then what is worth knowing (account, route, key, replay, fault, near miss).
 * On a terminal the time is local and the columns aligned and coloured; piped, the time is ISO 8601.
 */
export function logLine(entry: JournalEntry, options: { terminal: boolean; style: Style; timeZone?: string | undefined }): string {
  const { style } = options;
  const time = options.terminal ? localClock(Date.parse(entry.time), options.timeZone, { millis: true, offset: false }) : entry.time;
  const status = entry.status === null ? 'dropped' : String(entry.status);
  const coloured =
    entry.status === null || entry.status >= 500 ? style.red(status) : entry.status >= 400 ? style.yellow(status) : style.green(status);
  const extras = [
    entry.account === null ? undefined : entry.account,
    entry.route === null ? undefined : entry.route,
    entry.idempotency_key === null ? undefined : `key ${entry.idempotency_key}`,
    entry.idempotent_replay ? 'replay' : undefined,
    entry.rate_limit?.refused ? 'rate limited' : undefined,
    entry.fault === null ? undefined : `fault: ${entry.fault}`,
    entry.near_miss === null ? undefined : `did you mean ${entry.near_miss}?`,
  ]
    .filter((part): part is string => part !== undefined)
    .map(safe);
  const path = safe(entry.path + (Object.keys(entry.query).length === 0 ? '' : `?${new URLSearchParams(entry.query).toString()}`));
  const method = safe(entry.method);
  const line = options.terminal
    ? `${style.dim(time)}  ${pad(method, 6)} ${pad(path, 40)} ${coloured}${' '.repeat(Math.max(1, 8 - status.length))}${pad(`${Math.round(entry.duration_ms)} ms`, 8)}${style.dim(extras.join('  '))}`
    : [time, method, path, status, `${entry.duration_ms}ms`, ...extras].join('\t');
  return line.trimEnd();
}

/** Paths, keys and account names come from whoever sent the request: never raw to a terminal. */
function safe(text: string): string {
  return sanitizeText(text, { multiline: false });
}
