import { formatMoney, groupDigits } from '../../contract/money.js';
import { localClock } from './time-text.js';
import { oneLine } from './sanitize.js';
import { renderFields, valueText } from './table.js';
import type { Style } from './style.js';
import type { View } from './view.js';

export { timeText } from './time-text.js';
export { valueText } from './table.js';

/** How a status reads at a glance: done, waiting, under way, failed, or closed without effect. */
type Tone = 'good' | 'waiting' | 'busy' | 'bad' | 'closed';

const tones: Record<string, Tone> = {
  paid: 'good',
  completed: 'good',
  pending: 'waiting',
  processing: 'busy',
  refunded: 'busy',
  failed: 'bad',
  expired: 'closed',
  cancelled: 'closed',
};

/** A payment or order status, coloured by what it means (colour only when the style has it); an unknown one as it is. */
export function statusText(status: unknown, style: Style): string {
  if (typeof status !== 'string' || !Object.hasOwn(tones, status)) return valueText(status);
  switch (tones[status]) {
    case 'good':
      return style.green(status);
    case 'waiting':
      return style.yellow(status);
    case 'busy':
      return style.cyan(status);
    case 'bad':
      return style.red(status);
    case 'closed':
      return style.dim(status);
    default:
      return status;
  }
}

/**
 * The one way the CLI shows an amount of money. For people: the server's own display text (`formatted_*`), else the
 * integer formatted as the contract formats its currency (`Rp 12.000`) when the currency is known, else the integer.
 * For scripts: the raw integer, which they need not parse. Either may be missing from a server that does not send it:
 * then the other one, then a dash, never `undefined`.
 */
export function amountText(raw: unknown, formatted: unknown, terminal: boolean, currency?: unknown): string {
  if (!terminal) return orDash(raw ?? formatted);
  // A display text that is not text (a number, an object) is still the server's: shown as it is.
  if (formatted) return valueText(formatted);
  return typeof raw === 'number' && Number.isSafeInteger(raw) && typeof currency === 'string' && currency
    ? formatMoney(raw, currency)
    : orDash(raw);
}

/**
 * The one way the CLI shows a number of credits. For people: grouped in threes as the shop's money is (`1.700`, as in
 * `Rp 1.700`: the separator of `currency`, IDR when unknown). For scripts: the raw integer. A dash when the server did
 * not send it. A package's name (`1,700 Credits`) is the server's own text and is shown as it is.
 */
export function creditText(raw: unknown, terminal: boolean, currency?: unknown): string {
  if (!terminal || typeof raw !== 'number' || !Number.isSafeInteger(raw)) return orDash(raw);
  return groupDigits(raw, typeof currency === 'string' && currency ? currency : SHOP_CURRENCY);
}

/** The contract's one currency: amounts are integers in IDR. */
const SHOP_CURRENCY = 'IDR';

/** A yes/no field: `true`/`false` piped, yes/no on a terminal; a dash when the server did not say. */
export function flagText(value: boolean | null | undefined, terminal: boolean): string {
  if (typeof value !== 'boolean') return '-';
  return terminal ? (value ? 'yes' : 'no') : String(value);
}

/** A missing value reads the same in every view; any other as it is (valueText: a list or object as its JSON). */
export function orDash(value: unknown): string {
  return valueText(value);
}

/** A value in a row or on a `key: value` line: a tab or line break a server sent is shown as its escape (oneLine). */
export function plainCell(text: unknown): string {
  return oneLine(orDash(text));
}

/** `17:00:05 +07:00`, for "updated at" lines on a terminal: the time of day in the user's zone. */
export function clockText(epochMs: number, view: Pick<View, 'timeZone'>): string {
  return localClock(epochMs, view.timeZone);
}

/**
 * One field of a single record. Piped, it prints as `key: plain` with the API's own field name;
 * on a terminal as an aligned `label  pretty`.
 */
export interface RecordField {
  key: string;
  label: string;
  /** A value the server did not send is a dash in every view, whatever `pretty` says; any other is shown as it is. */
  plain: unknown;
  pretty?: string | undefined;
}

export function renderRecord(fields: readonly RecordField[], options: View & { title?: string }): string {
  if (!options.terminal)
    return renderFields(
      fields.map((f) => [f.key, plainCell(orDash(f.plain))]),
      options,
    );
  const body = renderFields(
    // Always text: a number that a plain style's bold passed through would break the measure of its width (and a
    // terminal's measure would never end).
    // renderFields keeps each value on its line (oneLine).
    fields.map((f) => [f.label, orDash(f.plain) === '-' ? '-' : f.pretty === undefined ? orDash(f.plain) : String(f.pretty)]),
    options,
  );
  // The title holds the record's code as the server sent it: kept on its line, as every value is.
  return options.title === undefined ? body : `${options.style.bold(oneLine(options.title))}\n${body}`;
}
