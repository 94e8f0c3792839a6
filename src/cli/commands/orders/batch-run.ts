// `topup orders batch`'s run, loaded only when the command runs (its flags and help in ./batch.ts stay on the eager path).
import { basename, dirname, join } from 'node:path';
import type { BatchOutcome, BatchStop, TopupClient } from '../../../client/index.js';
import type { CliContext } from '../../context.js';
import { CliError, RejectedError, UsageError } from '../../errors.js';
import { amountText, clockText } from '../../io/format.js';
import { errorEnvelope } from '../../io/error-envelope.js';
import { messageText, sanitizeText } from '../../io/sanitize.js';
import { renderFields } from '../../io/table.js';
import { DEFAULT_WAIT_TIMEOUT_SECONDS } from '../shared/choices.js';
import { spendsRealBalance } from './create-run.js';
import { isCountable } from '../../../client/batch.js';
import { LedgerIndex, LedgerWriter, readLedger, serverText, type LedgerRecord, type LedgerRow } from './batch-ledger.js';
import { lockLedger } from './batch-lock.js';
import { checkedAs, keyedRows, planBatch, type BatchPlan, type KeyedOrder } from './batch-plan.js';
import { startProgress, type ProgressMode } from './batch-progress.js';
import type { BatchFormat } from './batch-records.js';
import { formatOf, isStreamedInput, openBatchSource, type BatchSource } from './batch-source.js';
import { waitForInvoices, type PendingInvoice } from './batch-wait.js';
import { endedUnpaid } from '../invoices/wait.js';

export interface BatchFlags {
  format?: BatchFormat | undefined;
  batch?: string | undefined;
  results?: string | undefined;
  dryRun?: boolean | undefined;
  retryRejected?: boolean | undefined;
  chatUserId?: string | undefined;
  maxTotal?: number | undefined;
  yes?: boolean | undefined;
  wait?: boolean | undefined;
  timeout?: number | undefined;
  progress?: ProgressMode | undefined;
}

/**
 * The ledger's default name: beside the input file, or in the current folder for stdin and other streams (a pipe's
 * name, /dev/fd/63, has no folder a ledger could stay in).
 */
export function defaultLedgerPath(file: string, batch: string, streamed: boolean = file === '-'): string {
  if (streamed) return `${batch.replace(/[^A-Za-z0-9._-]+/g, '_')}.results.jsonl`;
  return join(dirname(file), `${basename(file)}.results.jsonl`);
}

/** One row's result as printed: a JSON line with --json, a tab-separated line piped. */
interface RowReport {
  line: number;
  key: string;
  status: 'created' | 'existed' | 'rejected' | 'would-send';
  /** Answered in an earlier run (from the ledger), not in this one. */
  earlier: boolean;
  invoice_code?: string | undefined;
  amount?: number | undefined;
  currency?: string | undefined;
  payment_status?: string | undefined;
  error?: { code?: string | undefined; message: string } | undefined;
  /** The row repeats an earlier row of the file (the same client_reference and order): one order for both. */
  same_as_line?: number | undefined;
}

/** Counts for the summary, over every row of the file (this run's and the ledger's). */
class Tally {
  /** Rows that repeat an earlier row's order (counted once, in its status). */
  repeats = 0;
  created = 0;
  existed = 0;
  rejected = 0;
  sentThisRun = 0;
  readonly rejectedByCode = new Map<string, number>();
  readonly totals = new Map<string, number>();
  readonly rejectedRows: string[] = [];

  add(report: RowReport): void {
    if (report.same_as_line !== undefined) {
      this.repeats += 1;
      return;
    }
    if (report.status === 'created' || report.status === 'existed') {
      this[report.status] += 1;
      if (report.amount !== undefined) {
        const currency = report.currency ?? '';
        this.totals.set(currency, (this.totals.get(currency) ?? 0) + report.amount);
      }
    } else if (report.status === 'rejected') {
      this.rejected += 1;
      const code = report.error?.code ?? 'ERROR';
      this.rejectedByCode.set(code, (this.rejectedByCode.get(code) ?? 0) + 1);
      if (this.rejectedRows.length < 20) this.rejectedRows.push(`line ${report.line}: ${code} ${report.error?.message ?? ''}`.trim());
    }
  }
}

