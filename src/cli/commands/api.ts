import { InvalidArgumentError, type Command } from 'commander';
import { TimeoutError } from '../../errors.js';
import { DEFAULT_TIMEOUT_MS, exchange, TransportFailure } from '../../client/http.js';
import type { CliContext } from '../context.js';
import { jsonText, sanitizeText } from '../io/sanitize.js';
import { CliError, UsageError } from '../errors.js';
import { sandboxFetch } from '../sandbox-fetch.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface ApiFlags {
  data?: string | undefined;
  header?: string[] | undefined;
}

/**
 * The URL for a PATH under /api/v1 of `baseUrl`. PATH is relative to /api/v1 (`me/balance`, `/me/balance`)
 * or starts with /api/v1; it may carry a query. Absolute URLs and dot segments are refused, so a typed
 * PATH can never send the token to another host or to a path outside the API.
 */
export function apiUrl(baseUrl: string, path: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) throw new UsageError('PATH must be a path under /api/v1, not a URL; the server comes from the profile or --base-url.');
  if (/[\\#\s]/.test(path)) throw new UsageError('PATH must not contain backslashes, spaces or a #fragment.');
  const queryAt = path.indexOf('?');
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
  const query = queryAt === -1 ? '' : path.slice(queryAt);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new UsageError('PATH has a malformed %-escape.');
  }
  if (decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) throw new UsageError('PATH must stay under /api/v1: . and .. segments are refused.');
  const relative = pathname.replace(/^\/?api\/v1(?=\/|$)/, '').replace(/^\/+/, '');
  const root = new URL('api/v1/', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = new URL(`${relative}${query}`, root);
  if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) throw new UsageError('PATH must stay under /api/v1.');
  return url;
}

/** `Name: value` from --header; the Authorization header belongs to the profile and is never taken from here. */
export function parseHeader(value: string, previous: string[] = []): string[] {
  const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*([\x20-\x7e]*)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('A header is `Name: value` in visible ASCII.');
  const name = match[1]!.toLowerCase();
  if (['authorization', 'host', 'content-length', 'cookie'].includes(name)) throw new InvalidArgumentError(`The ${name} header is set by topup and cannot be given.`);
  return [...previous, `${name}:${match[2]!.trim()}`];
}

function parseMethod(value: string): (typeof API_METHODS)[number] {
  const method = value.toUpperCase() as (typeof API_METHODS)[number];
  if (!API_METHODS.includes(method)) throw new InvalidArgumentError(`METHOD must be one of ${API_METHODS.join(', ')}.`);
  return method;
}

function parseBody(data: string | undefined, method: string): string | undefined {
  if (data === undefined) return undefined;
  if (method === 'GET') throw new UsageError('--data cannot be sent with GET; use POST.');
  try {
    JSON.parse(data);
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}.`);
  }
  return data;
}

/**
 * `topup api METHOD PATH`: one raw authenticated request, without retries. Prints the response body
 * (the whole envelope, pretty JSON) on stdout whatever the status; the status decides the exit code,
 * as the client's error classes do.
 */
export async function runApi(ctx: CliContext, method: string, path: string, flags: ApiFlags): Promise<void> {
  const body = parseBody(flags.data, method);
  const target = await ctx.target();
  let baseUrl: string;
  let fetchFn: typeof globalThis.fetch;
  if (target.kind === 'embedded') {
    baseUrl = target.sandbox.baseUrl;
    fetchFn = sandboxFetch(target.sandbox);
  } else {
    const { parseBaseUrl } = await import('../../client/base-url.js');
    baseUrl = parseBaseUrl(target.baseUrl);
    fetchFn = await ctx.remoteFetch();
  }
  const url = apiUrl(baseUrl, path);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'topup-cli' };
  for (const header of flags.header ?? []) {
    const at = header.indexOf(':');
    headers[header.slice(0, at)] = header.slice(at + 1);
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  if (ctx.globals.debug) {
    const shown = { ...headers, ...(headers.authorization ? { authorization: 'Bearer [REDACTED]' } : {}) };
    ctx.io.stderr.write(`${ctx.style.dim(sanitizeText(`> ${method} ${url.href} ${JSON.stringify(shown)}`, { multiline: false }))}\n`);
  }

  let response: { ok: boolean; status: number };
  let text: string;
  try {
    ({ answer: response, body: text } = await exchange(fetchFn, url.href, { method, headers, body }, { timeout: DEFAULT_TIMEOUT_MS, signal: ctx.signal }));
  } catch (error) {
    if (error instanceof TimeoutError) throw new TimeoutError(`${url.origin} did not answer within ${DEFAULT_TIMEOUT_MS / 1000} s.`);
    // The client's own sentence: the origin and the cause (refused, DNS, TLS, reset), never the path or the token.
    if (error instanceof TransportFailure) throw (await import('../../client/transport-failure.js')).connectionFailure(error.reason, url.href, target.token);
    throw error;
  }

  const { errorFromResponse, scrub } = await import('../../client/error-from-response.js');
  const secrets = target.token === undefined ? [] : [target.token];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // A server that echoes the token must not make us print it.
  // JSON is printed as JSON text with terminal-active characters escaped; a body that is not JSON is made safe as text.
  const shown = scrub(parsed === undefined ? sanitizeText(text) : jsonText(parsed, 2), secrets);
  if (shown !== '') ctx.out(shown.endsWith('\n') ? shown : `${shown}\n`);
  if (!response.ok) throw errorFromResponse({ status: response.status, body: parsed }, secrets);
}

export function registerApiCommand(program: Command, ctx: CliContext): void {
  program
    .command('api')
    .argument('<method>', `HTTP method: ${API_METHODS.join(', ')}`, parseMethod)
    .argument('<path>', 'path under /api/v1, e.g. me/balance or /api/v1/me/orders?status=pending')
    .description('Send one raw authenticated request under /api/v1 and print the response body')
    .option('--data <json>', 'JSON request body')
    .option('-H, --header <name:value>', 'extra request header, e.g. "Idempotency-Key: 7f1c…" (repeatable)', parseHeader)
    .addHelpText('after', `
The token goes only in the Authorization header. The whole response envelope is printed, whatever the status;
the exit code follows the status: 401 → 4, 403/409/422 → 5, 429 → 6, 5xx → 7, other errors → 1.

Examples:
  $ topup api GET me/balance
  $ topup api GET '/api/v1/me/orders?status=pending&per_page=5'
  $ topup api POST me/orders -H 'Idempotency-Key: order-4711' --data '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}'`)
    .action((method: string, path: string, flags: ApiFlags) => runApi(ctx, method, path, flags));
}
