import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { applyChanges, isSnapshot, SnapshotError, type SandboxChanges, type SandboxSnapshot, type StateWriter } from './snapshot.js';

export { SnapshotError };

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
  /** How long to wait for another process's lock on the file. Default 15 s. */
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
    const journal = base?.journal_id === undefined ? { entries: [], validBytes: 0, fileBytes: 0, seq: 0 } : await readJournal(journalPath, base.journal_id);
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

interface JournalLine extends SandboxChanges {
  journal_id: string;
  seq: number;
}

/**
 * The journal's lines that continue the snapshot (those with its id), in order. A torn tail (an unfinished or
 * unparseable last stretch, with no valid line after it) was never acknowledged and is left out; anything else
 * unreadable means the file was damaged.
 */
async function readJournal(path: string, journalId: string): Promise<{ entries: SandboxChanges[]; validBytes: number; fileBytes: number; seq: number }> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], validBytes: 0, fileBytes: 0, seq: 0 };
    throw new SnapshotError(`Cannot read the state journal ${path}: ${(error as Error).message}`);
  }
  const entries: SandboxChanges[] = [];
  let seq = 0;
  let offset = 0;
  let validBytes = 0;
  let tornAt: number | undefined;
  while (offset < buffer.length) {
    const end = buffer.indexOf(0x0a, offset);
    const line = parseLine(buffer.subarray(offset, end === -1 ? buffer.length : end));
    if (tornAt === undefined) {
      if (line === undefined || end === -1) tornAt = offset;
      else {
        if (line.journal_id === journalId) {
          if (line.seq !== seq + 1) throw new SnapshotError(`The state journal ${path} is damaged: entry ${line.seq} follows ${seq}.`);
          seq = line.seq;
          const { journal_id: _id, seq: _seq, ...changes } = line;
          entries.push(changes);
        }
        validBytes = end + 1;
      }
    } else if (line !== undefined) {
      throw new SnapshotError(`The state journal ${path} is damaged: an unreadable entry lies before readable ones.`);
    }
    if (end === -1) break;
    offset = end + 1;
  }
  return { entries, validBytes, fileBytes: buffer.length, seq };
}

function parseLine(bytes: Buffer): JournalLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const line = value as Partial<JournalLine>;
  if (typeof line.journal_id !== 'string' || !Number.isSafeInteger(line.seq) || typeof line.clock_offset_ms !== 'number') return undefined;
  if (line.counters === null || typeof line.counters !== 'object' || line.tables === null || typeof line.tables !== 'object') return undefined;
  for (const change of Object.values(line.tables)) {
    if (change === null || typeof change !== 'object' || !Array.isArray(change.put) || !Array.isArray(change.remove) || !change.remove.every((k) => typeof k === 'string')) return undefined;
  }
  return line as JournalLine;
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

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

/**
 * Takes the state file's lock for as long as this process reads and writes it, so that two processes on one
 * state file take turns instead of overwriting each other's changes. The lock file holds the owner's pid: a lock
 * whose owner is gone (a crash, a SIGKILL) is taken over at once, which an age-based lock could only do later.
 * Resolves to the release function.
 */
export async function lockStateFile(file: string, options: { waitMs?: number } = {}): Promise<() => Promise<void>> {
  const lockPath = `${file}.lock`;
  const waitMs = options.waitMs ?? 15_000;
  const started = Date.now();
  for (;;) {
    if (await createWithPid(lockPath)) {
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(lockPath).catch(() => undefined);
      };
    }
    if (await removeIfAbandoned(lockPath)) continue;
    if (Date.now() - started >= waitMs) throw new StateLockedError(`The state file ${file} is in use by another process.`);
    await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 35));
  }
}

/**
 * Creates `path` holding this process's pid, unless it exists. Written beside it and then hard-linked into place,
 * so that the file never exists without its pid (a crash between creating and writing would leave a lock that
 * no one could tell from one being written).
 */
async function createWithPid(path: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomUUID()}`;
  await writeFile(temp, String(process.pid), { mode: 0o600 });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The pid in a lock file, or undefined when there is no lock file (it was released). */
async function ownerOf(lockPath: string): Promise<number | undefined> {
  try {
    return Number((await readFile(lockPath, 'utf8')).trim());
  } catch {
    return undefined;
  }
}

/**
 * Removes a lock whose owner process no longer runs. Processes that find the same abandoned lock at once must
 * not each remove it: one would remove the lock another had just taken after removing it first (measured: 6
 * processes on an abandoned lock, two inside at once in 9 of 10 runs). So only the holder of `LOCK.takeover`
 * removes it, and only if it still names the dead owner.
 */
async function removeIfAbandoned(lockPath: string): Promise<boolean> {
  const owner = await ownerOf(lockPath);
  if (owner === undefined) return true; // released between our attempts: try again
  if (!Number.isSafeInteger(owner) || owner <= 0 || owner === process.pid || isRunning(owner)) return false;
  const takeover = `${lockPath}.takeover`;
  if (!(await createWithPid(takeover))) {
    // Held for a moment only; one older than that belongs to a process that died holding it.
    const since = await stat(takeover).then((s) => s.mtimeMs, () => undefined);
    if (since !== undefined && Date.now() - since > TAKEOVER_STALE_MS) await unlink(takeover).catch(() => undefined);
    return false;
  }
  try {
    if ((await ownerOf(lockPath)) === owner) await unlink(lockPath).catch(() => undefined);
    return true;
  } finally {
    await unlink(takeover).catch(() => undefined);
  }
}

const TAKEOVER_STALE_MS = 10_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
