import { TOKEN_PREFIXES } from './token-prefix.js';

/**
 * The one redaction of tokens and secrets: the client's debug output and errors, the CLI's output and the sandbox's
 * request journal all use it, so a token looks the same wherever it is cut. Dependency-free (the CLI's start-up code
 * and the sandbox import it).
 *
 * - A known token (the one configured, or the one a request carried) is cut word for word wherever it appears,
 *   whatever its shape: a real server's tokens need not have our prefixes.
 * - A token of the sandbox's own format (`topup_test_…`, `topup_live_…`) is cut anywhere.
 * - The values of Authorization, Proxy-Authorization, Cookie, Set-Cookie and X-Api-Key are always cut, as are
 *   query parameters and JSON fields named like secrets (`token`, `access_token`, `api_key`, `password`…).
 *
 * A cut token keeps its family and its last 4 characters (`topup_test_…abcd`), enough to tell two tokens apart;
 * a value too short for that, or one that is no token (a password, a cookie), becomes `[redacted]`.
 */
export const REDACTED = '[redacted]';

/** Shorter known secrets are not looked for in text: they would cut ordinary words. */
export const MIN_KNOWN_SECRET_LENGTH = 8;
/** Characters shown at the end of a cut token, and how long its secret part must be for them to say little. */
const TAIL = 4;
const MIN_SECRET_FOR_TAIL = 12;

const FAMILIES = Object.values(TOKEN_PREFIXES);
/** The sandbox's token format: a family, then the secret (characters that survive URL and JSON encoding unchanged). */
const TOKEN_SHAPE = new RegExp(`(?<![A-Za-z0-9])(?:${FAMILIES.join('|')})[A-Za-z0-9_-]+`, 'g');
/** Header names whose value is a credential, always cut. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** Other header, query and JSON field names that hold a secret (`x-auth-token`, `client_secret`, `apiKey`). */
const SECRET_NAME =
  /(?:^|[^a-z])(?:access[_-]?|refresh[_-]?|id[_-]?|auth[_-]?|api[_-]?|bearer[_-]?)?token$|api[_-]?key$|secret$|passw(?:or)?d$|^passphrase$|^auth(?:orization)?$|^cookie$|^session(?:[_-]?id)?$/i;
