import type { Pagination } from '../../../contract/common.js';
import type { RawResponse } from '../../../client/index.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { headerLines, requestLines, statusLine } from '../../io/http-text.js';
import { jsonTextAsSent, sanitizeText } from '../../io/sanitize.js';
import { readInputFile } from '../../io/input-file.js';
import { apiPath, type ApiFlags, type ApiMethod } from './arguments.js';
import { fieldsObject, fieldsQuery, type FieldFlag, type ReadValueFile } from './fields.js';

/** One request as `topup api` sends it (each page of --paginate differs only in its `page` parameter). */
interface ApiRequest {
  method: ApiMethod;
  /** Under /api/v1, with its query. */
  path: string;
  body: { json: unknown } | { raw: string } | undefined;
  headers: Record<string, string>;
  idempotencyKey: string | undefined;
}

/** Flags that cannot go together, each refused with one sentence before anything is read or sent. */
function checkCombinations(flags: ApiFlags, fields: readonly FieldFlag[], jq: boolean): void {
  const refuse = (sentence: string) => {
    throw new UsageError(sentence);
  };
  if (flags.data !== undefined && (fields.length > 0 || flags.input !== undefined))
    refuse('--data is the whole body: it cannot be combined with -f, -F or --input.');
  if (flags.paginate && flags.input !== undefined) refuse('--paginate cannot be combined with --input.');
  if (flags.slurp && !flags.paginate) refuse('--slurp needs --paginate.');
  if (flags.slurp && jq) refuse('--slurp cannot be combined with --jq; filter each page with --jq alone.');
  if (flags.slurp && flags.include) refuse('--slurp cannot be combined with --include.');
  if (flags.silent && jq) refuse('--silent prints no body, so it cannot be combined with --jq.');
}

/** The method gh would use: the one given; else GET, or POST when a body is given (GET for --paginate, which reads). */
function methodOf(given: ApiMethod | undefined, flags: ApiFlags, fields: readonly FieldFlag[]): ApiMethod {
  if (given !== undefined) return given;
  if (flags.paginate) return 'GET';
  return fields.length > 0 || flags.input !== undefined || flags.data !== undefined ? 'POST' : 'GET';
}

/**
 * The most `--input` or one `@file` of -F may hold. The interface document sets no limit on a request body (the sandbox
 * takes 64 KiB); this one only keeps an endless input from filling memory.
 */
const MAX_INPUT_BYTES = 64 * 2 ** 20;

