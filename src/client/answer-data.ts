import type { EndpointId } from '../contract/endpoints.js';
import { TopupError } from '../errors.js';

/**
 * What is read inside an endpoint's `data`, by the client and by whoever uses its answers, beyond the data object
 * itself: lists whose items are records (a table row reads their fields), and records read without a check (the
 * order-creation answer's `invoice`, which the document guarantees). Nothing else is checked: a field the document
 * leaves optional may be missing, and fields nobody knows pass through as they are.
 */
const READ_INSIDE: Partial<Record<EndpointId, { lists?: readonly string[]; records?: readonly string[] }>> = {
  listCreditPackages: { lists: ['packages'] },
  listPaymentMethods: { lists: ['payment_methods'] },
  listArticles: { lists: ['articles'] },
  listBalanceTransactions: { lists: ['transactions'] },
  listDeposits: { lists: ['deposits'] },
  listOrders: { lists: ['orders'] },
  getDashboardSummary: { lists: ['recent_orders'] },
  createOrder: { records: ['invoice'] },
};

/**
 * The envelope's `data` of one endpoint's answer, checked as far as it is read: a success envelope whose `data` is an
 * object, and in it records where records are read. An answer that is not is one TopupError with a sentence, never a
 * TypeError later, when a field of null is read.
 */
export function dataOf(id: EndpointId, body: unknown, status: number): unknown {
  if (typeof body !== 'object' || body === null || !('data' in body) || (body as { success?: unknown }).success !== true) {
    // A 2xx that says it failed: its own words, as an error envelope's are shown.
    const { success, message } = (body ?? {}) as { success?: unknown; message?: unknown };
    if (success === false && typeof message === 'string' && message.trim() !== '')
      throw new TopupError(`The server answered ${status} but says it failed: ${message.trim()}`, { status });
    throw new TopupError('The server answered without a success envelope.', { status });
  }
  const { data } = body;
  if (!isRecord(data)) throw new TopupError(`The server's answer has ${kindOf(data)} instead of a data object.`, { status });
  const inside = READ_INSIDE[id];
  for (const key of inside?.records ?? []) {
    if (!isRecord(data[key])) throw new TopupError(`The server's answer has no ${key}.`, { status });
  }
  for (const key of inside?.lists ?? []) {
    const items = data[key];
    // A list left out, or not a list, is for its reader to tell ("has no … list"); only what is in a list is checked here.
    if (!Array.isArray(items)) continue;
    const at = items.findIndex((item) => !isRecord(item));
    if (at !== -1) {
      throw new TopupError(`The server's answer has ${kindOf(items[at])} instead of a record at item ${at + 1} of its ${key} list.`, {
        status,
      });
    }
  }
  return data;
}

/** A JSON object: not null, not a list. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How a value that is not what it should be is named in a message: `null`, `a list`, `a string`, `an object`, … */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The deepest an answer may nest its arrays and objects. Answers of this API are a handful of levels deep (envelope,
 * data, a list, a record, a field); 512 leaves room for anything a server might add, and stays far below the depth at
 * which JSON.stringify, and every renderer that walks a value, run out of stack (a few thousand levels).
 */
export const MAX_ANSWER_DEPTH = 512;

/** The code of an answer that arrived but cannot be used: too deep, or not decodable per its Content-Encoding. */
export const UNREADABLE_ANSWER = 'UNREADABLE_ANSWER';

/**
 * Whether a JSON text nests deeper than `max` arrays and objects, told by counting brackets outside strings: a loop,
 * not a parse, so no depth can overflow it. A text that does not start as JSON's arrays and objects do (an HTML page)
 * is never too deep.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (!/^\s*[[{]/.test(text) || !opensMoreThan(text, max)) return false;
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) at = endOfString(text, at);
    else if (char === OPEN_LIST || char === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (char === CLOSE_LIST || char === CLOSE_OBJECT) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the text holds more than `max` opening brackets anywhere, strings included: no fewer can nest deeper. Two
 * searches that skip from bracket to bracket, where the exact count walks every character: almost every answer has
 * far fewer (a page of orders some hundreds), and is passed at this.
 */
function opensMoreThan(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1 && count <= max; at = text.indexOf('{', at + 1)) count++;
  for (let at = text.indexOf('['); at !== -1 && count <= max; at = text.indexOf('[', at + 1)) count++;
  return count > max;
}

/** Where the string opened at `start` ends: its closing quote, the first not escaped by an odd run of backslashes. */
function endOfString(text: string, start: number): number {
  for (let at = text.indexOf('"', start + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

/**
 * An answer that arrived whole but cannot be used, as one sentence naming the origin of `url`: the server did answer
 * (not a network failure, so never retried: the same request would get the same answer), and `why` says what is
 * wrong with it.
 */
export function unreadableAnswer(url: string | undefined, why: string, status?: number): TopupError {
  const who = url === undefined ? 'The server' : new URL(url).origin;
  return new TopupError(`${who} answered, but its answer could not be read: ${why}.`, {
    status,
    code: UNREADABLE_ANSWER,
  });
}

/** Why an answer nested past MAX_ANSWER_DEPTH is refused. */
export const TOO_DEEP = `it nests arrays and objects more than ${MAX_ANSWER_DEPTH} levels deep`;
