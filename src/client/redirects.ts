import { isSecretName, redactText } from '../contract/redact.js';
import { TopupError } from '../errors.js';
import { isLoopbackHost } from './base-url.js';

/** How many redirects one attempt follows before it gives up, as a loop of redirects never ends on its own. */
export const MAX_REDIRECTS = 10;

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The redirects fetch would repeat as a GET after anything but GET or HEAD. */
const TURNS_INTO_GET: ReadonlySet<number> = new Set([301, 302, 303]);

/** The longest origin a refusal shows: a Location is a stranger's text. */
const MAX_SHOWN_ORIGIN = 100;

/** One request of a chain of redirects; `Body` is whatever the fetch sends (a string, the CLI's Buffer). */
export interface Hop<Body = string> {
  url: string;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: Body | undefined;
}

/** What a redirect decision reads of an answer; `type` is a browser's `opaqueredirect` under `redirect: 'manual'`. */
export interface RedirectAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly type?: string;
}

/** What the caller allowed beyond the rule every base URL passes. */
export interface RedirectPolicy {
  /** The client's `allowInsecureHttp`: plain http:// to a host that is not loopback. */
  allowInsecureHttp?: boolean | undefined;
}

/** A redirect the client does not follow: the answer's status is kept, and nothing was sent to where it pointed. */
export class RedirectRefusedError extends TopupError {
  override name = 'RedirectRefusedError';
}

/** An origin as a refusal may print it: tokens cut (a Location may echo one), and never long. */
function shownOrigin(url: URL | string): string {
  const origin = redactText(new URL(url).origin);
  return origin.length > MAX_SHOWN_ORIGIN ? `${origin.slice(0, MAX_SHOWN_ORIGIN - 1)}…` : origin;
}

const isPlainHttpBeyondLoopback = (url: URL) => url.protocol === 'http:' && !isLoopbackHost(url.hostname);

/** The header names that make a request the caller's own: a credential (as the redaction knows them) or an order's key. */
function ownHeaders(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((name) => name === 'idempotency-key' || isSecretName(name));
}

/**
 * The request a redirect asks for next, or undefined when the answer is no redirect: the one decision for the
 * client's transport (http.ts) and the CLI's own fetch (cli/http-fetch.ts). Both fetch with `redirect: 'manual'` and
 * follow here, because fetch itself would resend a 307/308's body to any origin and turn a POST into a GET.
 *
 * 1. Every hop passes the base URL's rule: http(s), no credentials in the URL, plain http:// only to a loopback host
 *    unless `allowInsecureHttp` (or the chain is on such a host already, which only that option lets a base URL be).
 * 2. A redirect never changes the method: 301, 302 and 303 after anything but GET or HEAD are refused, as the request
 *    may have taken effect (an order may exist; orders.create's error carries its Idempotency-Key).
 * 3. Within the origin, everything else is followed as it was sent: same method, body, token and key.
 * 4. To another origin, only a GET or HEAD without credentials or Idempotency-Key goes (the public catalog): the
 *    token and a body never leave their server, and another origin's answer is never taken for the account's own.
 */
export function nextHop<Body>(
  previous: Hop<Body>,
  answer: RedirectAnswer,
  hops: number,
  policy: RedirectPolicy = {},
): Hop<Body> | undefined {
  if (answer.type === 'opaqueredirect')
    throw new RedirectRefusedError(
      `${shownOrigin(previous.url)} answered with a redirect that this fetch hides (an opaque redirect), so it was not followed.`,
    );
  // Most answers are no redirect: nothing more is made of them.
  if (!REDIRECT_STATUSES.has(answer.status)) return undefined;
  const location = answer.headers.get('location');
  if (location === null) return undefined;
  const status = answer.status;
  const from = shownOrigin(previous.url);
  const refuse = (why: string) => new RedirectRefusedError(`${from} answered ${status} with a redirect ${why}`, { status });
  if (hops >= MAX_REDIRECTS) throw new RedirectRefusedError(`${from} redirected more than ${MAX_REDIRECTS} times; stopped.`, { status });
  let url: URL;
  try {
    url = new URL(location, previous.url);
  } catch {
    throw new RedirectRefusedError(`${from} answered ${status} with a Location that is no URL; the redirect was not followed.`, { status });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`to a ${url.protocol.slice(0, 20)} URL; it was not followed.`);
  if (url.username !== '' || url.password !== '') throw refuse('to a URL with credentials in it; it was not followed.');
  const to = shownOrigin(url);
  const insecureAllowed = policy.allowInsecureHttp === true || isPlainHttpBeyondLoopback(new URL(previous.url));
  if (isPlainHttpBeyondLoopback(url) && !insecureAllowed)
    throw refuse(
      `to ${to}, plain http:// to a host that is not loopback; like the base URL, a redirect must use https://, so it was not followed.`,
    );
  const safe = previous.method === 'GET' || previous.method === 'HEAD';
  if (TURNS_INTO_GET.has(status) && !safe)
    throw refuse(
      `to ${to}, which would repeat the ${previous.method} as a GET; it was not followed, and the ${previous.method} may have taken effect.`,
    );
  const next: Hop<Body> = { url: url.href, method: previous.method, headers: { ...previous.headers }, body: previous.body };
  if (url.origin === new URL(previous.url).origin) return next;
  const moved = 'if the API moved there, point the base URL (--base-url, or baseUrl) at it.';
  if (previous.body !== undefined)
    throw refuse(
      `to ${to}, another origin; the request body is never sent to another origin, so the request was not repeated there: ${moved}`,
    );
  if (ownHeaders(previous.headers).length > 0)
    throw refuse(`to ${to}, another origin; a request with credentials or an Idempotency-Key is never repeated there: ${moved}`);
  if (!safe) throw refuse(`to ${to}, another origin; a ${previous.method} is never repeated at another origin: ${moved}`);
  return next;
}
