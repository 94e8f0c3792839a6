import { randomUUID } from 'node:crypto';
import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { readJournal } from './journal.js';
import { lockStateFile } from './lock.js';
import { applyChanges, isSnapshot, SnapshotError, type SandboxChanges, type SandboxSnapshot, type StateWriter } from './snapshot.js';

export { SnapshotError };
export { lockStateFile, STATE_LOCK_WAIT_MS, StateLockedError } from './lock.js';

/**
 * Writes the snapshot beside the target, flushes it to disk, then renames it over the target.
 * A crash at any moment leaves either the old file or the new one, never a torn one.
 */
export async function writeStateFile(file: string, snapshot: SandboxSnapshot): Promise<number> {
  // Serialised before the first await: nothing may change what is written after this call.
  const text = JSON.stringify(snapshot);
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(file));
  return Buffer.byteLength(text);
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
}

/** The parsed snapshot, or undefined when the file does not exist yet. */
export async function readStateFile(file: string): Promise<unknown> {
  return (await readSnapshotText(file))?.value;
}

async function readSnapshotText(file: string): Promise<{ value: unknown; bytes: number } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotError(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  try {
    return { value: JSON.parse(text), bytes: Buffer.byteLength(text) };
  } catch {
    throw new SnapshotError(`The state file ${file} is not valid JSON.`);
  }
}

/**
 * A state file as a sandbox keeps it: a snapshot (FILE, replaced atomically) plus a journal beside it
 * (FILE.journal) to which every commit appends one line of what it changed, flushed to disk before the commit's
 * request is answered. Rewriting the whole state per order cost ~0.5 s at 100k orders; a line costs one small
 * write. When the journal outgrows the snapshot, the next commit writes a new snapshot with a new journal id and
 * empties the journal; lines of another id (left by a crash in between) are never applied.
 */
export interface StateFile {
  /**
   * The state to start from: the snapshot with its journal applied; undefined for a new (or `fresh`) file.
   * Handed over once and then forgotten, so that it does not stay in memory beside the sandbox's own copy.
   */
  takeSnapshot(): SandboxSnapshot | undefined;
  /** Give it to createSandbox({ stateWriter }). */
  readonly writer: StateWriter;
  /** Closes the journal and releases the lock. */
  close(): Promise<void>;
}

export interface OpenStateFileOptions {
  /** How long to wait for another process's lock on the file. Default STATE_LOCK_WAIT_MS (15 s). */
  waitMs?: number;
  /** Start over: ignore what the file holds (it is replaced at the first commit). */
  fresh?: boolean;
  /** The journal may grow to the snapshot's size or this many bytes, whichever is more. Default 64 KiB: the offline CLI reads the whole journal at every start. */
  minJournalBytes?: number;
}

export async function openStateFile(file: string, options: OpenStateFileOptions = {}): Promise<StateFile> {
  const release = await lockStateFile(file, options.waitMs === undefined ? {} : { waitMs: options.waitMs });
  try {
    const journalPath = `${file}.journal`;
    const read = options.fresh ? undefined : await readSnapshotText(file);
    if (read !== undefined && !isSnapshot(read.value)) throw new SnapshotError(`Not a sandbox state file of version 1: ${file}.`);
    const base = read?.value as SandboxSnapshot | undefined;
    const journal =
      base?.journal_id === undefined
        ? { entries: [], validBytes: 0, fileBytes: 0, seq: 0 }
        : await readJournal(journalPath, base.journal_id);
    const writer = new StateFileWriter(file, journalPath, {
      journalId: base?.journal_id,
      seq: journal.seq,
      journalBytes: journal.validBytes,
      snapshotBytes: read?.bytes,
      minJournalBytes: options.minJournalBytes ?? 64 * 1024,
    });
    // A torn last line was never acknowledged (a line counts once it is on disk); cut it before appending more.
    if (journal.validBytes < journal.fileBytes) await writer.truncateJournal(journal.validBytes);
    let snapshot = base === undefined ? undefined : applyChanges(base, journal.entries);
    return {
      takeSnapshot: () => {
        const taken = snapshot;
        snapshot = undefined;
        return taken;
      },
      writer,
      close: async () => {
        await writer.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

class StateFileWriter implements StateWriter {
  #journalId: string | undefined;
  #seq: number;
  #journalBytes: number;
  #snapshotBytes: number | undefined;
  readonly #minJournalBytes: number;
  #handle: FileHandle | undefined;

  constructor(
    private readonly file: string,
    private readonly journalPath: string,
    state: { journalId: string | undefined; seq: number; journalBytes: number; snapshotBytes: number | undefined; minJournalBytes: number },
  ) {
    this.#journalId = state.journalId;
    this.#seq = state.seq;
    this.#journalBytes = state.journalBytes;
    this.#snapshotBytes = state.snapshotBytes;
    this.#minJournalBytes = state.minJournalBytes;
  }

  get wantsSnapshot(): boolean {
    if (this.#journalId === undefined || this.#snapshotBytes === undefined) return true;
    return this.#journalBytes > Math.max(this.#snapshotBytes, this.#minJournalBytes);
  }

  async write(state: { snapshot: SandboxSnapshot } | { changes: SandboxChanges }): Promise<void> {
    if ('snapshot' in state) return this.#writeSnapshot(state.snapshot);
    if (this.#journalId === undefined) throw new Error('state file: a snapshot must be written before changes');
    const line = `${JSON.stringify({ journal_id: this.#journalId, seq: this.#seq + 1, ...state.changes })}\n`;
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
    const journalId = randomUUID();
    this.#snapshotBytes = await writeStateFile(this.file, { ...snapshot, journal_id: journalId });
    // From here the old journal's lines are another id's: emptying it only saves space and reading time.
    this.#journalId = journalId;
    this.#seq = 0;
    await this.truncateJournal(0);
  }

  async truncateJournal(bytes: number): Promise<void> {
    const handle = await this.#journal();
    await handle.truncate(bytes);
    await handle.datasync();
    this.#journalBytes = bytes;
  }

  async #journal(): Promise<FileHandle> {
    if (this.#handle === undefined) {
      this.#handle = await open(this.journalPath, 'a', 0o600);
      await syncDirectory(dirname(this.journalPath));
    }
    return this.#handle;
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
  }
}