/** Reads `@file` of -F and `--input`; stdin once, however often `-` is named. */
function fileReader(ctx: CliContext): ReadValueFile {
  let stdin: Promise<string> | undefined;
  const limit = { maxBytes: MAX_INPUT_BYTES, what: 'a request body or field read from a file' };
  return async (path) => {
    if (path !== '-') return readInputFile(path, ctx.io.stdin, limit, ctx.signal);
    stdin ??= readInputFile('-', ctx.io.stdin, limit, ctx.signal);
    return stdin;
  };
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}.`);
  }
}

/** Everything the flags say about the request, checked; nothing is sent yet. */
async function requestOf(ctx: CliContext, target: { method?: ApiMethod; path: string }, flags: ApiFlags): Promise<ApiRequest> {
  const fields: FieldFlag[] = [
    ...(flags.rawField ?? []).map((text) => ({ kind: 'raw' as const, text })),
    ...(flags.field ?? []).map((text) => ({ kind: 'typed' as const, text })),
  ];
  checkCombinations(flags, fields, ctx.io.jq !== undefined);
  const method = methodOf(target.method, flags, fields);
  if (flags.paginate && method !== 'GET') throw new UsageError(`--paginate follows the pages of a GET; this request is a ${method}.`);
  if (method === 'GET' && flags.data !== undefined) throw new UsageError('--data cannot be sent with GET; use POST.');
  if (method === 'GET' && flags.input !== undefined)
    throw new UsageError('--input cannot be sent with GET; use -X POST, PUT, PATCH or DELETE.');
  let path = apiPath(target.path);
  const read = fileReader(ctx);
  const values = await fieldsObject(fields, read);
  let body: ApiRequest['body'];
  // As gh: fields are the query of a GET, and of a request whose body is --input; otherwise the JSON body.
  if (method === 'GET' || flags.input !== undefined) path = withQuery(path, fieldsQuery(values));
  else if (fields.length > 0) body = { json: values };
  if (flags.data !== undefined) body = { json: parseData(flags.data) };
  if (flags.input !== undefined) body = { raw: await read(flags.input) };
  // A -H name is typed text: `__proto__` must stay a name, never reach the object's prototype.
  const headers = Object.create(null) as Record<string, string>;
  let idempotencyKey: string | undefined;
  for (const header of flags.header ?? []) {
    const at = header.indexOf(':');
    const name = header.slice(0, at);
    const value = header.slice(at + 1);
    // The client sends it, and knows from it that a retry is safe. Two different keys would leave that in doubt.
    if (name === 'idempotency-key') {
      if (idempotencyKey !== undefined && idempotencyKey !== value)
        throw new UsageError('-H gives two different Idempotency-Key values; a request has one key.');
      idempotencyKey = value;
    }
    // A name given twice is sent with both values, as HTTP combines them (and gh sends both).
    else headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { method, path, body, headers, idempotencyKey };
}

function withQuery(path: string, pairs: readonly [string, string][]): string {
  if (pairs.length === 0) return path;
  const queryAt = path.indexOf('?');
  const params = new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1));
  for (const [name, value] of pairs) params.append(name, value);
  return `${queryAt === -1 ? path : path.slice(0, queryAt)}?${params.toString()}`;
}

/** The path asking for page `page`: its `page` parameter replaced. */
function onPage(path: string, page: number): string {
  const queryAt = path.indexOf('?');
  const params = new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1));
  params.set('page', String(page));
  return `${queryAt === -1 ? path : path.slice(0, queryAt)}?${params.toString()}`;
}

/** The page the path asks for, if it names one. */
function pageOf(path: string): number | undefined {
  const queryAt = path.indexOf('?');
  const page = Number(new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1)).get('page') ?? Number.NaN);
  return Number.isInteger(page) && page >= 1 ? page : undefined;
}

/** What of `data.pagination` an answer holds, kept only where it is what our sandbox sends; undefined without it. */
function paginationOf(body: unknown): Pick<Pagination, 'page' | 'has_more'> | undefined {
  const data = (body as { data?: unknown } | undefined)?.data;
  const pagination = (data as { pagination?: unknown } | undefined)?.pagination;
  if (pagination === null || typeof pagination !== 'object') return undefined;
  const { page, has_more: hasMore } = pagination as Record<string, unknown>;
  const known = typeof page === 'number' && Number.isInteger(page) && page >= 1;
  return { ...(known ? { page } : {}), has_more: hasMore === true };
}

/** Whether the list answer holds no item: each array in its data is empty. */
function emptyPage(body: unknown): boolean {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (data === null || typeof data !== 'object') return true;
  const lists = Object.values(data).filter(Array.isArray);
  return lists.every((list) => list.length === 0);
}

/**
 * `topup api`: authenticated requests through the client's `request()`, with its pacing, retries (GETs, and POSTs
 * with an Idempotency-Key) and timeout. Prints each response body (the whole envelope, pretty JSON; with --jq, jq's
 * results) on stdout whatever the status; the status decides the exit code, as the client's error classes do.
 */
export async function runApi(ctx: CliContext, target: { method?: ApiMethod; path: string }, flags: ApiFlags): Promise<void> {
  const request = await requestOf(ctx, target, flags);
  const reasons = flags.include || flags.verbose ? (await import('node:http')).STATUS_CODES : {};
  const [{ errorFromResponse }, { redactText }, { parseRetryAfter }, { RATE_LIMIT_HEADERS }] = await Promise.all([
    import('../../../client/error-from-response.js'),
    import('../../../contract/redact.js'),
    import('../../../client/retry.js'),
    import('../../../contract/rate-limits.js'),
  ]);
  const scrub = (text: string, known: readonly string[]) => redactText(text, known);
  const secrets: string[] = [];
  const clean = (text: string) => scrub(sanitizeText(text, { multiline: false }), secrets);
  const sentBody = request.body === undefined ? undefined : 'raw' in request.body ? request.body.raw : JSON.stringify(request.body.json);
  const client = await ctx.client({
    exact: true,
    watch: flags.verbose
      ? {
          onRequest: (sent) => ctx.io.warn(scrub(requestLines(sent, sentBody).join('\n'), secrets)),
          onResponse: (answer) => ctx.io.warn(`< ${statusLine(answer.status, reasons)}`),
        }
      : {},
  });
  const token = (await ctx.target()).token;
  if (token !== undefined) secrets.push(token);

  const send = (path: string) =>
    client.request({
      method: request.method,
      path,
      headers: request.headers,
      ...(request.body === undefined ? {} : 'raw' in request.body ? { rawBody: request.body.raw } : { body: request.body.json }),
      ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      signal: ctx.signal,
      throwOnError: false,
    });

  /** The headers (-i on stdout, --verbose on stderr), then the body; a status outside 2xx then ends the run. */
  const show = async (answer: RawResponse): Promise<void> => {
    if (flags.verbose) ctx.io.warn([...headerLines(answer.headers, clean).map((line) => `< ${line}`), '<'].join('\n'));
    if (flags.include) ctx.io.out(`${[statusLine(answer.status, reasons), ...headerLines(answer.headers, clean)].join('\n')}\n\n`);
    if (!flags.silent) {
      const shown = scrub(await bodyText(ctx, answer), secrets);
      if (shown !== '') ctx.io.out(shown.endsWith('\n') ? shown : `${shown}\n`);
    }
    if (!answer.ok) {
      // The wait the server asked for, as every other command's error says it (`retry_after` with --json).
      const retryAfter = parseRetryAfter(answer.headers.get(RATE_LIMIT_HEADERS.retryAfter), ctx.clock.now());
      throw errorFromResponse({ status: answer.status, body: answer.body, ...(retryAfter === undefined ? {} : { retryAfter }) }, secrets);
    }
  };

  if (!flags.paginate) return show(await send(request.path));

  const [{ PagePromise }, { MAX_ALL_CHARS, MAX_ALL_PAGES }] = await Promise.all([
    import('../../../client/index.js'),
    import('../shared/paging.js'),
  ]);
  /** Each page's text as it came: its numbers stay as written (jsonTextAsSent). */
  const slurped: string[] = [];
  let slurpedChars = 0;
  const pages = new PagePromise(
    async (number) => {
      const answer = await send(number === undefined ? request.path : onPage(request.path, number));
      return { answer, pagination: paginationOf(answer.body) as Pagination | undefined };
    },
    // Raw pages: their items are not known here (this walk stops at an empty page itself, below).
    undefined,
    pageOf(request.path),
  );
  let number = pageOf(request.path) ?? 1;
  let unpaged = false;
  // A progress line while a person watches stderr, unless pages go to the same terminal as they come, or --verbose
  // writes there itself.
  const progress = flags.verbose || (ctx.io.terminal && !flags.slurp) ? undefined : ctx.io.pagingProgress('pages');
  let fetched = 0;
  let previous: string | undefined;
  try {
    // Each page is printed once the walk has checked it (its number is the one asked for): a page out of order stops
    // the run before it reaches stdout, so a script reading the lines never handles the same records twice.
    for await (const page of pages.pages()) {
      const { answer } = page;
      fetched += 1;
      // A server that says more follow on every page would be read forever: --all's bounds (docs/scripting.md).
      if (fetched > MAX_ALL_PAGES)
        throw new CliError(
          `Stopped after ${MAX_ALL_PAGES} pages: the server says more follow on every one, and --paginate follows at most ${MAX_ALL_PAGES}; ask for a later page with ?page=N.`,
        );
      const repeated = page.pagination?.has_more === true && page.pagination.page === undefined && answer.text === previous;
      if (repeated)
        throw new CliError(
          `The server answered page ${number} as it answered the page before, and says more follow; stopped rather than read it again (it may not page with ?page=N).`,
        );
      previous = answer.text;
      if (flags.slurp && answer.ok) {
        // A page that is not JSON has nothing to gather; printing it as null would pass the run off as a success.
        if (answer.body === undefined)
          throw new CliError(`Page ${number} of the answer is not JSON, so --slurp cannot gather it into one list.`);
        slurpedChars += answer.text.length;
        if (slurpedChars > MAX_ALL_CHARS)
          throw new CliError(
            `Stopped after ${fetched - 1} pages: --slurp keeps every page to print them at once, up to ${MAX_ALL_CHARS / 2 ** 20} MiB; drop --slurp to print each page as it comes.`,
          );
        slurped.push(answer.text);
      } else await show(answer);
      number = page.pagination?.page ?? number;
      unpaged = page.pagination === undefined;
      progress?.page(number);
      if (page.pagination?.has_more === true && emptyPage(page.answer.body)) {
        progress?.stop();
        ctx.io.warn(`The server says more pages follow page ${number}, but that page is empty; stopped there.`);
        break;
      }
      number += 1;
    }
  } finally {
    progress?.stop();
  }
  if (flags.slurp) ctx.io.out(`${scrub(jsonTextAsSent(`[${slurped.join(',')}]`, 2), secrets)}\n`);
  // A server that sends no pagination cannot say whether there is more: never pass one page off as all of them.
  if (unpaged)
    ctx.io.warn("The server's answer has no pagination, so topup cannot tell whether more pages follow; no further page was fetched.");
}

/** The body as printed: pretty JSON (terminal-active characters escaped), jq's results, or text made safe. */
async function bodyText(ctx: CliContext, answer: RawResponse): Promise<string> {
  const jq = ctx.io.jq;
  if (jq === undefined) return answer.body === undefined ? sanitizeText(answer.text) : jsonTextAsSent(answer.text, 2);
  if (answer.body !== undefined) return jq.run(answer.body);
  // An error page that is not JSON: the status says what went wrong; there is nothing for jq.
  if (!answer.ok || answer.text === '') return '';
  throw new CliError('The answer is not JSON, so --jq has nothing to filter.');
}
