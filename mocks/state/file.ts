import { lstat, lstatExact, unlink, type OpenFile } from '../../src/open-file.js';
import { dirname } from 'node:path';
import {
  createNewFile,
  FileTooLargeError,
  openToAppend,
  PartChangedError,
  readFilePartSync,
  readIfExists,
  readSomeIfExistsSync,
  replaceFile,
  syncDirectory,
  UnsafeFileError,
} from '../../src/safe-file.js';
import { JournalDamagedError, changeLogLineText, readChangeLog, type DroppedLine } from './change-log.js';
import { MAX_STATE_FILE_BYTES, MAX_STATE_JOURNAL_BYTES, refusedBySize } from './limits.js';
import { lockStateFile } from './lock.js';
import { nodeCrypto } from '../core/builtins.js';
import { removeAnnouncement } from './announcement.js';
import { HISTORY_TABLES, isHistoryTable } from '../store/db.js';
import {
  foldHistoryMoves,
  headPart,
  historyPart,
  layoutText,
  parseHead,
  parseHistory,
  readLayout,
  sameFile,
  writeLayout,
  type StateLayout,
} from './state-layout.js';
import {
  applyChanges,
  deferHistory,
  handOver,
  isSnapshot,
  SnapshotError,
  isControlAnswer,
  type SandboxChanges,
  type SandboxSnapshot,
  type StateWriter,
} from './snapshot.js';

export { SnapshotError, JournalDamagedError };
export { lockStateFile, STATE_LOCK_WAIT_MS, StateLockedError } from './lock.js';

/**
 * Writes the snapshot whole (src/safe-file.ts: beside the target under an unguessable name, flushed, renamed over it).
 * A crash at any moment leaves either the old file or the new one, never a torn one.
 */
export async function writeStateFile(file: string, snapshot: SandboxSnapshot): Promise<number> {
  // Serialised before the first await: nothing may change what is written after this call.
  const text = JSON.stringify(snapshot);
  await replaceFile(file, text);
  return Buffer.byteLength(text);
}

/** The parsed snapshot, or undefined when the file does not exist yet. */
export async function readStateFile(file: string): Promise<unknown> {
  return readSnapshotText(file, undefined)?.value;
}

interface SnapshotRead {
  value: unknown;
  /** The file's size. */
  bytes: number;
  /** Set when only the head was read (state-layout.ts): the layout it was read by, for the history later. */
  headOnly: StateLayout | undefined;
}

/**
 * The state file parsed: whole, or only its head when `layout` describes this very file (and the head parses as a
 * snapshot's); a head that does not is read again, whole.
 */
