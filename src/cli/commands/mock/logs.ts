import { InvalidArgumentError, type Command } from 'commander';
import type { JournalEntry } from '../../../../mocks/facade/requests.js';
import type { CliContext } from '../../context.js';
import { controlSecretFromEnv } from '../../control-secret.js';
import { journalStatusProblem } from '../../../contract/sandbox-control.js';
import { parseWholeNumber } from '../shared/choices.js';
import { controlBaseUrl, controlFor } from './control.js';

export interface LogsOptions {
  follow: boolean;
  filterMethod?: string | undefined;
  filterStatus?: string | undefined;
  filterPath?: string | undefined;
  filterAccount?: string | undefined;
  limit: number;
}

/**
 * `topup mock logs`: the served sandbox's request journal, like `stripe logs tail`: one line per request on a
 * terminal, NDJSON with --json; --follow streams new requests until Ctrl-C, through restarts of the sandbox.
 */
export async function runLogs(ctx: CliContext, options: LogsOptions): Promise<void> {
  const query = new URLSearchParams();
  if (options.filterMethod) query.set('method', options.filterMethod);
  if (options.filterStatus) query.set('status', options.filterStatus);
  if (options.filterPath) query.set('path', options.filterPath);
  if (options.filterAccount) query.set('account', options.filterAccount);
  const { control } = await controlFor(ctx);
  const { logLine } = await import('../../io/log-line.js');
  // On a terminal each line fits its width (log-line.ts); piped, nothing is cut.
  const view = { ...ctx.io.view, width: ctx.io.columns };
  const show = async (entry: JournalEntry) => (ctx.globals.json ? ctx.io.writeJsonLine(entry) : ctx.io.out(`${logLine(entry, view)}\n`));
  const earlier = await control.requests(new URLSearchParams([...query, ['limit', String(options.limit)]]));
  for (const entry of earlier) await show(entry);
  if (!options.follow) return;
  const servedAt = await controlBaseUrl(ctx);
  // Followed from the last one shown; with --limit 0, from the newest the journal holds (none shown, none replayed).
  const last = earlier.at(-1)?.id ?? (options.limit === 0 ? await newestId(control) : undefined);
  // Entries arrive while --jq may still run on an earlier one: printed in order, and a failed jq ends the follow.
  const failed = new AbortController();
  const signal = ctx.signal === undefined ? failed.signal : AbortSignal.any([ctx.signal, failed.signal]);
  let printed = Promise.resolve();
  const print = (entry: JournalEntry) => {
    printed = printed.then(() => show(entry)).catch((error: unknown) => failed.abort(error));
  };
  ctx.io.notice(ctx.io.errStyle.dim("Following the sandbox's requests; press Ctrl-C to stop."));
  if (servedAt === undefined) {
    // The embedded sandbox answers other topup commands, one at a time: follow the log they leave beside its state.
    const [{ followRequestLog }, { compileFilter, filterFromQuery }] = await Promise.all([
      import('../../sandbox/request-log-follow.js'),
      import('../../../../mocks/facade/requests.js'),
    ]);
    const log = (await ctx.offlineSandbox()).requestLog;
    const matches = compileFilter(filterFromQuery(query));
    await followRequestLog({ log, afterId: last ?? 0, signal, clock: ctx.clock, onEntry: (entry) => matches(entry) && print(entry) });
    return;
  }
  const { followJournal } = await import('../../sandbox/journal-stream.js');
  // From the last one shown, or from the start when none matched: a request made while the stream connects is not lost.
  query.set('after_id', String(last ?? 0));
  await followJournal({
    baseUrl: servedAt,
    query,
    controlSecret: controlSecretFromEnv(ctx.io.env),
    signal,
    onEntry: print,
    onConnection: (state) => ctx.io.notice(ctx.io.errStyle.yellow(CONNECTION_NOTICES[state])),
  });
}

const CONNECTION_NOTICES = {
  lost: 'The sandbox went away; reconnecting…',
  back: 'Reconnected to the sandbox.',
  restarted: 'Reconnected to the sandbox, which has restarted: its requests follow from its first one.',
} as const;

/** The id of the newest request the journal holds, whatever the filters; undefined when it holds none. */
async function newestId(control: Awaited<ReturnType<typeof controlFor>>['control']): Promise<number | undefined> {
  return (await control.requests(new URLSearchParams([['limit', '1']]))).at(-1)?.id;
}

/** The journal's filters as flags, shared by `topup mock logs` and `topup mock requests list`. */
export function withLogFilters(command: Command): Command {
  return command
    .option('--filter-method <methods>', 'only these methods, e.g. GET,POST')
    .option('--filter-status <statuses>', 'only these statuses or classes, e.g. 4xx,429 (dropped: no answer)', parseStatusFilter)
    .option('--filter-path <path>', 'only this path; * matches one segment, ** any rest, e.g. /api/v1/me/orders/*')
    .option('--filter-account <name>', "only requests with this account's token (its username)")
    .option('--limit <n>', 'how many earlier requests to print first', parseWholeNumber('limit', 0, 10_000), 50);
}

/** `topup mock logs`: its filters and help. */
export function registerLogs(mock: Command, ctx: CliContext): void {
  withLogFilters(
    mock
      .command('logs')
      .description("Print the served sandbox's request log; --follow streams new requests until Ctrl-C")
      .option('-f, --follow', 'keep printing requests as they arrive (reconnects when the sandbox restarts)', false),
  )
    .addHelpText(
      'after',
      `
Requests come from the target sandbox: a served one (topup mock serve) keeps the last 1,000 (--journal-size);
the embedded one keeps the last 1,000 that topup commands sent it, in a log beside its state. While
topup mock serve serves the config folder's sandbox, that is the one shown, without --base-url.
On a terminal: one aligned line per request; --json: one JSON object per line (NDJSON).

Examples:
  $ topup mock logs
  $ topup mock logs --base-url http://127.0.0.1:4010
  $ topup mock logs --follow --filter-status 4xx,5xx --base-url http://127.0.0.1:4010
  $ topup mock logs --json --filter-path /api/v1/me/orders --filter-method POST --base-url http://127.0.0.1:4010 | jq .idempotency_key`,
    )
    .action((options: LogsOptions) => runLogs(ctx, options));
}

/** `--filter-status`: statuses, classes or `dropped`, comma-separated; a value that is none is refused, never matched. */
function parseStatusFilter(value: string): string {
  const parts = value.split(',').map((part) => part.trim());
  const problem = parts.every((part) => part === '') ? 'it names no status' : parts.map(journalStatusProblem).find((p) => p !== undefined);
  if (problem !== undefined) throw new InvalidArgumentError(`--filter-status: ${problem}.`);
  return parts.filter((part) => part !== '').join(',');
}
