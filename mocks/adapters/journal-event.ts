import type { EntryText } from '../inspect/entry-text.js';

/**
 * Journal entries as the live stream's Server-Sent Events, one buffer for one write:
 * `id: <id>@<instance>\nevent: request\ndata: <the entry as JSON>\n\n` each, the JSON exactly as JSON.stringify writes
 * the entry the journal holds. The event's id is the entry's and the server's instance (X-Topup-Sandbox-Instance): a
 * client that reconnects sends it back (Last-Event-ID), and one that reaches another run of the sandbox (a restart,
 * whose ids begin again at 1) is then given all that run's journal holds (journal-stream.ts replayAfter).
 *
 * Each entry's text comes in pieces (mocks/inspect/entry-text.ts), copied here between the event's own few bytes: no
 * string is made of an event, and no object.
 */
export function eventBytes(texts: readonly EntryText[], instance: string, into?: (size: number) => Buffer): Buffer {
  let size = 0;
  for (const text of texts)
    size +=
      FIXED_BYTES +
      headBytes(instance, text.time).length +
      text.request.length +
      text.body.length +
      text.outcome.length +
      2 * numberBytes(text.id) +
      numberBytes(text.durationMs);
  const out = into === undefined ? Buffer.allocUnsafe(size) : into(size);
  let at = 0;
  for (const text of texts) {
    out[at] = 0x69; // `id: `
    out[at + 1] = 0x64;
    out[at + 2] = 0x3a;
    out[at + 3] = 0x20;
    const idAt = at + 4;
    at = putNumber(out, idAt, text.id);
    const idEnd = at;
    at = put(out, at, headBytes(instance, text.time));
    at = put(out, at, text.request);
    at = put(out, at, text.body);
    at = putNumber(out, at, text.durationMs);
    at = put(out, at, text.outcome);
    out.copyWithin(at, idAt, idEnd);
    at += idEnd - idAt;
    out[at] = 0x7d; // `}\n\n`
    out[at + 1] = 0x0a;
    out[at + 2] = 0x0a;
    at += 3;
  }
  return out.subarray(0, at);
}

/** `id: ` and `}\n\n`. */
const FIXED_BYTES = 7;

/** The most characters String() writes of a number (`-2.2250738585072014e-308`), with one to spare. */
const NUMBER_CHARS = 25;

/**
 * `@<instance>\nevent: request\ndata: {"time":` and the time's text, kept for the last: the requests of a millisecond
 * share it.
 */
let lastHead: { instance: string; head: Buffer; time: Buffer; bytes: Buffer } = {
  instance: '',
  head: Buffer.alloc(0),
  time: Buffer.alloc(0),
  bytes: Buffer.alloc(0),
};
function headBytes(instance: string, time: Buffer): Buffer {
  if (time === lastHead.time && instance === lastHead.instance) return lastHead.bytes;
  const head = instance === lastHead.instance ? lastHead.head : Buffer.from(`@${instance}\nevent: request\ndata: {"time":`);
  const bytes = Buffer.allocUnsafe(head.length + time.length);
  head.copy(bytes, 0);
  time.copy(bytes, head.length);
  lastHead = { instance, head, time, bytes };
  return bytes;
}

function put(out: Buffer, at: number, bytes: Buffer): number {
  out.set(bytes, at);
  return at + bytes.length;
}

/** A number's JSON text (what JSON.stringify writes of it): a whole one digit by digit, without making its string. */
function putNumber(out: Buffer, at: number, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return putWhole(out, at, value);
  if (typeof value === 'number' && value > 0 && value < MAX_MILLIS) {
    // A duration to the microsecond (the journal rounds it so): thousandths are its shortest text, as String() writes.
    const thousandths = Math.round(value * 1000);
    if (thousandths / 1000 === value) {
      at = putWhole(out, at, Math.floor(thousandths / 1000));
      let fraction = thousandths % 1000;
      out[at++] = 0x2e; // `.`
      out[at++] = 0x30 + Math.floor(fraction / 100);
      fraction %= 100;
      if (fraction === 0) return at;
      out[at++] = 0x30 + Math.floor(fraction / 10);
      if (fraction % 10 === 0) return at;
      out[at++] = 0x30 + (fraction % 10);
      return at;
    }
  }
  const text = numberText(value);
  // A fraction's text is ASCII: written here, shorter than a call into node's encoder. Anything else is encoded.
  if (typeof value !== 'number') return at + out.write(text, at);
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/**
 * Below this (some 31 years in milliseconds), a number's thousandths are a safe integer, and a fraction of them has at
 * most 15 significant digits: no shorter text names the same number, so its thousandths are String()'s text.
 */
const MAX_MILLIS = 1e12;

/** A whole number's digits. */
function putWhole(out: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = at + digits - 1, rest = value; i >= at; i--, rest = Math.floor(rest / 10)) out[i] = 0x30 + (rest % 10);
  return at + digits;
}

/** The most bytes `putNumber` writes of the value. */
function numberBytes(value: unknown): number {
  return typeof value === 'number' ? NUMBER_CHARS : Buffer.byteLength(numberText(value));
}

/** JSON text of a number (`null` for one that is not finite) or of anything else an entry was recorded with. */
function numberText(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return JSON.stringify(value) ?? 'null';
}