function reportOf(line: number, key: string, row: LedgerRow, earlier: boolean): RowReport {
  if (row.state === 'rejected')
    return { line, key, status: 'rejected', earlier, error: { code: row.errorCode, message: row.errorMessage ?? '' } };
  return {
    line,
    key,
    status: row.state === 'existed' ? 'existed' : 'created',
    earlier,
    invoice_code: row.invoiceCode,
    amount: row.amount,
    currency: row.currency,
    payment_status: row.paymentStatus,
  };
}

/**
 * A row's result as a piped line: line, status, key, invoice or error code, and who answered it: `this-run`,
 * `earlier-run` (the results file held it), or `same-as-line-N` (it repeats row N's order, ordered once).
 */
function rowLine(report: RowReport): string {
  const answered = report.same_as_line !== undefined ? `same-as-line-${report.same_as_line}` : report.earlier ? 'earlier-run' : 'this-run';
  return `${report.line}\t${report.status}\t${report.key}\t${report.invoice_code ?? report.error?.code ?? '-'}\t${answered}\n`;
}

function recordOf(outcome: BatchOutcome, digest: string, now: number): LedgerRecord {
  const base = { t: 'result' as const, line: outcome.line ?? 0, key: outcome.key, digest, sent_at: new Date(outcome.sentAt).toISOString() };
  if (outcome.status === 'rejected')
    return {
      ...base,
      status: 'rejected',
      error: { code: serverText(outcome.error.code), status: outcome.error.status, message: serverText(outcome.error.message) },
      at: new Date(now).toISOString(),
    };
  return {
    ...base,
    status: outcome.status,
    invoice_code: serverText(outcome.invoiceCode),
    amount: outcome.amount,
    currency: serverText(outcome.currency),
    payment_status: serverText(outcome.paymentStatus),
    at: new Date(now).toISOString(),
  };
}

