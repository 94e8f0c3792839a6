import { CONTROL_HEADER } from '../../src/contract/sandbox-control.js';
import { ApiError, type SandboxRequest } from '../core/exchange.js';

/**
 * Who may drive a served sandbox's control API: the machine it runs on, never a web page the developer happens to
 * visit. Two checks, as dev servers that expose an admin API make them:
 *
 * - DNS rebinding: a page on evil.example can make its own name resolve to 127.0.0.1, and then its requests reach
 *   the sandbox with `Host: evil.example`. Only loopback names and the names the server was told to answer to pass.
 * - Cross-site requests: a page can POST to http://127.0.0.1:4010 without reading the answer. Such a "simple"
 *   request can carry neither `Content-Type: application/json` nor a custom header, so a change needs one of them,
 *   and a browser's own `Origin`/`Sec-Fetch-Site` saying another site is refused outright.
 */
export interface ControlGuard {
  /** Host names (without port) that may reach the control API besides the loopback ones. */
  readonly allowedHosts: ReadonlySet<string>;
}

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

/** A refusal for a control request that did not come from this machine's own tools, or undefined to let it through. */
export function controlRefusal(request: SandboxRequest, guard: ControlGuard): ApiError | undefined {
  const host = request.headers.host ?? new URL(request.url).host;
  const hostname = hostnameOf(host);
  if (!isLoopbackHost(hostname) && !guard.allowedHosts.has(hostname)) {
    return new ApiError(
      403,
      `The sandbox's control API answers only on this machine's loopback names, not on '${hostname}'; start it with --allow-host ${hostname} to allow that name.`,
      'HOST_NOT_ALLOWED',
    );
  }
  if (SAFE_METHODS.has(request.method)) return undefined;
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
