import { redactBody, redactHeaderValue } from '../../contract/redact.js';
import { sanitizeText } from './sanitize.js';

/** Header lookup and listing, as a fetch Response's headers offer them. */
export interface ListedHeaders {
  forEach?(callback: (value: string, name: string) => void): void;
}

/** Made safe for one line of a terminal: server text and our own redaction of secrets. */
export type CleanLine = (text: string) => string;

/**
 * `HTTP/1.1 200 OK`, as gh prints it above the headers. The client reads answers through fetch, which hides the
 * protocol version and (over node:http) the server's reason phrase, so these are the standard ones for the status.
 */
export function statusLine(status: number, reasons: Readonly<Record<number, string | undefined>>): string {
  const reason = reasons[status];
  return reason === undefined ? `HTTP/1.1 ${status}` : `HTTP/1.1 ${status} ${reason}`;
}

/** `name: value`, one a line, sorted by name; values as the server sent them, made safe, credentials (Set-Cookie) cut. */
export function headerLines(headers: ListedHeaders, clean: CleanLine): string[] {
  const lines: [string, string][] = [];
  headers.forEach?.((value, name) => lines.push([clean(name), clean(redactHeaderValue(name, value))]));
  return lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, value]) => `${name}: ${value}`);
}

/** `--verbose`: the request as sent, each line after `> `; headers already redacted by the client, the body here. */
export function requestLines(
  request: { method: string; url: string; headers: Record<string, string> },
  body: string | undefined,
): string[] {
  const url = new URL(request.url);
  const clean = (text: string) => sanitizeText(text, { multiline: false });
  return [
    `> ${request.method} ${clean(`${url.pathname}${url.search}`)} HTTP/1.1`,
    `> host: ${clean(url.host)}`,
    ...Object.keys(request.headers)
      .sort()
      .map((name) => `> ${clean(name)}: ${clean(request.headers[name]!)}`),
    '>',
    ...(body === undefined ? [] : sanitizeText(redactBody(body)).split('\n')),
  ];
}
