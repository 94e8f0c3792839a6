// A batch's results ledger: one JSON line per event, appended and flushed to disk before the next row is sent.
import { dirname } from 'node:path';
import type { OpenFile } from '../../../open-file.js';
import { openToAppend, openToRead, openToUpdate, syncDirectory } from '../../../safe-file.js';
import { CliError, UsageError } from '../../errors.js';
import { sanitizeText } from '../../io/sanitize.js';
import { readRecords } from './batch-records.js';

/*
 * Lines, each a JSON object with `t`:
 *   batch   the first line: which batch the ledger belongs to
 *   sent    a row is about to go (key, digest of its content, time): after a crash, a row with `sent` and no `result`
 *           was in flight, and is re-sent with the same key; the times keep a resumed batch inside the rate limit
 *   result  the answer: created / existed (invoice, amount) or rejected (the error's code and message)
 *   final   --wait saw the invoice become final
 * Only what a resume needs is kept in memory (a small record per key), never the file's lines.
 */

export const LEDGER_VERSION = 1;

export type RowState = 'sent' | 'created' | 'existed' | 'rejected';

export interface LedgerRow {
  state: RowState;
  line: number;
  digest: string;
  invoiceCode?: string | undefined;
  amount?: number | undefined;
  currency?: string | undefined;
  paymentStatus?: string | undefined;
  errorCode?: string | undefined;
  errorMessage?: string | undefined;
}

export type LedgerRecord =
  | { t: 'batch'; v: number; batch: string; at: string }
  | { t: 'sent'; line: number; key: string; digest: string; at: string }
  | {
      t: 'result';
      line: number;
      key: string;
      digest: string;
      status: 'created' | 'existed' | 'rejected';
      invoice_code?: string | undefined;
      amount?: number | undefined;
      currency?: string | undefined;
      payment_status?: string | undefined;
      error?: { code?: string | undefined; status?: number | undefined; message: string } | undefined;
      sent_at: string;
      at: string;
    }
  | { t: 'final'; key: string; invoice_code: string; payment_status: string; at: string };

/** What a ledger holds, as a resume needs it. */
export class LedgerIndex {
  batch: string | undefined;
  readonly rows = new Map<string, LedgerRow>();
  /** The latest send times (epoch ms), at most `keepSendTimes`: all the pacer needs. */
  readonly sentTimes: number[] = [];
  /** Final payment statuses seen by --wait, by key. */
  readonly finals = new Map<string, string>();
  /** The last line was cut off by a crash (it is ignored, and the next append starts on a new line). */
  tornTail = false;

  constructor(private readonly keepSendTimes = 10) {}

  apply(record: LedgerRecord): void {
    if (record.t === 'batch') this.batch ??= record.batch;
    else if (record.t === 'sent') {
      const at = Date.parse(record.at);
      if (Number.isFinite(at)) {
        this.sentTimes.push(at);
        if (this.sentTimes.length > this.keepSendTimes) this.sentTimes.shift();
      }
      const known = this.rows.get(record.key);
      // A re-send of a rejected row (--retry-rejected) is in flight again; an answered row never goes back.
      if (known === undefined || known.state === 'rejected' || known.state === 'sent')
        this.rows.set(record.key, { state: 'sent', line: record.line, digest: record.digest });
    } else if (record.t === 'result') {
      this.rows.set(record.key, {
        state: record.status,
        line: record.line,
        digest: record.digest,
        invoiceCode: record.invoice_code,
        amount: record.amount,
        currency: record.currency,
        paymentStatus: record.payment_status,
        errorCode: record.error?.code,
        errorMessage: record.error?.message,
      });
    } else if (record.t === 'final') this.finals.set(record.key, record.payment_status);
  }
}

function parseRecord(text: string): LedgerRecord | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as { t?: unknown; key?: unknown; batch?: unknown };
    if (record.t === 'batch' && typeof record.batch === 'string') return value as LedgerRecord;
    if ((record.t === 'sent' || record.t === 'result' || record.t === 'final') && typeof record.key === 'string')
      return value as LedgerRecord;
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The most rows a ledger may name: twice the rows of the largest batch, room for a batch whose rows were all edited
 * once (an edited row is a new key). A ledger is input from the disk: past this its index would grow with its lines.
 */
export const MAX_LEDGER_ROWS = 200_000;

/**
 * Reads a ledger line by line; undefined when there is none yet. A damaged line other than the last is an error, and
 * so is a ledger that names more than `maxRows` rows. Stops when `signal` is aborted (Ctrl-C), with its reason.
 */
