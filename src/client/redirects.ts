import { TopupError } from '../errors.js';

/** How many redirects one attempt follows before it gives up, as a loop of redirects never ends on its own. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Headers that carry the caller's credentials: they never go to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/** Headers that describe a body: dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** One request of a chain of redirects. */
export interface Hop {
  url: string;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | undefined;
}

/** What a redirect decision reads of an answer; `type` is a browser's `opaqueredirect` under `redirect: 'manual'`. */
export interface RedirectAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly type?: string;
}

/** A redirect the client does not follow: the answer's status is kept, and nothing was sent to where it pointed. */
export class RedirectRefusedError extends TopupError {
  override name = 'RedirectRefusedError';
}

const originOf = (url: URL | string) => new URL(url).origin;

/**
 * The request a redirect asks for next, or undefined when the answer is no redirect. The client asks its fetch for
 * `redirect: 'manual'` and follows here, because fetch itself would resend a 307/308's body to any origin (it drops
 * only Authorization). Same-origin redirects are followed as fetch follows them; one to another origin goes without
 * the credential headers, and one that would carry the body there is refused: like the token, a body never leaves
 * the origin it was meant for.
 */
export function nextHop(previous: Hop, answer: RedirectAnswer, hops: number): Hop | undefined {
  const from = originOf(previous.url);
  if (answer.type === 'opaqueredirect')
    throw new RedirectRefusedError(`${from} answered with a redirect that this fetch hides (an opaque redirect), so it was not followed.`);
  const location = answer.headers.get('location');
  if (!REDIRECT_STATUSES.has(answer.status) || location === null) return undefined;
  const status = answer.status;
  if (hops >= MAX_REDIRECTS) throw new RedirectRefusedError(`${from} redirected more than ${MAX_REDIRECTS} times; stopped.`, { status });
  let url: URL;
  try {
    url = new URL(location, previous.url);
  } catch {
    throw new RedirectRefusedError(`${from} answered ${status} with a Location that is no URL; the redirect was not followed.`, { status });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RedirectRefusedError(`${from} answered ${status} with a redirect to a ${url.protocol} URL; it was not followed.`, { status });
  const headers = { ...previous.headers };
  // 303, and 301/302 after a POST, become a GET without a body, as fetch makes them.
  const dropsBody = status === 303 || ((status === 301 || status === 302) && previous.method === 'POST');
  const next: Hop = dropsBody
    ? { url: url.href, method: previous.method === 'HEAD' ? 'HEAD' : 'GET', headers, body: undefined }
    : { url: url.href, method: previous.method, headers, body: previous.body };
  if (dropsBody) for (const name of BODY_HEADERS) delete headers[name];
  if (url.origin === from) return next;
  if (next.body !== undefined)
    throw new RedirectRefusedError(
      `${from} answered ${status} with a redirect to ${url.origin}, another origin; the request body is never sent to another origin, so the request was not repeated there.`,
      { status },
    );
  for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return next;
}
