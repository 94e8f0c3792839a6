import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { API_METHODS, isMethod, methodAndPath, type ApiFlags, type ApiMethod } from './arguments.js';

/** `Name: value` from --header; the Authorization header belongs to the profile and is never taken from here. */
export function parseHeader(value: string, previous: string[] = []): string[] {
  const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*([\x20-\x7e]*)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('A header is `Name: value` in visible ASCII.');
  const name = match[1]!.toLowerCase();
  if (['authorization', 'host', 'content-length', 'cookie'].includes(name))
    throw new InvalidArgumentError(`The ${name} header is set by topup and cannot be given.`);
  return [...previous, `${name}:${match[2]!.trim()}`];
}

function parseMethod(value: string): ApiMethod {
  if (!isMethod(value)) throw new InvalidArgumentError(`METHOD must be one of ${API_METHODS.join(', ')}.`);
  return value.toUpperCase() as ApiMethod;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

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
The token goes only in the Authorization header. Requests keep to the published rate limits (a GET of a path
the document does not list, as a user read); GETs, and POSTs
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
      const { runApi } = await import('./run.js');
      await runApi(ctx, target, flags);
    });
}