/** Secrets of these names are no tokens: nothing of them is shown. */
const OPAQUE_NAME = /secret$|passw(?:or)?d$|^passphrase$|cookie$|^session/i;
/** `Bearer X`, `Token X`, `Basic X` in text (an error that echoes a header, a commander message). */
const SCHEME_CREDENTIAL = /\b(Bearer|Token|Basic)([ \t]+)([^\s'"`,;<>()]+)/gi;
/**
 * What tells a credential from words after "Token" or "Basic" in a sentence or a product name ("Basic Pack-100"):
 * long, and a digit, an inner capital or a symbol; Basic credentials are base64.
 */
function looksLikeCredential(scheme: string, word: string): boolean {
  if (word.length < MIN_SECRET_FOR_TAIL) return false;
  if (/^basic$/i.test(scheme)) return /^[A-Za-z0-9+/]+={0,2}$/.test(word) && /\d|.[A-Z]|[+/=]/.test(word);
  return /^[A-Za-z0-9+/=._~-]+$/.test(word) && /\d|.[A-Z]|[+/=_~-]/.test(word);
}
/** `Cookie: …`, `X-Api-Key=…` in text: the rest of the line (up to a quote) is the value. */
const HEADER_IN_TEXT = /\b(proxy-authorization|authorization|set-cookie|cookie|x-api-key)(\s*[:=]\s*)([^\n'"`]+)/gi;
/** `?token=…`, `&api_key=…` (and a form body's first field). */
const QUERY_PARAM = /(^|[?&;])([A-Za-z0-9_.-]+)=([^&;#\s'"`]*)/g;
/** `https://user:pass@host`: credentials in a URL. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"`]+@/gi;
/** A word that every name SECRET_NAME takes contains. */
const SECRET_WORDS = ['token', 'key', 'secret', 'passw', 'passphrase', 'auth', 'cookie', 'session'];
/**
 * `"token": "…"` in JSON text, without parsing it (the journal cuts bodies as it records them). The value's loop is
 * unrolled (runs of plain characters, then one escape): as an alternation repeated per character, a value of some
 * millions of characters (an article in a loaded state) overflowed the regular expression engine's stack.
 */
const JSON_STRING_FIELD = /"((?:[^"\\\n]|\\.){1,64})"(\s*:\s*)"([^"\\\n]*(?:\\.[^"\\\n]*)*)"/g;

/** Secrets known word for word; empty and short ones are dropped. */
export type KnownSecrets = readonly (string | undefined | null)[];

/** `topup_test_` or `topup_live_` when the token is of the sandbox's format. */
export function tokenFamily(token: string): string | undefined {
  return FAMILIES.find((prefix) => token.startsWith(prefix));
}

/** A token as it may be shown: `topup_test_…abcd`, `…abcd`, `topup_test_…` or `[redacted]` when too short. */
export function maskToken(token: string): string {
  if (isMasked(token)) return token;
  const family = tokenFamily(token) ?? '';
  const secret = token.slice(family.length);
  if (secret.length >= MIN_SECRET_FOR_TAIL) return `${family}…${token.slice(-TAIL)}`;
  return family === '' ? REDACTED : `${family}…`;
}

/** Already cut: cutting again must not lose the tail. */
function isMasked(value: string): boolean {
  return value === REDACTED || value.includes('…');
}

/** A credential's value, by the name it goes by: a token keeps its family and tail, anything else is `[redacted]`. */
function maskNamed(name: string, value: string): string {
  if (value === '' || isMasked(value)) return value;
  return OPAQUE_NAME.test(name) ? REDACTED : maskToken(value);
}

/** An Authorization-like value: the scheme stays, a token keeps its family and tail, Basic and others are cut whole. */
export function redactCredential(value: string): string {
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(value);
  if (match === null) return maskNamed('token', value.trim());
  const [, scheme, credential] = match as unknown as [string, string, string];
  return /^(bearer|token)$/i.test(scheme) ? `${scheme} ${maskToken(credential)}` : `${scheme} ${REDACTED}`;
}

/** Whether a header, query parameter or JSON field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || SECRET_NAME.test(name);
}

/**
 * `text` with every occurrence of `lowerFind` in any case cut. Found in the lower-case copy, whose positions are the
 * text's unless lowering changed a length (a few non-ASCII letters do): then compared position by position.
 */
function cutInAnyCase(text: string, lowerFind: string, mask: string): string {
  const lower = text.toLowerCase();
  const sameLength = lower.length === text.length;
  const at = (from: number) => {
    if (sameLength) return lower.indexOf(lowerFind, from);
    for (let i = from; i + lowerFind.length <= text.length; i++)
      if (text.slice(i, i + lowerFind.length).toLowerCase() === lowerFind) return i;
    return -1;
  };
  let out = '';
  let from = 0;
  for (let found = at(0); found !== -1; found = at(from)) {
    out += text.slice(from, found) + mask;
    from = found + lowerFind.length;
  }
  return out + text.slice(from);
}

/** Compiled once per list: the journal passes one list to every part of a request it cuts. */
const compiled = new WeakMap<KnownSecrets, Searchable[]>();

/** One form of a known secret: as written, its lower case (to find it in any case), and what replaces it. */
interface Searchable {
  find: string;
  lower: string;
  mask: string;
}

/** The known secrets worth looking for, longest first (one may contain another), with their encoded forms. */
function searchable(known: KnownSecrets): Searchable[] {
  if (known.length === 0) return [];
  let found = compiled.get(known);
  if (found !== undefined) return found;
  found = [];
  for (const secret of known) {
    if (typeof secret !== 'string' || secret.length < MIN_KNOWN_SECRET_LENGTH) continue;
    const mask = maskToken(secret);
    // As typed, in a URL and in JSON text: a token with `+`, `/` or `"` changes there.
    for (const form of new Set([secret, safeEncode(secret), JSON.stringify(secret).slice(1, -1)]))
      found.push({ find: form, lower: form.toLowerCase(), mask });
  }
  found.sort((a, b) => b.find.length - a.find.length);
  compiled.set(known, found);
  return found;
}

/** Text of any kind (a message, a URL, a body, a stack trace) with every secret in it cut. */
export function redactText(text: string, known: KnownSecrets = []): string {
  let out = text;
  // One lower-case copy answers every "could this rule apply" cheaply (the journal cuts every body it records).
  const lower = text.toLowerCase();
  for (const { find, lower: lowerFind, mask } of searchable(known)) {
    if (out.includes(find)) out = out.split(find).join(mask);
    // A server that echoes the token in another case (upper-cased in a header, say) shows it all the same.
    if (lower.includes(lowerFind)) out = cutInAnyCase(out, lowerFind, mask);
  }
  if (lower.includes('bearer') || lower.includes('token') || lower.includes('basic'))
    out = out.replace(SCHEME_CREDENTIAL, (whole, scheme: string, space: string, word: string) => {
      // A sentence's full stop is no part of the credential.
      const credential = word.replace(/[.]+$/, '');
      if (isMasked(credential) || !looksLikeCredential(scheme, credential)) return whole;
      const shown = /^(bearer|token)$/i.test(scheme) ? maskToken(credential) : REDACTED;
      return `${scheme}${space}${shown}${word.slice(credential.length)}`;
    });
  if (lower.includes('authorization') || lower.includes('cookie') || lower.includes('x-api-key'))
    out = out.replace(HEADER_IN_TEXT, (whole, name: string, sep: string, value: string) => {
      const trimmed = value.trimEnd();
      if (isMasked(trimmed) || /\[redacted\]|…/.test(trimmed)) return whole;
      const shown = /authorization$/i.test(name) ? redactCredential(trimmed) : maskNamed(name, trimmed);
      return `${name}${sep}${shown}${value.slice(trimmed.length)}`;
    });
  if (out.includes('='))
    out = out.replace(QUERY_PARAM, (whole, lead: string, name: string, value: string) =>
      isSecretName(name) ? `${lead}${name}=${maskNamed(name, safeDecode(value))}` : whole,
    );
  if (out.includes('@')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  if (out.includes('topup_')) out = out.replace(TOKEN_SHAPE, (token) => maskToken(token));
  return out;
}

/** A URL (or a path with its query) with credentials, secret parameters and tokens in it cut. */
export function redactUrl(url: string, known: KnownSecrets = []): string {
  return redactText(url, known);
}

/** Text that may be JSON (a request or answer body): fields named like secrets are cut too, without parsing it. */
export function redactBody(text: string, known: KnownSecrets = []): string {
  let out = redactText(text, known);
  // Most bodies have no field named like a secret: one scan says so, and spares the field-by-field one.
  const lower = out.toLowerCase();
  if (SECRET_WORDS.some((word) => lower.includes(word)))
    out = out.replace(JSON_STRING_FIELD, (whole, name: string, sep: string, value: string) =>
      isSecretName(name) && value !== '' && !isMasked(value) ? `"${name}"${sep}"${maskNamed(name, value)}"` : whole,
    );
  return out;
}

/** A value named `name` (a query parameter, a form or JSON field): cut whole when the name says secret, else as text. */
export function redactNamedValue(name: string, value: string, known: KnownSecrets = []): string {
  return isSecretName(name) ? maskNamed(name, value) : redactText(value, known);
}

/** A path with tokens in its segments cut, whether written plainly or percent-encoded. */
export function redactPath(path: string, known: KnownSecrets = []): string {
  if (!path.includes('%')) return redactText(path, known);
  return path
    .split('/')
    .map((segment) => {
      const decoded = safeDecode(segment, false);
      const shown = redactText(decoded, known);
      return shown === decoded ? redactText(segment, known) : shown;
    })
    .join('/');
}

/** The values of JSON fields named like secrets in a body (`{"token": …}` of token/validate), to cut where they echo. */
export function secretsOfBody(text: string | null): string[] {
  if (text === null || !text.includes('"')) return [];
  const found: string[] = [];
  for (const [, name, , value] of text.matchAll(JSON_STRING_FIELD))
    if (isSecretName(name!) && value!.length >= MIN_KNOWN_SECRET_LENGTH && !isMasked(value!)) found.push(value!);
  return found;
}

/** Headers by name, each value cut as its name says: credentials always, tokens and known secrets anywhere. */
export function redactHeaders(headers: Readonly<Record<string, string>>, known: KnownSecrets = []): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) shown[name] = redactHeaderValue(name, value, known);
  return shown;
}

export function redactHeaderValue(name: string, value: string, known: KnownSecrets = []): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return redactCredential(value);
  if (isSecretName(lower)) return maskNamed(lower, value);
  return redactText(value, known);
}

