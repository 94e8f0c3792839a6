import { messageText } from './io/sanitize.js';

/**
 * What a user can do about an error a server reported by its code, in the CLI's own words: the server's message speaks
 * of headers (X-Chat-User-ID), the user needs the flag or the config key that sends it. Printed after the error line;
 * the server's message itself is never rewritten.
 */
const hintsByCode: Readonly<Record<string, string>> = {
  CHAT_LINK_REQUIRED:
    'Give the chat user id linked to this account with --chat-user-id ID, or store it for the profile: topup config set chat_user_id ID',
};

export function errorHint(code: unknown): string | undefined {
  return typeof code === 'string' && Object.hasOwn(hintsByCode, code) ? hintsByCode[code] : undefined;
}

/** What an error carries besides its sentence: the envelope's code and fields, and the server's Retry-After. */
export interface ErrorDetails {
  code?: unknown;
  fields?: unknown;
  retryAfter?: unknown;
}

/** At most this many fields are named; a server may send any number. */
const MAX_FIELDS_NAMED = 10;
/** A field name longer than this (in characters) is cut: it is a stranger's text. */
const MAX_FIELD_CHARS = 64;
const MAX_WAIT_SAID_SECONDS = 365 * 24 * 60 * 60;

/**
 * Whether the sentence names the field as a word of its own: `id` is not named by "Validation", nor `page` by
 * "per_page" (a field's name is letters, digits and underscores; anything else beside it ends it).
 */
function namesField(sentence: string, field: string): boolean {
  const isNamePart = (char: string | undefined) => char !== undefined && /[A-Za-z0-9_]/.test(char);
  for (let at = sentence.indexOf(field); at !== -1; at = sentence.indexOf(field, at + 1)) {
    if (!isNamePart(sentence[at - 1]) && !isNamePart(sentence[at + field.length])) return true;
  }
  return false;
}

/**
 * The lines printed after the error's sentence: the hint for its code, the fields at fault that the sentence does not
 * name (a server's message need not name them: the envelope's `error.fields` does), and how long the server asked to
 * wait (Retry-After), which the CLI's retries gave up on. Each is text from the server made safe for a terminal.
 */
export function errorDetailLines(details: ErrorDetails, sentence: string): string[] {
  const lines: string[] = [];
  const hint = errorHint(details.code);
  if (hint !== undefined) lines.push(hint);
  const fields = Array.isArray(details.fields) ? details.fields.filter((field): field is string => typeof field === 'string') : [];
  const unnamed = [...new Set(fields)].filter((field) => field !== '' && !namesField(sentence, field));
  if (unnamed.length > 0) {
    const named = unnamed.slice(0, MAX_FIELDS_NAMED).map((field) => {
      const safe = messageText(field, { multiline: false });
      const chars = [...safe];
      return chars.length > MAX_FIELD_CHARS ? `${chars.slice(0, MAX_FIELD_CHARS).join('')}…` : safe;
    });
    const more = unnamed.length - named.length;
    lines.push(`${unnamed.length === 1 ? 'Field' : 'Fields'} at fault: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`);
  }
  const wait = details.retryAfter;
  // A wait past a year is no advice a person can take; the number is still in --json's `retry_after`.
  if (typeof wait === 'number' && wait >= 0 && wait <= MAX_WAIT_SAID_SECONDS) {
    const seconds = Math.ceil(wait);
    lines.push(`The server asked to wait ${seconds} ${seconds === 1 ? 'second' : 'seconds'} before the next request (Retry-After).`);
  }
  return lines;
}