function readSnapshotText(file: string, layout: StateLayout | undefined): SnapshotRead | undefined {
  let read;
  try {
    // Its only name: a hard link could be a second sandbox's state file under another name (and lock). Read in one
    // call: the promise API reads a file in 512 KiB pieces, each a trip through libuv's thread pool (about 5 ms more
    // at 10k orders, 25 ms at 100k).
    read = readSomeIfExistsSync(file, { soleName: true, maxBytes: MAX_STATE_FILE_BYTES }, (stats) => headPart(layout, stats));
  } catch (error) {
    // A layout whose head runs past the file's end is no layout of this file.
    if (error instanceof PartChangedError && layout !== undefined) return readSnapshotText(file, undefined);
    if (error instanceof UnsafeFileError) throw SnapshotError.ofUnsafeFile(error);
    if (error instanceof FileTooLargeError) throw refusedBySize('state file', error, 'that node can parse as one text');
    throw new SnapshotError(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  if (read === undefined) return undefined;
  const bytes = Number(read.stats.size);
  if (read.part !== undefined) {
    const head = parseHead(read.bytes);
    if (isSnapshot(head)) {
      for (const name of HISTORY_TABLES) head.tables[name] = [];
      return { value: head, bytes, headOnly: layout };
    }
    return readSnapshotText(file, undefined);
  }
  try {
    return { value: JSON.parse(read.bytes.toString('utf8')), bytes, headOnly: undefined };
  } catch {
    throw new SnapshotError(`The state file ${file} is not valid JSON.`);
  }
}

/**
 * The state file is no longer the one a head-only open read (something that takes no lock replaced or changed it, or
 * only its times): its history cannot be read to go with that head. Nothing is wrong with the file; opening it anew
 * reads it whole (mocks/assembly/persistent-sandbox.ts does).
 */
export class StateChangedError extends SnapshotError {
  override name = 'StateChangedError';
}

/**
 * Reads the history a head-only open left out (see readSnapshotText), with the journal's changes to it applied: from
 * the file as it was opened, or StateChangedError when it is another file now.
 */
function historyReader(file: string, layout: StateLayout, base: SandboxSnapshot, entries: readonly SandboxChanges[]) {
  return (): SandboxSnapshot['tables'] => {
    let bytes;
    try {
      bytes = readFilePartSync(
        file,
        { soleName: true, maxBytes: MAX_STATE_FILE_BYTES, expected: (stats) => sameFile(layout, stats) },
        historyPart(layout),
      );
    } catch (error) {
      if (error instanceof UnsafeFileError) throw SnapshotError.ofUnsafeFile(error);
      if (error instanceof PartChangedError)
        throw new StateChangedError(`The state file ${file} was changed by something other than topup while it was in use.`);
      throw new SnapshotError(`Cannot read the state file ${file}: ${(error as Error).message}`);
    }
    const history = parseHistory(bytes);
    if (history === undefined) throw new SnapshotError(`The state file ${file} is not valid JSON.`);
    const tables = { ...base.tables };
    for (const name of HISTORY_TABLES) tables[name] = history[name] as unknown[];
    return applyChanges({ ...base, tables }, entries).tables;
  };
}

/**
 * A state file as a sandbox keeps it: a snapshot (FILE, replaced atomically) plus a journal beside it
 * (FILE.journal) to which every commit appends one line of what it changed, flushed to disk before the commit's
 * request is answered. Rewriting the whole state per order cost ~0.5 s at 100k orders; a line costs one small
 * write. When the journal outgrows the snapshot, the next commit writes a new snapshot with a new journal id and
 * empties the journal; lines of another id (left by a crash in between) are never applied.
 */
export interface StateFile {
  /** What opening left out or set aside, one sentence each (a torn last line, --repair's drops); empty when nothing. */
  readonly notices: readonly string[];
  /**
   * The state to start from: the snapshot with its journal applied; undefined for a new (or `fresh`) file.
   * Handed over once and then forgotten, so that it does not stay in memory beside the sandbox's own copy.
   */
  takeSnapshot(): SandboxSnapshot | undefined;
  /** Give it to createSandbox({ stateWriter }). */
  readonly writer: StateWriter;
  /** Closes the journal and releases the lock. */
  close(): Promise<void>;
  /**
   * Closes the journal and releases the lock like `close()`, remembering the files as this process left them (their
   * inode, size and times, taken under the lock). `resume` takes the lock again and, when neither the snapshot nor the
   * journal changed since (no other process wrote them), hands back the file held again, with the same writer: the
   * state this process holds is what the files hold, and need not be read and checked again. Otherwise it lets go
   * and answers undefined: open the file anew. After a failed write it always answers undefined.
   */
  suspend(): Promise<SuspendedStateFile>;
}

export interface SuspendedStateFile {
  resume(options?: { waitMs?: number }): Promise<StateFile | undefined>;
}

export interface OpenStateFileOptions {
  /** How long to wait for another process's lock on the file. Default STATE_LOCK_WAIT_MS (15 s). */
  waitMs?: number;
  /** Start over: ignore what the file holds (it is replaced at the first commit). */
  fresh?: boolean;
  /**
   * Go on past a damaged journal: its damaged lines (or all of it, when its snapshot is missing) are left out, the
   * journal is kept as FILE.journal.bad-TIME, and the state goes on from a new snapshot. Without it, both refuse.
   */
  repair?: boolean;
  /** The journal may grow to the snapshot's size or this many bytes, whichever is more. Default 64 KiB: the offline CLI reads the whole journal at every start. */
  minJournalBytes?: number;
}

/** What only the offline CLI's embedded sandbox asks of opening (mocks/assembly/persistent-sandbox.ts). */
export interface HeadFirstOptions {
  /**
   * `later`: read only the snapshot's head when the file's layout allows it (mocks/state/state-layout.ts), and its
   * history when the sandbox first needs it. Default `now`: the whole file.
   */
  history?: 'now' | 'later';
  /**
   * How large the journal may grow against the snapshot (with `minJournalBytes` as the floor) before the next commit
   * folds it into a new one. Default 1: its size. Every open reads the journal whole, so a head-only read keeps it
   * smaller (an eighth: at 10k orders some 900 KB, about ten milliseconds to read and parse).
   */
  journalShare?: number;
}

/** A journal whose snapshot is missing: its lines cannot be replayed, and emptying it would lose them. */
export class OrphanJournalError extends SnapshotError {
  override name = 'OrphanJournalError';
}

/** The state file's folder cannot hold it: missing, or not writable (its lock and its journal are written there). */
export class StateFolderError extends SnapshotError {
  override name = 'StateFolderError';
}

/** Why the state file's lock could not be taken, as one sentence: a link at its name, or a folder it cannot be in. */
function lockRefusal(file: string, error: unknown): unknown {
  if (error instanceof UnsafeFileError) return SnapshotError.ofUnsafeFile(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new StateFolderError(
      `The folder of the state file ${file} does not exist; create it, or name a state file in a folder that does.`,
    );
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new StateFolderError(
      `Cannot write in the folder of the state file ${file} (its lock and journal go there): ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}.`,
    );
  return error;
}

/**
 * Every new invoice or transaction puts a record naming it into its commit's line, well over this many bytes. So a
 * dropped stretch of N bytes acknowledged fewer than N / this new codes, and counters moved ahead by that much never
 * hand out one of them again.
 */
const MIN_BYTES_PER_NEW_RECORD = 16;

export function openStateFile(file: string, options: OpenStateFileOptions = {}): Promise<StateFile> {
  return openStateFileHeadFirst(file, options);
}

/** openStateFile, with what the offline CLI's embedded sandbox asks of it (HeadFirstOptions). */
export async function openStateFileHeadFirst(file: string, options: OpenStateFileOptions & HeadFirstOptions): Promise<StateFile> {
  const release = await lockStateFile(file, options.waitMs === undefined ? {} : { waitMs: options.waitMs }).catch((error: unknown) => {
    throw lockRefusal(file, error);
  });
  try {
    await checkSoleName(file);
    // Its server held this lock until it died (a clean stop removes it first): an announcement still here is stale.
    await removeAnnouncement(file);
    const journalPath = `${file}.journal`;
    const repair = options.repair === true;
    const notices: string[] = [];
    // A head-only read when asked for and the file's layout describes it (state-layout.ts): never to repair it.
    const layout = options.history === 'later' && !options.fresh && !repair ? readLayout(file) : undefined;
    const read = options.fresh ? undefined : readSnapshotText(file, layout);
    if (read !== undefined && !isSnapshot(read.value))
      throw new SnapshotError(
        `Not a sandbox state file of version 1: ${file}${isControlAnswer(read.value) ? ' (it is the answer of GET /__sandbox/state, whose data is the state: save its data, as topup mock state save does)' : ''}.`,
      );
    const base = read?.value as SandboxSnapshot | undefined;
    let preserveJournal = false;
    if (base === undefined && !options.fresh) {
      const orphan = await journalBytes(journalPath);
      if (orphan > 0 && !repair)
        throw new OrphanJournalError(`The state journal ${journalPath} holds changes, but its snapshot ${file} is missing.`);
      if (orphan > 0) {
        preserveJournal = true;
        notices.push(`Started over from the seed: ${journalPath} had no snapshot to continue (${orphan} bytes kept).`);
      }
    }
    const journal =
      base?.journal_id === undefined
        ? { entries: [], validBytes: 0, fileBytes: 0, seq: 0, torn: undefined, dropped: [] as DroppedLine[] }
        : await readChangeLog(journalPath, base.journal_id, { repair });
    if (journal.torn !== undefined)
      notices.push(
        `Left out the unfinished last line (line ${journal.torn.line}, ${journal.torn.bytes} bytes) of ${journalPath}: a write cut short, never acknowledged.`,
      );
    if (journal.dropped.length > 0) {
      preserveJournal = true;
      notices.push(...journal.dropped.map((d) => droppedNotice(journalPath, d)));
    }
    const writer = new StateFileWriter(file, journalPath, {
      // A repaired journal is set aside at the first snapshot, which therefore comes at once.
      journalId: preserveJournal ? undefined : base?.journal_id,
      seq: journal.seq,
      journalBytes: journal.validBytes,
      snapshotBytes: read?.bytes,
      minJournalBytes: options.minJournalBytes ?? 64 * 1024,
      journalShare: options.journalShare ?? 1,
      preserveJournalAs: preserveJournal ? badCopyName(journalPath) : undefined,
    });
    if (preserveJournal) notices.push(`The damaged journal is kept as ${writer.preservedJournalPath}.`);
    // A torn last line was never acknowledged (a line counts once it is on disk); cut it before appending more.
    else if (journal.validBytes < journal.fileBytes) await writer.truncateJournal(journal.validBytes);
    let snapshot: SandboxSnapshot | undefined;
    if (base !== undefined && read?.headOnly !== undefined) {
      // The journal's changes to the history wait for it (their shape was checked as the journal was read): applied,
      // and the records checked with the rest of the state, when it is read.
      const { head, history } = splitChanges(journal.entries);
      const moves = history.reduce((folded, entry) => foldHistoryMoves(folded, putsOf(entry)), read.headOnly.moves);
      snapshot = deferHistory(applyChanges(base, head), historyReader(file, read.headOnly, base, history), moves);
    } else if (base !== undefined) snapshot = applyChanges(base, journal.entries);
    if (snapshot !== undefined && journal.dropped.length > 0) snapshot = skipDroppedCodes(snapshot, journal.dropped);
    // Parsed here and forgotten once taken: the sandbox may keep its records rather than copies.
    return heldStateFile(file, writer, release, notices, snapshot === undefined ? undefined : handOver(snapshot));
  } catch (error) {
    await release();
    throw error;
  }
}

/** A state file whose lock this process holds (see StateFile). */
function heldStateFile(
  file: string,
  writer: StateFileWriter,
  release: () => Promise<void>,
  notices: readonly string[],
  snapshot: SandboxSnapshot | undefined,
): StateFile {
  let kept = snapshot;
  return {
    notices,
    takeSnapshot: () => {
      const taken = kept;
      kept = undefined;
      return taken;
    },
    writer,
    close: async () => {
      await writer.close();
      await release();
    },
    suspend: async () => {
      let left: string | undefined;
      try {
        left = writer.failed ? undefined : await filesFingerprint(file);
      } finally {
        await writer.close();
        await release();
      }
      return { resume: (options = {}) => resumeStateFile(file, writer, left, options.waitMs) };
    },
  };
}

async function resumeStateFile(
  file: string,
  writer: StateFileWriter,
  left: string | undefined,
  waitMs: number | undefined,
): Promise<StateFile | undefined> {
  if (left === undefined) return undefined;
  const release = await lockStateFile(file, waitMs === undefined ? {} : { waitMs }).catch((error: unknown) => {
    throw lockRefusal(file, error);
  });
  try {
    // The same rules as a first open: the file's only name, and no stale announcement of a server that died with it.
    await checkSoleName(file);
    await removeAnnouncement(file);
    if (writer.failed || (await filesFingerprint(file)) !== left) {
      await release();
      return undefined;
    }
    return heldStateFile(file, writer, release, [], undefined);
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * The snapshot and its journal as the file system describes them, without reading them: device, inode, links, size
 * and modification and change times in nanoseconds. A replaced snapshot is a new inode; an appended or cut journal
 * changes its size and times; anything that writes either changes its change time.
 */
async function filesFingerprint(file: string): Promise<string> {
  const describe = async (path: string) => {
    const stats = await lstatExact(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stats === undefined) return 'none';
    return [stats.isFile(), stats.dev, stats.ino, stats.nlink, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
  };
  return `${await describe(file)} ${await describe(`${file}.journal`)}`;
}

/**
 * The lock is taken by name (FILE.lock in FILE's folder), so FILE must be the only name of its file: neither a
 * symbolic link nor a hard link, through which a second sandbox would open the same state under another lock.
 * (A linked folder above is the same folder, and so the same lock.)
 */
async function checkSoleName(file: string): Promise<void> {
  const stats = await lstat(file).catch(() => undefined);
  if (stats === undefined) return;
  const reason = stats.isSymbolicLink()
    ? 'it is a symbolic link'
    : !stats.isFile()
      ? 'it is not a regular file'
      : stats.nlink > 1
        ? `it has ${stats.nlink - 1} other hard link(s)`
        : undefined;
  if (reason !== undefined) throw SnapshotError.ofUnsafeFile(new UnsafeFileError(file, reason));
}

async function journalBytes(path: string): Promise<number> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isSymbolicLink()) throw SnapshotError.ofUnsafeFile(new UnsafeFileError(path, 'it is a symbolic link'));
  return stats?.size ?? 0;
}

function droppedNotice(journalPath: string, dropped: DroppedLine): string {
  const codes = dropped.invoiceCodes.length === 0 ? '' : `; it named ${dropped.invoiceCodes.join(', ')}`;
  return `Dropped line ${dropped.line} of ${journalPath} (${dropped.reason}, ${dropped.bytes} bytes${codes}).`;
}

function badCopyName(journalPath: string): string {
  return `${journalPath}.bad-${new Date().toISOString().replace(/[:.]/g, '-')}`;
}

/** The records a commit put into the history's invoices and orders. */
function putsOf(entry: SandboxChanges): { invoices?: unknown; orders?: unknown } {
  return { invoices: entry.tables.invoices?.put, orders: entry.tables.orders?.put };
}

/** Each commit's changes split in two: to the history (state-layout.ts), and to the rest. */
function splitChanges(entries: readonly SandboxChanges[]): { head: SandboxChanges[]; history: SandboxChanges[] } {
  const head: SandboxChanges[] = [];
  const history: SandboxChanges[] = [];
  for (const entry of entries) {
    const headTables: SandboxChanges['tables'] = {};
    const historyTables: SandboxChanges['tables'] = {};
    for (const [name, change] of Object.entries(entry.tables))
      (isHistoryTable(name) ? historyTables : headTables)[name as keyof SandboxChanges['tables']] = change;
    head.push({ ...entry, tables: headTables });
    history.push({ ...entry, tables: historyTables });
  }
  return { head, history };
}

/** Counters moved past every code the dropped lines may have acknowledged (see MIN_BYTES_PER_NEW_RECORD). */
function skipDroppedCodes(snapshot: SandboxSnapshot, dropped: readonly DroppedLine[]): SandboxSnapshot {
  const ahead = dropped.reduce((sum, d) => sum + Math.ceil(d.bytes / MIN_BYTES_PER_NEW_RECORD), 0);
  const counters = { ...snapshot.counters };
  for (const name of Object.keys(counters) as (keyof typeof counters)[]) counters[name] += ahead;
  return { ...snapshot, counters };
}

class StateFileWriter implements StateWriter {
  #journalId: string | undefined;
  #seq: number;
  #journalBytes: number;
  #snapshotBytes: number | undefined;
  readonly #minJournalBytes: number;
  readonly #journalShare: number;
  #handle: OpenFile | undefined;
  #preserveJournalAs: string | undefined;
  #failed = false;

  constructor(
    private readonly file: string,
    private readonly journalPath: string,
    state: {
      journalId: string | undefined;
      seq: number;
      journalBytes: number;
      snapshotBytes: number | undefined;
      minJournalBytes: number;
      journalShare: number;
      preserveJournalAs: string | undefined;
    },
  ) {
    this.#journalId = state.journalId;
    this.#seq = state.seq;
    this.#journalBytes = state.journalBytes;
    this.#snapshotBytes = state.snapshotBytes;
    this.#minJournalBytes = state.minJournalBytes;
    this.#journalShare = state.journalShare;
    this.#preserveJournalAs = state.preserveJournalAs;
  }

  get preservedJournalPath(): string | undefined {
    return this.#preserveJournalAs;
  }

  get wantsSnapshot(): boolean {
    if (this.#journalId === undefined || this.#snapshotBytes === undefined) return true;
    return this.#journalBytes > Math.max(this.#snapshotBytes * this.#journalShare, this.#minJournalBytes);
  }

  /** A write failed: what the sandbox holds may be ahead of the files. */
  get failed(): boolean {
    return this.#failed;
  }

  async write(state: { snapshot: SandboxSnapshot } | { changes: SandboxChanges }): Promise<void> {
    try {
      await this.#write(state);
    } catch (error) {
      this.#failed = true;
      throw error;
    }
  }

  async #write(state: { snapshot: SandboxSnapshot } | { changes: SandboxChanges }): Promise<void> {
    if ('snapshot' in state) return this.#writeSnapshot(state.snapshot);
    if (this.#journalId === undefined) throw new Error('state file: a snapshot must be written before changes');
    const line = changeLogLineText({ journal_id: this.#journalId, seq: this.#seq + 1, ...state.changes });
    const handle = await this.#journal();
    try {
      await handle.write(line);
      await handle.datasync();
    } catch (error) {
      // Leave no half line for the next one to follow (a crash before this runs leaves a torn tail, which is cut at open).
      await handle.truncate(this.#journalBytes).catch(() => undefined);
      throw error;
    }
    this.#seq += 1;
    this.#journalBytes += Buffer.byteLength(line);
  }

  async #writeSnapshot(snapshot: SandboxSnapshot): Promise<void> {
    const journalId = nodeCrypto().randomUUID();
    // Serialised before the first await, as writeStateFile does; history last, with a layout that says where.
    const { text, headBytes, moves } = layoutText({ ...snapshot, journal_id: journalId });
    await replaceFile(this.file, text);
    this.#snapshotBytes = Buffer.byteLength(text);
    // Its stats after the rename; a layout that cannot be written leaves an older one, which describes no file here.
    await lstatExact(this.file)
      .then((stats) => writeLayout(this.file, stats, headBytes, moves))
      .catch(() => undefined);
    // From here the old journal's lines are another id's: emptying it only saves space and reading time.
    this.#journalId = journalId;
    this.#seq = 0;
    if (this.#preserveJournalAs !== undefined) await this.#setJournalAside(this.#preserveJournalAs);
    else await this.truncateJournal(0);
  }

  /**
   * Keeps the damaged journal under another name and starts an empty one. After the new snapshot: a crash before
   * this leaves the damaged journal where it was, refused again at the next start, never lost.
   */
  async #setJournalAside(copy: string): Promise<void> {
    await this.close();
    // A copy rather than a second name: a journal with two names is refused at open.
    const damaged = await readIfExists(this.journalPath, { soleName: true, maxBytes: MAX_STATE_JOURNAL_BYTES });
    if (damaged !== undefined) await createNewFile(copy, damaged);
    await unlink(this.journalPath).catch(() => undefined);
    await syncDirectory(dirname(this.journalPath));
    this.#preserveJournalAs = undefined;
    this.#journalBytes = 0;
  }

  async truncateJournal(bytes: number): Promise<void> {
    const handle = await this.#journal();
    await handle.truncate(bytes);
    await handle.datasync();
    this.#journalBytes = bytes;
  }

  async #journal(): Promise<OpenFile> {
    if (this.#handle === undefined) {
      try {
        this.#handle = await openToAppend(this.journalPath);
      } catch (error) {
        if (error instanceof UnsafeFileError) throw SnapshotError.ofUnsafeFile(error);
        throw error;
      }
      await syncDirectory(dirname(this.journalPath));
    }
    return this.#handle;
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
  }
}