/** A JSON value with every string cut by the same rules, and fields named like secrets cut whole. */
export function redactJson(value: unknown, known: KnownSecrets = []): unknown {
  if (typeof value === 'string') return redactText(value, known);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, known));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const shown = typeof item === 'string' && isSecretName(key) ? maskNamed(key, item) : redactJson(item, known);
    // Own keys only, `__proto__` included, as JSON.parse made them.
    Object.defineProperty(out, key, { value: shown, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The secrets a request carries (its credentials and secret query parameters), to cut them wherever they echo. */
export function secretsOfRequest(headers: Readonly<Record<string, string>>, search = ''): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const credential = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
      found.push(credential ?? value.trim());
    } else if (lower !== 'cookie' && lower !== 'set-cookie' && isSecretName(lower)) found.push(value.trim());
  }
  if (search.includes('='))
    for (const [name, value] of new URLSearchParams(search)) if (isSecretName(name) && value !== '') found.push(value);
  return found.filter((secret) => secret.length >= MIN_KNOWN_SECRET_LENGTH && !isMasked(secret));
}

/** Percent-encoded as in a URL; a lone surrogate (a stranger's header can hold one) cannot be, and stays as it is. */
function safeEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Percent-decoded; in a query or form (`form`), `+` is a space too. Malformed escapes stay as they are. */
function safeDecode(value: string, form = true): string {
  try {
    return decodeURIComponent(form ? value.replace(/\+/g, ' ') : value);
  } catch {
    return value;
  }
}
