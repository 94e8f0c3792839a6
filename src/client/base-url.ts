import { isVisibleWord } from '../contract/visible-word.js';
import { UsageError } from '../errors.js';

/** True for hosts that never leave the machine: localhost, *.localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Checks a base URL and returns it normalised to end in `/`, ready to prefix endpoint paths.
 * Messages never repeat the URL: a refused URL may be refused precisely because it holds a secret.
 */
export function parseBaseUrl(
  baseUrl: unknown,
  options: { allowInsecureHttp?: boolean | undefined; insecureAdvice?: string | undefined } = {},
): string {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new UsageError('The base URL is missing; pass an absolute https:// URL.');
  }
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new UsageError('The base URL is not an absolute URL; pass one like https://shop.example.com.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError('The base URL must use https:// (or http:// for a local sandbox).');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('The base URL must not contain credentials; the token is given on its own, never in a URL.');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError('The base URL must not have a query or fragment; it is the site root, like https://shop.example.com.');
  }
  // Own properties only: a value inherited from a polluted Object.prototype never switches the guard off.
  const allowInsecureHttp = Object.hasOwn(options, 'allowInsecureHttp') && options.allowInsecureHttp === true;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    const advice = Object.hasOwn(options, 'insecureAdvice') ? options.insecureAdvice : undefined;
    throw new UsageError(
      `The base URL uses plain http:// to a host that is not loopback, so the token would travel unencrypted; ${advice ?? 'use https://'}.`,
    );
  }
  if (/\/api\/v1\/?$/.test(url.pathname)) {
    throw new UsageError('The base URL must be the site root without /api/v1; the client adds the path itself.');
  }
  return url.pathname.endsWith('/') ? url.href : `${url.href}/`;
}

/** A token is sent as a header value, so it must be one visible word. */
export function checkToken(token: unknown): string | undefined {
  if (token === undefined) return undefined;
  if (typeof token !== 'string' || token === '') {
    throw new UsageError('The token must be a non-empty string.');
  }
  // Visible ASCII only: whitespace, control or non-ASCII characters mean a copy-paste accident.
  if (!isVisibleWord(token)) {
    throw new UsageError('The token contains whitespace, control or non-ASCII characters; check how it was copied.');
  }
  return token;
}
