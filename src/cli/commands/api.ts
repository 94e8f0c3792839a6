import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { jsonText, sanitizeText } from '../io/sanitize.js';
import { UsageError } from '../errors.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface ApiFlags {
  data?: string | undefined;
  header?: string[] | undefined;
}

/**
 * The path under /api/v1 that PATH names: relative to /api/v1 (`me/balance`, `/me/balance`) or starting with
 * /api/v1; it may carry a query. Absolute URLs and dot segments are refused, so a typed PATH can never send the
 * token to another host or to a path outside the API.
 */
export function apiPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
    throw new UsageError('PATH must be a path under /api/v1, not a URL; the server comes from the profile or --base-url.');
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
  if (decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..'))
    throw new UsageError('PATH must stay under /api/v1: . and .. segments are refused.');
  const relative = pathname.replace(/^\/?api\/v1(?=\/|$)/, '').replace(/^\/+/, '');
  return `/api/v1/${relative}${query}`;
}

/** `Name: value` from --header; the Authorization header belongs to the profile and is never taken from here. */
export function parseHeader(value: string, previous: string[] = []): string[] {
  const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*([\x20-\x7e]*)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('A header is `Name: value` in visible ASCII.');
  const name = match[1]!.toLowerCase();
  if (['authorization', 'host', 'content-length', 'cookie'].includes(name))
    throw new InvalidArgumentError(`The ${name} header is set by topup and cannot be given.`);
  return [...previous, `${name}:${match[2]!.trim()}`];
}

function parseMethod(value: string): (typeof API_METHODS)[number] {
  const method = value.toUpperCase() as (typeof API_METHODS)[number];
  if (!API_METHODS.includes(method)) throw new InvalidArgumentError(`METHOD must be one of ${API_METHODS.join(', ')}.`);
  return method;
}

/** --data as the JSON value it holds; the client sends it as JSON. */
function parseBody(data: string | undefined, method: string): { value: unknown } | undefined {
  if (data === undefined) return undefined;
  if (method === 'GET') throw new UsageError('--data cannot be sent with GET; use POST.');
  try {
    return { value: JSON.parse(data) as unknown };
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}.`);
  }
}

/**
 * `topup api METHOD PATH`: one raw authenticated request through the client's `request()`, with its pacing, retries
 * (GETs, and POSTs with an Idempotency-Key) and timeout. Prints the response body (the whole envelope, pretty JSON)
 * on stdout whatever the status; the status decides the exit code, as the client's error classes do.
 */
export async function runApi(ctx: CliContext, method: string, path: string, flags: ApiFlags): Promise<void> {
  const body = parseBody(flags.data, method);
  const rawPath = apiPath(path);
  const headers: Record<string, string> = {};
  let idempotencyKey: string | undefined;
  for (const header of flags.header ?? []) {
    const at = header.indexOf(':');
    const name = header.slice(0, at);
    // The client sends it, and knows from it that a retry is safe.
    if (name === 'idempotency-key') idempotencyKey = header.slice(at + 1);
    else headers[name] = header.slice(at + 1);
  }
  const [client, target] = await Promise.all([ctx.exactClient(), ctx.target()]);
  const answer = await client.request({
    method,
    path: rawPath,
    headers,
    ...(body === undefined ? {} : { body: body.value }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    signal: ctx.signal,
    throwOnError: false,
  });
  const { errorFromResponse, scrub } = await import('../../client/error-from-response.js');
  const secrets = target.token === undefined ? [] : [target.token];
  // A server that echoes the token must not make us print it.
  // JSON is printed as JSON text with terminal-active characters escaped; a body that is not JSON is made safe as text.
  const shown = scrub(answer.body === undefined ? sanitizeText(answer.text) : jsonText(answer.body, 2), secrets);
  if (shown !== '') ctx.io.out(shown.endsWith('\n') ? shown : `${shown}\n`);
  if (!answer.ok) throw errorFromResponse({ status: answer.status, body: answer.body }, secrets);
}

export function registerApiCommand(program: Command, ctx: CliContext): void {
  program
    .command('api')
    .argument('<method>', `HTTP method: ${API_METHODS.join(', ')}`, parseMethod)
    .argument('<path>', 'path under /api/v1, e.g. me/balance or /api/v1/me/orders?status=pending')
    .description('Send one raw authenticated request under /api/v1 and print the response body')
    .option('--data <json>', 'JSON request body')
    .option('-H, --header <name:value>', 'extra request header, e.g. "Idempotency-Key: 7f1c…" (repeatable)', parseHeader)
    .addHelpText(
      'after',
      `
The token goes only in the Authorization header. Requests keep to the published rate limits; GETs, and POSTs
with an Idempotency-Key, are retried after 429 (as Retry-After asks), 502-504 and dropped connections.
The whole response envelope is printed, whatever the status; the exit code follows the status:
401 → 4, 403/409/422 → 5, 429 → 6, 5xx → 7, other errors → 1.

Examples:
  $ topup api GET me/balance
  $ topup api GET '/api/v1/me/orders?status=pending&per_page=5'
  $ topup api POST me/orders -H 'Idempotency-Key: order-4711' --data '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}'`,
    )
    .action((method: string, path: string, flags: ApiFlags) => runApi(ctx, method, path, flags));
}
