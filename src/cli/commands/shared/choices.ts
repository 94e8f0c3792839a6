import { InvalidArgumentError } from 'commander';
import { pollIntervals, WAIT_TIMEOUT_SECONDS } from '../../../contract/timing.js';
import { parseServerTime } from '../../io/time-text.js';

/*
 * Values from src/contract, repeated here so that registering commands does not load zod at start-up
 * (`topup --help` must stay fast). test/cli/io.test.ts pins each one to the contract.
 */
export const orderStatuses = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export const paymentStatuses = ['pending', 'paid', 'expired', 'failed', 'refunded'] as const;
export const orderTypes = ['gamepass', 'vip_server'] as const;

/**
 * Recommended refresh intervals (seconds) from the interface document: never poll faster than `min`.
 * contract/timing.ts is dependency-free, so these are the contract's own values, not copies.
 */
export const refreshIntervals = pollIntervals;

/** Unpaid invoices expire after 60 minutes; five more and every invoice is final. */
export const DEFAULT_WAIT_TIMEOUT_SECONDS = WAIT_TIMEOUT_SECONDS;

/** INV and its digits: 17 characters today (INV, a date and a six-digit number); room for a longer number, no more. */
const INVOICE_CODE = /^INV\d{1,32}$/;
const ARTICLE_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A slug is a few words; a longer argument is a mistake, refused here rather than sent. */
const MAX_SLUG_LENGTH = 200;

/** An invoice code argument; letters are upper-cased so `inv2026…` works too. */
export function parseInvoiceCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!INVOICE_CODE.test(code))
    throw new InvalidArgumentError('An invoice code is INV followed by up to 32 digits, e.g. INV20261121000001.');
  return code;
}

export function parseSlug(value: string): string {
  if (value.length > MAX_SLUG_LENGTH || !ARTICLE_SLUG.test(value))
    throw new InvalidArgumentError(
      `A slug is lower-case letters and digits joined by hyphens, at most ${MAX_SLUG_LENGTH} characters, e.g. paying-an-invoice-step-by-step.`,
    );
  return value;
}

/** The whole number `text` spells in decimal digits (surrounding spaces allowed; no sign, point or exponent), or undefined. */
export function wholeNumberOf(text: string): number | undefined {
  const digits = text.trim();
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}

/** A whole number from `min` to `max`, for paging, interval and port options. */
export function parseWholeNumber(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `${name} must be at least ${min}.` : `${name} must be from ${min} to ${max}.`;
  return (value: string): number => {
    const n = wholeNumberOf(value);
    // -1 is a whole number too: what it breaks is the range.
    if (n === undefined) throw new InvalidArgumentError(/^-\d+$/.test(value.trim()) ? range : `${name} must be a whole number.`);
    // Past the largest whole number a JavaScript number holds exactly, the digits are not what would be sent.
    if (n < min) throw new InvalidArgumentError(range);
    if (n > max) throw new InvalidArgumentError(`${name} must be from ${min} to ${max}.`);
    return n;
  };
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;
const DURATION_UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** A duration option in milliseconds: `500ms`, `5s`, `2m`, `1h`, or a plain number of seconds. */
export function parseDuration(name: string) {
  return (value: string): number => {
    const match = DURATION.exec(value.trim());
    const ms =
      match === null ? Number.NaN : Math.round(Number(match[1]) * DURATION_UNIT_MS[(match[2] ?? 's') as keyof typeof DURATION_UNIT_MS]);
    if (!Number.isSafeInteger(ms))
      throw new InvalidArgumentError(`${name} must be a duration such as 500ms, 5s or 2m (a plain number is seconds).`);
    return ms;
  };
}

/**
 * An instant option in epoch milliseconds, read as the server's own times are (parseServerTime, UTC when it names no
 * zone): `2026-03-02T10:00:00Z`, `2026-03-02T17:00:00+07:00`, `2026-03-02 10:00`; a date alone is its midnight, a
 * time without seconds is on the minute. From 1970 to 9999.
 */
export function parseInstant(name: string) {
  return (value: string): number => {
    const text = value.trim();
    const full = /^\d{4}-\d{2}-\d{2}$/.test(text)
      ? `${text}T00:00:00`
      : text.replace(/^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})(?=$|[Zz+-])/, '$1:00');
    const ms = parseServerTime(full, 'UTC');
    if (ms === undefined || ms < 0 || ms >= Date.UTC(10_000, 0, 1))
      throw new InvalidArgumentError(
        `${name} must be a time in ISO 8601 from 1970 on, such as 2026-03-02 or 2026-03-02T10:00:00Z (UTC without a zone).`,
      );
    return ms;
  };
}

/** A duration for people: `500 ms`, `5 s`, `2 min`, `1.5 s`. */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1_000) return `${ms / 1_000} s`;
  return `${ms} ms`;
}
