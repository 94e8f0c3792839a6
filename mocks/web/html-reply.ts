import type { SandboxReply } from '../core/exchange.js';

/** A page of the sandbox: nothing but its own inline style and script, calls only to its own origin, never framed. */
export function htmlReply(status: number, html: string): SandboxReply {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body: html,
  };
}
