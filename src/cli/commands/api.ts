import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

export interface ApiFlags {
  method?: ApiMethod | undefined;
  rawField?: string[] | undefined;
  field?: string[] | undefined;
  input?: string | undefined;
  data?: string | undefined;
  header?: string[] | undefined;
  include?: boolean | undefined;
  silent?: boolean | undefined;
  verbose?: boolean | undefined;
  paginate?: boolean | undefined;
  slurp?: boolean | undefined;
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

function isMethod(value: string): boolean {
  return (API_METHODS as readonly string[]).includes(value.toUpperCase());
}

function parseMethod(value: string): ApiMethod {
  if (!isMethod(value)) throw new InvalidArgumentError(`METHOD must be one of ${API_METHODS.join(', ')}.`);
  return value.toUpperCase() as ApiMethod;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `topup api [METHOD] PATH` → the method (undefined: chosen by what is sent) and the path. `topup api GET PATH`, the
 * older form, still works; so does gh's `topup api PATH -X GET`. A lone method is a path forgotten, not an endpoint.
 */
export function methodAndPath(
  first: string,
  second: string | undefined,
  flag: ApiMethod | undefined,
): { method?: ApiMethod; path: string } {
  if (second === undefined) {
    if (isMethod(first))
      throw new UsageError(`PATH is missing: give it after the method, e.g. topup api ${first.toUpperCase()} me/balance.`);
    return { ...(flag === undefined ? {} : { method: flag }), path: first };
  }
  if (!isMethod(first)) throw new UsageError(`METHOD must be one of ${API_METHODS.join(', ')}.`);
  const method = first.toUpperCase() as ApiMethod;
  if (flag !== undefined && flag !== method) throw new UsageError(`Two methods given: ${method} and -X ${flag}; give one.`);
  return { method, path: second };
}

export function registerApiCommand(program: Command, ctx: CliContext): void {
  program
    .command('api')
    .usage('[METHOD] PATH [options]')
    .argument('<method-or-path>', `HTTP method (${API_METHODS.join(', ')}), or the path when the method is left out`)
    .argument('[path]', 'path under /api/v1, e.g. me/balance or /api/v1/me/orders?status=pending')
    .description('Send an authenticated request under /api/v1 and print the response, like `gh api`')
    .option('-X, --method <method>', 'HTTP method (default: GET, or POST when fields, --input or --data are given)', parseMethod)
    .option('-f, --raw-field <key=value>', 'a string field: a query parameter of a GET, else a key of the JSON body (repeatable)', collect)
    .option(
      '-F, --field <key=value>',
      "a typed field: numbers, true, false and null as such, @file for a file's text (@- stdin), a[b]=1 and a[]=1 nest (repeatable)",
      collect,
    )
    .option('--input <file>', 'send the file as the request body, as it is (- for stdin); fields then go in the query')
    .option('--data <json>', 'JSON request body')
    .option('-H, --header <name:value>', 'extra request header, e.g. "Idempotency-Key: 7f1c…" (repeatable)', parseHeader)
    .option('-i, --include', 'print the status line and the response headers before the body')
    .option('--silent', 'print no response body')
    .option('--verbose', 'print the request and the response headers on stderr, the token redacted')
    .option('--paginate', 'follow pagination.has_more and fetch every page of a list, in order, within the rate limits')
    .option('--slurp', 'with --paginate: print one JSON array of every page instead of one document per page')
    .addHelpText(
      'after',
      `
The token goes only in the Authorization header. Requests keep to the published rate limits; GETs, and POSTs
with an Idempotency-Key, are retried after 429 (as Retry-After asks), 502-504 and dropped connections.
The whole response envelope is printed, whatever the status; the exit code follows the status:
401 → 4, 403/409/422 → 5, 429 → 6, 5xx → 7, other errors → 1. --jq EXPR (a global option) filters it with jq.
--paginate without pagination in the answer (a server may send none) prints that one page and says so on stderr.

Examples:
  $ topup api me/balance
  $ topup api me/orders -X GET -f status=pending -F per_page=5
  $ topup api me/orders --paginate --jq '.data.orders[].invoice_code'
  $ topup api me/orders -H 'Idempotency-Key: order-4711' -f platform_username=BuilderBob -F place_id=5001 -F platform_pass_id=9001
  $ topup api -i health
  $ echo '{"platform_username":"BuilderBob","place_id":5001,"platform_pass_id":9001}' | topup api me/orders --input -`,
    )
    .action(async (first: string, second: string | undefined, flags: ApiFlags) => {
      const target = methodAndPath(first, second, flags.method);
      const { runApi } = await import('./api-run.js');
      await runApi(ctx, target, flags);
    });
}