export async function readLedger(
  path: string,
  { maxRows = MAX_LEDGER_ROWS, signal }: { maxRows?: number; signal?: AbortSignal | undefined } = {},
): Promise<LedgerIndex | undefined> {
  let handle: OpenFile | undefined;
  try {
    handle = await openToRead(path, { soleName: true });
  } catch (error) {
    throw resultsFileError(path, error, 'read');
  }
  if (handle === undefined) return undefined;
  const index = new LedgerIndex();
  /** A line that is not a record: an error unless it turns out to be the last one, cut off by a crash. */
  let pendingBad: { line: number; why: string } | undefined;
  try {
    // Split as batch files are, so that a line is never buffered past MAX_LINE_BYTES, whatever the file holds.
    const chunks = handle.createReadStream({ encoding: 'utf8', autoClose: false });
    for await (const line of readRecords(chunks, 'jsonl', MAX_LINE_BYTES)) {
      signal?.throwIfAborted();
      if (pendingBad !== undefined) throw damaged(path, pendingBad);
      if (line.error !== undefined) {
        pendingBad = { line: line.line, why: `longer than a ledger record may be (${MAX_LINE_BYTES} bytes)` };
        continue;
      }
      const text = line.text ?? '';
      if (text.trim() === '') continue;
      const record = parseRecord(text);
      if (record === undefined) pendingBad = { line: line.line, why: 'not a ledger record' };
      else {
        index.apply(record);
        if (index.rows.size > maxRows || index.finals.size > maxRows) throw tooManyRows(path, maxRows);
      }
    }
    if (pendingBad !== undefined) {
      // The last line, cut off mid-write by a crash: whatever it said was never acted on as written.
      const stats = await handle.stat();
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, stats.size - 1);
      if (last[0] === 0x0a) throw damaged(path, pendingBad);
      index.tornTail = true;
    }
  } finally {
    await handle.close();
  }
  return index;
}

function tooManyRows(path: string, maxRows: number): CliError {
  return new CliError(
    `The results file ${path} names more than ${maxRows.toLocaleString('en-US')} rows, more than any batch leaves; move it, or use another --results file.`,
  );
}

function damaged(path: string, bad: { line: number; why: string }): CliError {
  return new CliError(
    `The results file ${path} is damaged at line ${bad.line} (${bad.why}); fix or move it, or use another --results file.`,
  );
}

/** The most of a server's text a ledger record keeps: a hostile server must not make the ledger unreadable. */
const MAX_SERVER_TEXT = 1024;

/** A string the server sent, cut to MAX_SERVER_TEXT characters (undefined stays undefined). */
export function serverText<T extends string | undefined>(text: T): T {
  return (text !== undefined && text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}…` : text) as T;
}

/** Appends records, each flushed to disk before append() resolves. */
export class LedgerWriter {
  private constructor(
    private readonly handle: OpenFile,
    readonly path: string,
  ) {}

  /** Opens (creating it 0600) the ledger; a new one starts with its batch line, and a torn last line is ended first. */
  static async open(path: string, batch: string, existing: LedgerIndex | undefined, now: () => number): Promise<LedgerWriter> {
    let handle: OpenFile;
    try {
      handle = await openToAppend(path);
    } catch (error) {
      throw resultsFileError(path, error, 'write');
    }
    const writer = new LedgerWriter(handle, path);
    try {
      if (existing?.tornTail === true) await cutTornTail(path);
      if (existing?.batch === undefined) {
        await writer.append({ t: 'batch', v: LEDGER_VERSION, batch, at: new Date(now()).toISOString() });
        await syncDirectory(dirname(path));
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return writer;
  }

  async append(record: LedgerRecord): Promise<void> {
    await this.handle.write(`${JSON.stringify(record)}\n`);
    await this.handle.datasync();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The most a ledger line may hold; a torn line is looked for within this many bytes of the end. */
const MAX_LINE_BYTES = 1024 * 1024;

/** Cuts a last line that a crash left half-written, so that the next record starts a line of its own. */
async function cutTornTail(path: string): Promise<void> {
  const handle = await openToUpdate(path);
  if (handle === undefined) return;
  try {
    const { size } = await handle.stat();
    const from = Math.max(0, size - MAX_LINE_BYTES);
    const tail = Buffer.alloc(size - from);
    await handle.read(tail, 0, tail.length, from);
    const lastNewline = tail.lastIndexOf(0x0a);
    if (lastNewline === -1 && from > 0) throw new CliError(`The results file ${path} ends with a line too long to be a ledger record.`);
    await handle.truncate(from + lastNewline + 1);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Why the results file (or its lock beside it) could not be opened, when its folder is the reason, in one sentence with
 * what to do: missing, not writable, or the name too long. Undefined for any other refusal (a link, a folder at its
 * name), which speaks for itself. Nothing was sent yet.
 */
export function resultsFolderError(path: string, error: unknown, verb: 'read' | 'write'): UsageError | undefined {
  const shown = sanitizeText(path, { multiline: false });
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new UsageError(
        `The folder of the results file ${shown} does not exist; create it, or choose another file with --results FILE.`,
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new UsageError(
        `The results file ${shown} cannot be ${verb === 'read' ? 'read' : 'written'} there (permission denied); choose another place with --results FILE.`,
      );
    case 'ENAMETOOLONG':
      return new UsageError(`The name of the results file ${shown} is too long; choose a shorter one with --results FILE or --batch NAME.`);
    default:
      return undefined;
  }
}

/** The results file could not be opened to `verb`: its folder's trouble (resultsFolderError), or the refusal as said. */
function resultsFileError(path: string, error: unknown, verb: 'read' | 'write'): Error {
  return resultsFolderError(path, error, verb) ?? new CliError(`Cannot ${verb} the results file ${path}: ${(error as Error).message}`);
}
