import { MAX_ANSWER_DEPTH, nestsDeeperThan, TOO_DEEP, unreadableAnswer } from '../../client/answer-data.js';
import { finalFetchError } from '../../client/final-fetch-error.js';

/**
 * Text from a server (or typed by someone else) made safe to print: every C0 and C1 control character, DEL, and the
 * Unicode bidirectional overrides become a visible escape (`\x1b`, `\x9b`, `\u202e`), so that no escape sequence
 * (ANSI colours, `ESC ] 0 ; title BEL`, `ESC [ 2 J`, OSC 8 links) and no Trojan-Source reordering reaches a terminal or a
 * log. Tab and newline stay where a text may span lines (an article body); elsewhere they are escaped too. Our own
 * colours are added after this.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escapeOf = (char: string): string => {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

export function sanitizeText(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(options.multiline === false ? UNSAFE_ONE_LINE : UNSAFE, escapeOf);
}

/**
 * Text for one cell or one `key: value` line: a tab or line break in it (a server's text keeps them, sanitizeDeep) is
 * shown as its escape, `\x09`, `\x0a` or `\x0d`, as sanitizeText shows other control characters, so that it can
 * neither split a piped row into columns a script cuts nor start a line that looks like another row. Everything else
 * stays as it is, our own colour codes included.
 */
export function oneLine(text: string): string {
  return text.replace(/[\t\n\r]/g, escapeOf);
}

/** A quoted value in a message past this many characters is shortened: the sentence around it is what explains. */
const MAX_QUOTED_CHARS = 200;
/** A value in single quotes, as messages quote one: not an apostrophe (`the server's`), which follows a letter. */
const QUOTED = /(^|[\s(=])'([^']*)'(?=$|[\s.,;:)!?])/g;
/** A message past this many characters is cut: an error is one sentence, whatever it quotes. */
const MAX_MESSAGE_CHARS = 1_000;

/**
 * An error message for stderr that holds what someone typed or a server sent: control characters escaped
 * (sanitizeText), each quoted value past MAX_QUOTED_CHARS shortened, and the whole cut at MAX_MESSAGE_CHARS, so that a
 * 100 KB argument or answer is not printed back whole.
 */
export function messageText(text: string, options: { multiline?: boolean } = {}): string {
  // A quoted value stays on its line: a line break typed into it is escaped as any control character is.
  const quoted = (_: string, before: string, value: string) => {
    const safe = sanitizeText(value, { multiline: false });
    return `${before}'${safe.length > MAX_QUOTED_CHARS ? `${safe.slice(0, MAX_QUOTED_CHARS)}…` : safe}'`;
  };
  const short = sanitizeText(text.replace(QUOTED, quoted), options);
  return short.length <= MAX_MESSAGE_CHARS ? short : `${short.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/**
 * Every string in a parsed answer, keys included, sanitised (tab and newline kept: a table cell escapes those itself).
 * It recurses, as JSON.stringify does: a server's answer reaches it only when nested at most MAX_ANSWER_DEPTH deep.
 */
export function sanitizeDeep(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) return value.map(sanitizeDeep);
  if (value === null || typeof value !== 'object') return value;
  const clean: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) clean[sanitizeText(key, { multiline: false })] = sanitizeDeep(item);
  return clean;
}

/**
 * An answer body with its strings sanitised, for a command whose output is for people: JSON in, JSON out, so the
 * client reads it as it would have; a body that is not JSON is sanitised as text. JSON nested deeper than
 * MAX_ANSWER_DEPTH, which neither sanitizeDeep nor JSON.stringify could walk without running out of stack, is refused
 * as the client refuses it (src/client/http.ts), in the same sentence naming `from`, and marked final: this runs inside
 * the client's fetch, where any other error would read as a network failure and be retried.
 */
export function sanitizeBody(body: string, from: { url?: string; status?: number } = {}): string {
  if (nestsDeeperThan(body, MAX_ANSWER_DEPTH)) throw finalFetchError(unreadableAnswer(from.url, TOO_DEEP, from.status));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return sanitizeText(body);
  }
  return JSON.stringify(sanitizeDeep(parsed));
}

/**
 * A fetch whose answers reach the client with their strings sanitised: the one place where server text is made safe
 * for a command's human output, before any formatting or colour. `--json` runs use the plain fetch and stay exact.
 */
export function sanitizingFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const answer = await fetch(input, init);
    const body = sanitizeBody(await answer.text(), { url: urlOf(input), status: answer.status });
    return { status: answer.status, ok: answer.ok, headers: answer.headers, text: async () => body };
  }) as typeof globalThis.fetch;
}

function urlOf(input: Parameters<typeof globalThis.fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** Characters JSON.stringify leaves raw that a terminal may still act on (DEL, C1, BiDi overrides). */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text for output: exactly the value (it parses back to the same data), with every character a terminal could act
 * on written as a `\\uXXXX` escape. JSON.stringify escapes only C0; these can only stand inside strings, so this is safe.
 */
export function jsonText(value: unknown, space?: number): string {
  return escapeJsonText(JSON.stringify(value, null, space) ?? 'null');
}

/**
 * A server's JSON text laid out as jsonText lays out a value (`space` per level, the same escapes), but with every
 * number, string and key as the server wrote it: JSON.parse turns 12345678901234567890 into 12345678901234567000 and
 * 1e400 into null, and a key sent twice into one. For `topup api`, which promises the answer as it came. `text` must
 * be JSON that parsed; the walk is a loop, so any depth the caller let through is printed.
 */
export function jsonTextAsSent(text: string, space: number): string {
  const out: string[] = [];
  let depth = 0;
  const newline = () => `\n${' '.repeat(depth * space)}`;
  for (let i = 0; i < text.length;) {
    const char = text[i]!;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      i += 1;
    } else if (char === '{' || char === '[') {
      const next = nextNonSpace(text, i + 1);
      if (text[next] === (char === '{' ? '}' : ']')) {
        out.push(char === '{' ? '{}' : '[]');
        i = next + 1;
      } else {
        depth += 1;
        out.push(char, newline());
        i += 1;
      }
    } else if (char === '}' || char === ']') {
      depth -= 1;
      out.push(newline(), char);
      i += 1;
    } else if (char === ',') {
      out.push(',', newline());
      i += 1;
    } else if (char === ':') {
      out.push(': ');
      i += 1;
    } else if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out.push(text.slice(i, end + 1));
      i = end + 1;
    } else {
      // A number, true, false or null: up to the next delimiter, as written.
      let end = i + 1;
      while (end < text.length && !JSON_DELIMITER.test(text[end]!)) end += 1;
      out.push(text.slice(i, end));
      i = end;
    }
  }
  return escapeJsonText(out.join(''));
}

const JSON_DELIMITER = /[\s,:\]}]/;

function nextNonSpace(text: string, from: number): number {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i += 1;
  return i;
}

/** JSON text written by someone else (jq) with the same escapes as jsonText: it still parses to the same value. */
export function escapeJsonText(json: string): string {
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
