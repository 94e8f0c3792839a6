import { CONTROL_HEADER, CONTROL_SECRET_ENV, CONTROL_SECRET_HEADER } from '../../src/contract/sandbox-control.js';
import { ApiError, type ControlGuard, type SandboxRequest } from '../core/exchange.js';
import { nodeCrypto } from '../core/builtins.js';

export type { ControlGuard };

/**
 * Who may drive a served sandbox's control API: the machine it runs on, never a web page the developer happens to
 * visit. Two checks, as dev servers that expose an admin API make them:
 *
 * - DNS rebinding: a page on evil.example can make its own name resolve to 127.0.0.1, and then its requests reach
 *   the sandbox with `Host: evil.example`. Only loopback names and the names the server was told to answer to pass.
 * - Cross-site requests: a page can POST to http://127.0.0.1:4010 without reading the answer. Such a "simple"
 *   request can carry neither `Content-Type: application/json` nor a custom header, so a change needs one of them,
 *   and a browser's own `Origin`/`Sec-Fetch-Site` saying another site is refused outright.
 *
 * Both protect against browsers only: any other client on the network can send `Host: localhost` and no Origin.
 * Against those, a sandbox that listens beyond loopback takes a control secret, which every control call then
 * presents (CONTROL_SECRET_HEADER). The invoice page and the dashboard get the same Host check as the control API.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** localhost, *.localhost, 127.0.0.0/8 and ::1: names that cannot point anywhere but this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name) || name === '::1';
}

/** The host name of a Host header value or URL authority, without the port. */
export function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

/** A Host header as RFC 9110 has it: a name or IPv4 address (a final dot allowed), or [IPv6], then an optional port. */
const HOST_HEADER =
  /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)(?::\d{1,5})?$/;

/** The host name of a Host header, lower-cased, without its port or a final dot; undefined when it is no host at all. */
export function hostHeaderName(host: string): string | undefined {
  if (!HOST_HEADER.test(host)) return undefined;
  return hostnameOf(host).replace(/\.$/, '');
}

/**
 * A refusal for a request under a host name that is neither loopback nor allowed (a DNS-rebinding page), or
 * undefined. For the control API and the sandbox's own pages (the dashboard, the hosted invoice page).
 */
export function hostRefusal(request: SandboxRequest, guard: ControlGuard): ApiError | undefined {
  const host = request.headers.host ?? new URL(request.url).host;
  const hostname = hostHeaderName(host);
  // `localhost:1@evil.example` or `evil.example#.localhost`: no browser sends these, and no name is read out of them.
  if (hostname === undefined)
    return new ApiError(
      403,
      `The sandbox's pages and control API answer only on this machine's loopback names, and the Host header '${host.slice(0, 100)}' names no host.`,
      'HOST_NOT_ALLOWED',
    );
  if (isLoopbackHost(hostname) || guard.allowedHosts.has(hostname)) return undefined;
  return new ApiError(
    403,
    `The sandbox's pages and control API answer only on this machine's loopback names, not on '${hostname}'; start it with --allow-host ${hostname} to allow that name.`,
    'HOST_NOT_ALLOWED',
  );
}

/**
 * A refusal for a control request that did not come from this machine's own tools, or undefined to let it through.
 * `page` is the dashboard's HTML itself: it holds no data, so it is served without the secret and asks for it.
 */
export function controlRefusal(request: SandboxRequest, guard: ControlGuard, page = false): ApiError | undefined {
  const refused = hostRefusal(request, guard);
  if (refused !== undefined) return refused;
  if (guard.secret !== undefined && !page) {
    const presented = request.presentedControlSecret;
    if (presented === undefined || presented === '')
      return new ApiError(
        401,
        `This sandbox's control API needs its control secret in the ${CONTROL_SECRET_HEADER} header (the CLI sends ${CONTROL_SECRET_ENV}).`,
        'CONTROL_SECRET_REQUIRED',
      );
    if (!sameSecret(presented, guard.secret))
      return new ApiError(403, `The ${CONTROL_SECRET_HEADER} header does not hold this sandbox's control secret.`, 'CONTROL_SECRET_WRONG');
  }
  if (SAFE_METHODS.has(request.method)) return undefined;
  const host = request.headers.host ?? new URL(request.url).host;
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  if ((site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !sameHost(origin, host))) {
    return new ApiError(403, 'The sandbox refuses control calls from another web site.', 'CROSS_SITE_REQUEST');
  }
  const json = /^application\/json\b/i.test(request.headers['content-type'] ?? '');
  if (!json && request.headers[CONTROL_HEADER] === undefined) {
    return new ApiError(
      403,
      `A control call that changes the sandbox needs Content-Type: application/json or an ${CONTROL_HEADER} header (which a web page on another site cannot send).`,
      'CROSS_SITE_REQUEST',
    );
  }
  return undefined;
}

function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** Constant time whatever the lengths: both sides are hashed to the same length first. */
function sameSecret(presented: string, secret: string): boolean {
  const { createHash, timingSafeEqual } = nodeCrypto();
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(secret));
}