/** The command again, for resuming: the same words, shell-quoted, without --dry-run. */
export function resumeCommand(argv: readonly string[]): string {
  const quote = (word: string) => (/^[A-Za-z0-9_\-.,/:=@+%]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return ['topup', ...argv.filter((word) => word !== '--dry-run')].map(quote).join(' ');
}

export async function runBatch(ctx: CliContext, file: string, flags: BatchFlags): Promise<void> {
  const streamed = await isStreamedInput(file);
  if (streamed && flags.batch === undefined)
    throw new UsageError(
      file === '-'
        ? 'Reading stdin, name the batch with --batch NAME: the name keeps its keys the same on every run.'
        : `${sanitizeText(file, { multiline: false })} can be read only once (it is no regular file): name the batch with --batch NAME, which keeps its keys the same on every run.`,
    );
  const format = formatOf(file, flags.format);
  const batch = flags.batch ?? basename(file);
  const ledgerPath = flags.results ?? defaultLedgerPath(file, batch, streamed);
  const source = await openBatchSource(file, format, ctx.io.stdin, streamed, ctx.signal);
  try {
    if (flags.dryRun) return await dryRun(ctx, source, batch, ledgerPath, flags);
    const release = await lockLedger(ledgerPath, ctx.processes);
    try {
      await sendBatch(ctx, source, batch, ledgerPath, flags);
    } finally {
      await release();
    }
  } finally {
    await source.cleanup();
  }
}

async function checkedPlan(
  ctx: CliContext,
  source: BatchSource,
  batch: string,
  ledgerPath: string,
  flags: BatchFlags,
): Promise<{ plan: BatchPlan; ledger: LedgerIndex | undefined }> {
  const ledger = await readLedger(ledgerPath, { signal: ctx.signal });
  if (ledger?.batch !== undefined && ledger.batch !== batch)
    throw new UsageError(
      `The results file ${ledgerPath} belongs to batch ${JSON.stringify(ledger.batch)}, not ${JSON.stringify(batch)}: use that --batch, or another --results file.`,
    );
  const plan = await planBatch(source, batch, ledger, { retryRejected: flags.retryRejected === true });
  if (plan.faultCount > 0) {
    const more = plan.faultCount - plan.faults.length;
    ctx.io.warn([...plan.faults.map((f) => sanitizeText(f, { multiline: false })), ...(more > 0 ? [`… and ${more} more`] : [])].join('\n'));
    throw new UsageError(
      `${plan.faultCount} fault${plan.faultCount === 1 ? '' : 's'} in ${source.name === '-' ? 'stdin' : source.name}; nothing was sent.`,
    );
  }
  if (plan.rows === 0) throw new UsageError(`${source.name === '-' ? 'stdin' : source.name} has no rows.`);
  return { plan, ledger };
}

async function dryRun(ctx: CliContext, source: BatchSource, batch: string, ledgerPath: string, flags: BatchFlags): Promise<void> {
  const { plan, ledger } = await checkedPlan(ctx, source, batch, ledgerPath, flags);
  // As a real run would: a cap that cannot be kept is refused, and one the earlier runs reached sends nothing.
  const { totalBefore } = cappedBefore(ledger ?? new LedgerIndex(), ledgerPath, flags.maxTotal);
  const capReached = flags.maxTotal !== undefined && plan.toSend > 0 && totalBefore >= flags.maxTotal;
  const unsent = capReached ? 'held' : 'would-send';
  for await (const row of keyedRows(source, batch)) {
    if (row.body === undefined) continue;
    const known = ledger?.rows.get(row.key);
    const answered = known !== undefined && known.state !== 'sent' && !(known.state === 'rejected' && flags.retryRejected);
    if (ctx.globals.json) {
      await ctx.io.writeJsonLine(
        answered
          ? reportOf(row.line, row.key, known, true)
          : { line: row.line, key: row.key, status: unsent, in_flight_before: known?.state === 'sent', body: row.body },
      );
    } else if (!answered) ctx.io.out(`${row.line}\t${unsent}\t${row.key}\t${JSON.stringify(row.body)}\n`);
    else ctx.io.out(rowLine(reportOf(row.line, row.key, known, true)));
  }
  const sending = capReached
    ? `would send none of ${plan.toSend} (the orders it made before add up to ${totalBefore}, already at --max-total ${flags.maxTotal})`
    : `would send ${flags.maxTotal === undefined ? '' : 'up to '}${plan.toSend}` +
      `${plan.inFlight > 0 ? ` (${plan.inFlight} in flight when the last run stopped, with their keys)` : ''}` +
      `${flags.maxTotal === undefined ? '' : `, stopping once its orders add up to --max-total ${flags.maxTotal}${totalBefore > 0 ? ` (${totalBefore} made before)` : ''}`}`;
  ctx.io.notice(
    `Dry run of ${plan.rows} valid row${plan.rows === 1 ? '' : 's'}: ${sending}, ` +
      `${plan.answered} answered before${plan.rejectedBefore > 0 ? `, ${plan.rejectedBefore} rejected before (--retry-rejected sends them)` : ''}. Nothing was sent.`,
  );
}

async function confirmLive(ctx: CliContext, plan: BatchPlan, flags: BatchFlags): Promise<void> {
  if (plan.balanceRows === 0 || flags.yes || !(await spendsRealBalance(ctx))) return;
  if (!ctx.io.canPrompt())
    throw new UsageError(
      `${plan.balanceRows} row${plan.balanceRows === 1 ? ' pays' : 's pay'} by balance with a production token, which spends real money: add --yes to confirm (there is no terminal to ask on).`,
    );
  const balance = await (await ctx.client()).balance.get({ signal: ctx.signal }).then(
    (b) => amountText(b.balance, b.formatted_balance, true, b.currency),
    () => undefined,
  );
  const fields: [string, string][] = [
    ['mode', ctx.io.errStyle.red(ctx.io.errStyle.bold('LIVE: pays from the real balance of a production account'))],
    ['rows to send', String(plan.toSend)],
    ['paid by balance', String(plan.balanceRows)],
    ['amount', 'computed by the server for each order; taken from the balance at once'],
    ['balance now', balance ?? 'unknown (it could not be read)'],
    ...(flags.maxTotal === undefined ? [] : [['stops at', `a total of ${flags.maxTotal} (--max-total)`] as [string, string]]),
  ];
  ctx.io.warn(`\n${renderFields(fields, await ctx.io.stderrFieldsView())}`);
  const prompter = await ctx.prompter();
  if (
    !(await prompter.confirm({
      message: `Spend real balance on ${plan.balanceRows} order${plan.balanceRows === 1 ? '' : 's'}?`,
      default: false,
    }))
  )
    throw new CliError('Cancelled; nothing was ordered.');
}

function progressMode(ctx: CliContext, flags: BatchFlags): ProgressMode {
  if (ctx.globals.json || !ctx.io.stderrTerminal) return 'off';
  return flags.progress ?? (ctx.io.env.TERM === 'dumb' || ctx.io.accessible ? 'lines' : 'bar');
}

async function sendBatch(ctx: CliContext, source: BatchSource, batch: string, ledgerPath: string, flags: BatchFlags): Promise<void> {
  const { plan, ledger: found } = await checkedPlan(ctx, source, batch, ledgerPath, flags);
  const ledger = found ?? new LedgerIndex();
  // Refused before the prompt: a cap that cannot be kept is said before anyone confirms spending under it.
  const { totalBefore, currencyBefore } = cappedBefore(ledger, ledgerPath, flags.maxTotal);
  await confirmLive(ctx, plan, flags);
  // A reader of its output that goes away (`| head`) stops the batch after the row in flight, as Ctrl-C does.
  ctx.io.streams.interruptWhenStdoutCloses?.();
  const client = await ctx.client();
  const spec = ctx.targetSpec();
  const clock = ctx.clock;
  const writer = await LedgerWriter.open(ledgerPath, batch, found, clock.now);
  const tally = new Tally();
  const progress = startProgress(ctx.io.stderr, progressMode(ctx, flags));
  const paced = spec.kind === 'remote';
  const startedAt = clock.now();
  let left = plan.toSend + plan.answered + plan.rejectedBefore;
  let current: string | undefined;
  const showProgress = () => {
    const perRow = tally.sentThisRun > 0 ? (clock.now() - startedAt) / tally.sentThisRun : 0;
    progress.update({
      done: tally.created + tally.existed,
      failed: tally.rejected,
      left,
      current,
      etaMs: left * Math.max(perRow, paced ? 6_000 : 0) || undefined,
    });
  };

  const digests = new Map<string, string>();
  /** The first line of each key reported in this run: a later row with the same key is the same order, reported again. */
  const reported = new Map<string, number>();
  const emit = async (report: RowReport) => {
    const first = reported.get(report.key);
    if (first === undefined) reported.set(report.key, report.line);
    const shown = first === undefined ? report : { ...report, same_as_line: first };
    tally.add(shown);
    if (first === undefined) left -= 1;
    if (ctx.globals.json) await ctx.io.writeJsonLine(shown);
    else if (!ctx.io.terminal) ctx.io.out(rowLine(shown));
    showProgress();
  };

  /** The rows to send; rows the ledger has answered (in an earlier run, or earlier in the file) are reported, never sent. */
  async function* toSend(): AsyncGenerator<{ body: KeyedOrder['body']; key: string; line: number }> {
    let rows = 0;
    for await (const row of keyedRows(source, batch)) {
      // The file is read again to send it: a row that is not what was checked stops the batch before it is sent.
      if (row.body === undefined || plan.checked.get(row.line) !== checkedAs(row)) throw changedSince(source.name, row.line);
      rows += 1;
      const known = ledger.rows.get(row.key);
      const answered = known !== undefined && known.state !== 'sent' && !(known.state === 'rejected' && flags.retryRejected);
      if (answered || reported.has(row.key)) {
        await emit(reportOf(row.line, row.key, known!, !sentNow.has(row.key)));
        continue;
      }
      digests.set(row.key, row.digest);
      current = `sending line ${row.line} (${row.body.platform_username})`;
      showProgress();
      yield { body: row.body, key: row.key, line: row.line };
    }
    if (rows !== plan.rows) throw changedSince(source.name, undefined);
  }

  const sentNow = new Set<string>();
  // A row this results file never sent that the server already holds was ordered by a run that wrote another one:
  // the same batch name (by default the file's name) in another folder, or a results file moved away.
  const knownBefore = new Set(ledger.rows.keys());
  let orderedElsewhere = 0;
  try {
    let stopped: BatchStop | undefined;
    try {
      const result = await client.orders.createMany(toSend(), {
        chatUserId: flags.chatUserId ?? (spec.kind === 'remote' ? spec.chatUserId : undefined),
        signal: ctx.signal,
        sentBefore: ledger.sentTimes,
        maxTotal: flags.maxTotal,
        totalBefore,
        currencyBefore,
        // The pause for the limit is said in the progress line, not as a line of its own across the bar.
        onWait: (ms) => {
          current = `waiting ${Math.ceil(ms / 1000)} s for the rate limit`;
          showProgress();
        },
        onSending: async (row, sentAt) => {
          const record: LedgerRecord = {
            t: 'sent',
            line: row.line ?? 0,
            key: row.key,
            digest: digests.get(row.key)!,
            at: new Date(sentAt).toISOString(),
          };
          await writer.append(record);
          ledger.apply(record);
        },
        onOutcome: async (outcome) => {
          const record = recordOf(outcome, digests.get(outcome.key)!, clock.now());
          digests.delete(outcome.key);
          await writer.append(record);
          ledger.apply(record);
          sentNow.add(outcome.key);
          if (outcome.status === 'existed' && !knownBefore.has(outcome.key)) orderedElsewhere += 1;
          tally.sentThisRun += 1;
          current = `line ${outcome.line ?? '?'} ${outcome.status}`;
          await emit(reportOf(outcome.line ?? 0, outcome.key, ledger.rows.get(outcome.key)!, false));
        },
      });
      stopped = result.stopped;
    } finally {
      progress.clear();
    }
    await printSummary(ctx, tally, left, ledgerPath, plan);
    if (orderedElsewhere > 0) ctx.io.warn(orderedElsewhereWarning(orderedElsewhere, batch));
    if (stopped !== undefined) await stop(ctx, stopped, left);
    if (flags.wait) await waitForAll(ctx, client, ledger, writer, flags);
  } finally {
    await writer.close();
  }
  if (tally.rejected > 0)
    throw new RejectedError(`${tally.rejected} of ${plan.rows} rows were rejected; their reasons are in ${ledgerPath}.`);
}

/**
 * What the batch's earlier runs created, for --max-total: their amounts added up, and their currency. A cap is kept
 * or refused before anything is sent: an earlier order the ledger holds no countable amount for, or orders in two
 * currencies, could not be added up.
 */
function cappedBefore(
  ledger: LedgerIndex,
  ledgerPath: string,
  maxTotal: number | undefined,
): { totalBefore: number; currencyBefore: string | undefined } {
  let totalBefore = 0;
  const currencies = new Set<string>();
  let uncounted = 0;
  for (const row of ledger.rows.values()) {
    if (row.state !== 'created' && row.state !== 'existed') continue;
    if (isCountable(row.amount) && row.currency !== undefined) totalBefore += row.amount;
    else uncounted += 1;
    if (row.currency !== undefined) currencies.add(row.currency);
  }
  if (maxTotal !== undefined && (uncounted > 0 || currencies.size > 1)) {
    const why =
      uncounted > 0
        ? `${uncounted === 1 ? 'an order' : `${uncounted} orders`} it made before ${uncounted === 1 ? 'has' : 'have'} no amount and currency it can count in ${ledgerPath}`
        : `the orders it made before are in more than one currency (${[...currencies].map((c) => sanitizeText(c, { multiline: false })).join(', ')})`;
    throw new CliError(`--max-total cannot be kept for this batch: ${why}; run it without --max-total (nothing was sent).`);
  }
  return { totalBefore, currencyBefore: currencies.size === 1 ? [...currencies][0] : undefined };
}

/** An amount as it came, for a sentence: a value that is not a number is shown as JSON, cut short. */
function shownValue(value: unknown): string {
  if (value === undefined) return 'missing';
  // JSON.stringify gives undefined only for a function or a symbol, which parsed JSON never holds.
  const text = JSON.stringify(value) ?? typeof value;
  return sanitizeText(text.length > 40 ? `${text.slice(0, 39)}…` : text, { multiline: false });
}

/** The input changed between its check and its sending (`line`: the first row found changed; undefined: rows went missing). */
function changedSince(name: string, line: number | undefined): CliError {
  const file = name === '-' ? 'stdin' : sanitizeText(name, { multiline: false });
  return new CliError(
    `${file} changed while the batch ran${line === undefined ? ' (rows are missing)' : ` (line ${line} is not the row that was checked)`}; the batch stopped, and no changed row was sent. Run the same command again to check the file and send the rest.`,
  );
}

/** Said even with --json: the user may believe these rows were ordered now. */
function orderedElsewhereWarning(rows: number, batch: string): string {
  const these = rows === 1 ? '1 row was' : `${rows} rows were`;
  return `${these} already ordered under the batch name ${JSON.stringify(sanitizeText(batch, { multiline: false }))} by a run whose results are not in this file, and ${rows === 1 ? 'was' : 'were'} not ordered again. To order ${rows === 1 ? 'it' : 'them'} anew, name this batch: --batch NAME.`;
}

async function stop(ctx: CliContext, stopped: BatchStop, left: number): Promise<never> {
  const resume = resumeCommand(ctx.argv);
  const notSent = `${left} row${left === 1 ? '' : 's'} not sent`;
  if (stopped.reason === 'interrupted') {
    const outputClosed = (ctx.signal?.reason as { signal?: string } | undefined)?.signal === 'SIGPIPE';
    const said = `${outputClosed ? 'Its output was closed: stopped' : 'Stopped'} after the row in flight; ${notSent}.`;
    // An interrupted run prints no error; with --json this is the one line on stderr, JSON as every other there.
    if (ctx.globals.json)
      ctx.io.warn(errorEnvelope({ message: said, kind: 'interrupted', resume: { command: resume, rowsNotSent: left } }).trimEnd());
    else ctx.io.warn(`${said} Resume with:\n  ${resume}`);
    throw ctx.signal?.reason ?? new CliError('Interrupted.');
  }
  // Every row this command sends carries its key: a stop for want of one would be a defect here, shown as it is.
  if (stopped.reason === 'unkeyed') throw stopped.error;
  if (stopped.reason === 'uncounted') {
    const line = stopped.line === undefined ? 'A row' : `Line ${stopped.line}`;
    const why =
      stopped.cause === 'amount'
        ? `its answer gives no amount --max-total can count (amount: ${shownValue(stopped.amount)})`
        : stopped.currency === undefined || stopped.counted === undefined
          ? 'its answer names no currency, so --max-total cannot add it up'
          : `it is in ${sanitizeText(stopped.currency, { multiline: false })} and the batch's orders before it in ${sanitizeText(stopped.counted, { multiline: false })}, and --max-total adds up one currency`;
    const rest =
      left === 0
        ? 'it was the last row, so every row was sent, but the cap could not be checked: see the orders in the results file'
        : `so the batch stopped, with ${left} row${left === 1 ? '' : 's'} not sent: check the orders in the results file, then run the same command without --max-total to send the rest`;
    throw new RejectedError(`${line}'s order was made, but ${why}; ${rest}.`);
  }
  if (stopped.reason === 'max-total') {
    throw new RejectedError(
      `The batch's orders reached --max-total (a total of ${stopped.total}); ${left} row${left === 1 ? '' : 's'} not sent: raise --max-total and run the same command to send them.`,
    );
  }
  const error = stopped.error as { idempotencyKey?: string; resume?: { command: string; rowsNotSent: number } };
  // With --json the error's envelope carries the resume command; else it is said before the error.
  if (ctx.globals.json && typeof error === 'object' && error !== null) error.resume = { command: resume, rowsNotSent: left };
  else
    ctx.io.warn(
      `The batch stopped at line ${stopped.line ?? '?'} (key ${stopped.key}), which may or may not have been ordered: nothing more could succeed. Run the same command to resume; that row is sent again with its key:\n  ${resume}`,
    );
  // The resume command is the way back here, not --idempotency-key (an `orders create` flag).
  if (typeof error === 'object' && error !== null) delete error.idempotencyKey;
  throw stopped.error;
}

async function printSummary(ctx: CliContext, tally: Tally, left: number, ledgerPath: string, plan: BatchPlan): Promise<void> {
  const terminal = ctx.io.stderrTerminal;
  const byCode = [...tally.rejectedByCode].map(([code, n]) => `${code} ${n}`).join(', ');
  const totals = [...tally.totals].map(
    ([currency, sum]) => amountText(sum, undefined, terminal, currency || undefined) + (terminal ? '' : ` ${currency}`),
  );
  const fields: [string, string][] = [
    ['created', String(tally.created)],
    ['already existed', String(tally.existed)],
    ['rejected', `${tally.rejected}${byCode === '' ? '' : ` (${byCode})`}`],
    ...(tally.repeats > 0
      ? [['repeated rows', `${tally.repeats} (the same order as an earlier row; not ordered again)`] as [string, string]]
      : []),
    ...(left > 0 ? [['not sent', String(left)] as [string, string]] : []),
    ['total', totals.length === 0 ? '-' : totals.join(', ')],
    ['sent in this run', String(tally.sentThisRun)],
    ['results', ledgerPath],
  ];
  if (terminal) {
    ctx.io.notice(`\nBatch of ${plan.rows} row${plan.rows === 1 ? '' : 's'}:\n${renderFields(fields, await ctx.io.stderrFieldsView())}`);
    for (const row of tally.rejectedRows) ctx.io.notice(sanitizeText(row, { multiline: false }));
  } else ctx.io.notice(fields.map(([name, value]) => `${name}: ${value}`).join('; '));
}

async function waitForAll(
  ctx: CliContext,
  client: TopupClient,
  ledger: LedgerIndex,
  writer: LedgerWriter,
  flags: BatchFlags,
): Promise<void> {
  const pending: PendingInvoice[] = [];
  for (const [key, row] of ledger.rows)
    if ((row.state === 'created' || row.state === 'existed') && row.invoiceCode !== undefined && !ledger.finals.has(key))
      pending.push({ key, invoiceCode: row.invoiceCode, line: row.line });
  if (pending.length === 0) return;
  ctx.io.notice(`Waiting for ${pending.length} invoice${pending.length === 1 ? '' : 's'} to become final…`);
  await waitForInvoices(client, pending, {
    clock: ctx.clock,
    timeoutMs: (flags.timeout ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000,
    signal: ctx.signal,
    onFinal: async (invoice, paymentStatus) => {
      await writer.append({
        t: 'final',
        key: invoice.key,
        invoice_code: serverText(invoice.invoiceCode),
        payment_status: serverText(paymentStatus),
        at: new Date(ctx.clock.now()).toISOString(),
      });
      ledger.finals.set(invoice.key, paymentStatus);
      if (ctx.globals.json) await ctx.io.writeJsonLine({ key: invoice.key, invoice_code: invoice.invoiceCode, final: paymentStatus });
      else if (!ctx.io.terminal) ctx.io.out(`${invoice.line}\tfinal\t${invoice.key}\t${invoice.invoiceCode}\t${paymentStatus}\n`);
    },
    onPollError: (invoice, error) =>
      ctx.io.warn(
        `Could not check ${sanitizeText(invoice.invoiceCode, { multiline: false })} at ${clockText(ctx.clock.now(), ctx.io.view)}: ${messageText(error.message, { multiline: false }).replace(/\.?$/, '.')} It will be checked again.`,
      ),
  });
  const counts = new Map<string, number>();
  for (const status of ledger.finals.values()) counts.set(status, (counts.get(status) ?? 0) + 1);
  ctx.io.notice(`Final: ${[...counts].map(([status, n]) => `${status} ${n}`).join(', ')}.`);
  // As `invoices status --wait`: a wait whose invoices ended unpaid (expired, failed, …) is exit 5.
  const unpaid = [...counts].filter(([status]) => endedUnpaid(status));
  const unpaidCount = unpaid.reduce((sum, [, n]) => sum + n, 0);
  if (unpaidCount > 0)
    throw new RejectedError(
      `${unpaidCount} of ${ledger.finals.size} invoice${ledger.finals.size === 1 ? '' : 's'} ended unpaid (${unpaid.map(([status, n]) => `${sanitizeText(status, { multiline: false })} ${n}`).join(', ')}); see the results file for which.`,
    );
}
