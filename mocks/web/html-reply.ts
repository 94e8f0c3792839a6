import { createHash } from 'node:crypto';
import { CONTROL_SECRET_HEADER } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import controlSecretScript from './control-secret/script.js?raw';

/**
 * A style sheet or script written inline into a page, with the token its page's CSP allows it by: the hash of exactly
 * this text, so the browser runs it and nothing else, no `'unsafe-inline'` needed. Made once when a page's module loads.
 */
export interface InlineAsset {
  readonly text: string;
  readonly hash: string;
}

export function inlineAsset(kind: 'script' | 'style', text: string): InlineAsset {
  // Its closing tag inside the text would end the element early, and what follows would be page markup.
  if (text.toLowerCase().includes(`</${kind}`)) throw new Error(`an inline ${kind} cannot contain </${kind}`);
  return { text, hash: `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'` };
}

/** One page of the sandbox: its markup, its one style sheet, its scripts, and the values its scripts read. */
export interface WebPage {
  readonly title: string;
  readonly style: InlineAsset;
  readonly body: string;
  /** Run in order: the shared control-secret script first, then the page's own. */
  readonly scripts?: readonly InlineAsset[];
  /**
   * `data-*` attributes of `<body>` (camelCase names, as `dataset` reads them): how a page hands its script values
   * that differ between pages, so the script's text, and with it its hash, stays the same.
   */
  readonly data?: Readonly<Record<string, string>>;
}

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** A page of the sandbox: nothing but its own inline style and script, calls only to its own origin, never framed. */
export function htmlReply(status: number, page: WebPage): SandboxReply {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': contentSecurityPolicy(page),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body: render(page),
  };
}

function contentSecurityPolicy(page: WebPage): string {
  return [
    "default-src 'none'",
    `style-src ${page.style.hash}`,
    `script-src ${page.scripts?.length ? page.scripts.map((script) => script.hash).join(' ') : "'none'"}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function render(page: WebPage): string {
  const data = Object.entries(page.data ?? {})
    .map(([name, value]) => ` data-${name.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`)}="${escapeHtml(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${page.style.text}</style>
</head>
<body${data}>
${page.body}
${(page.scripts ?? []).map((script) => `<script>${script.text}</script>`).join('\n')}
</body>
</html>
`;
}

/** The pages' side of the control secret: `window.topupControl`, for the scripts that call the control API. */
export const CONTROL_SECRET_SCRIPT = inlineAsset('script', controlSecretScript);
/** The `data-*` value the control-secret script reads. */
export const CONTROL_SECRET_DATA = { controlSecretHeader: CONTROL_SECRET_HEADER } as const;
