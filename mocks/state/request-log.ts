import { lstat, rename, type OpenFile } from '../../src/open-file.js';
import { openToAppend, openToRead, replaceFile, UnsafeFileError } from '../../src/safe-file.js';
import { DEFAULT_JOURNAL_SIZE, type JournalEntry } from '../inspect/request-journal.js';

/**
 * The request journal of a sandbox that lives only while one command runs (the CLI's embedded one), kept on disk
 * beside its state file so that `topup mock logs` can show what earlier commands sent: NDJSON, one entry a line, ids
 * going on from command to command. Two generations (FILE.requests.ndjson and FILE.requests.1.ndjson): when the
 * current one holds `size` entries it becomes the old one, so the log stays bounded without ever being rewritten.
 * Appends happen under the state file's lock; readers take none (a torn last line is skipped).
 */
export interface RequestLogFile {
  readonly path: string;
  /** Appends the entries with ids that continue the log's; returns them as written. */
  append(entries: readonly JournalEntry[]): Promise<JournalEntry[]>;
  /** The newest `size` entries, oldest first. */
  read(): Promise<JournalEntry[]>;
  /** Changes whenever the log does (for following it without reading it every time). */
  version(): Promise<string>;
  /** Forgets every entry; ids go on from the last one, as a served sandbox's journal's do after a clear. */
  clear(): Promise<void>;
}

/** Marks the line a clear leaves: it numbers the entries after it and is no entry itself. */
const CLEARED = 'cleared';

/** Read at the ends of a generation, a chunk at a time. */
const CHUNK = 16_384;
/**
 * The most of a generation read: its newest part. A generation of the default 1,000 entries is a few hundred KiB
 * (entries' bodies are cut to 16 KiB); one past this was not written by topup, or holds entries of huge escaped
 * bodies, and is read from its end only, so that a file planted or grown there is never held whole.
 */
const MAX_GENERATION_READ_BYTES = 64 * 2 ** 20;
/** The longest line looked for at either end of a generation: an entry is far shorter. */
const MAX_EDGE_WINDOW_BYTES = 4 * 2 ** 20;

export function requestLogFile(stateFile: string, size: number = DEFAULT_JOURNAL_SIZE): RequestLogFile {
  const current = `${stateFile}.requests.ndjson`;
  const previous = `${stateFile}.requests.1.ndjson`;
  return {
    path: current,
    async append(entries) {
      if (entries.length === 0) return [];
      // One handle reads the generation's ends and appends: every offline command appends its request, and opening
      // the file once for each (four times) cost it about 2 ms.
      let handle = await openToAppend(current, { read: true });
      try {
        let bytes = (await handle.stat()).size;
        const first = await edgeEntryOf(handle, bytes, 'first');
        const last = (await edgeEntryOf(handle, bytes, 'last')) ?? (await edgeEntry(previous, 'last'));
        let nextId = (last?.id ?? 0) + 1;
        const numbered = entries.map((entry) => Object.assign({}, entry, { id: nextId++ }));
        if (first !== undefined && last !== undefined && last.id - first.id + 1 >= size) {
          await handle.close();
          await rename(current, previous);
          handle = await openToAppend(current, { read: true });
          bytes = (await handle.stat()).size;
        }
        // A torn line left by a crash stays a line of its own, so the next entry is never glued to it.
        const torn = !(await endsWithNewline(handle, bytes));
        await handle.write(`${torn ? '\n' : ''}${numbered.map((e) => JSON.stringify(e)).join('\n')}\n`);
        return numbered;
      } finally {
        await handle.close();
      }
    },
    async read() {
      const entries = [...(await readEntries(previous)), ...(await readEntries(current))];
      return entries.slice(-size);
    },
    async clear() {
      const last = (await edgeEntry(current, 'last')) ?? (await edgeEntry(previous, 'last'));
      await replaceFile(previous, '');
      // A line that only holds the last id, so the next entry's continues from it (a follower keeps its place).
      await replaceFile(current, last === undefined ? '' : `${JSON.stringify({ id: last.id, [CLEARED]: true })}\n`);
    },
    async version() {
      const parts = await Promise.all(
        [previous, current].map((path) =>
          lstat(path).then(
            (s) => `${s.size}:${s.mtimeMs}:${s.ino}`,
            () => '-',
          ),
        ),
      );
      return parts.join('/');
    },
  };
}

async function readEntries(path: string): Promise<JournalEntry[]> {
  const text = await readNewest(path);
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    const entry = parseEntry(line);
    if (entry !== undefined && !(CLEARED in entry)) entries.push(entry);
  }
  return entries;
}

function parseEntry(line: string): JournalEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && Number.isSafeInteger((value as { id?: unknown }).id)
      ? (value as JournalEntry)
      : undefined;
  } catch {
    return undefined;
  }
}

async function endsWithNewline(handle: OpenFile, size: number): Promise<boolean> {
  if (size === 0) return true;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, size - 1);
  return byte[0] === 0x0a;
}

/** A generation's text, or its newest MAX_GENERATION_READ_BYTES from the first whole line in them; '' when there is none. */
async function readNewest(path: string): Promise<string> {
  const handle = await openLog(path);
  if (handle === undefined) return '';
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - MAX_GENERATION_READ_BYTES);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}

/** The first or last readable entry of a generation, read from that end only. */
async function edgeEntry(path: string, edge: 'first' | 'last'): Promise<JournalEntry | undefined> {
  const handle = await openLog(path);
  if (handle === undefined) return undefined;
  try {
    return await edgeEntryOf(handle, (await handle.stat()).size, edge);
  } finally {
    await handle.close();
  }
}

/** edgeEntry, on an open generation of `size` bytes. */
async function edgeEntryOf(handle: OpenFile, size: number, edge: 'first' | 'last'): Promise<JournalEntry | undefined> {
  // Grows the window from the chosen end until it holds a whole readable line (or the whole file, or the most).
  for (let window = CHUNK; window <= MAX_EDGE_WINDOW_BYTES; window *= 4) {
    const length = Math.min(window, size);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, edge === 'first' ? 0 : size - length);
    const lines = buffer.toString('utf8').split('\n');
    const whole = length === size ? lines : edge === 'first' ? lines.slice(0, -1) : lines.slice(1);
    const ordered = edge === 'first' ? whole : whole.reverse();
    for (const line of ordered) {
      const entry = parseEntry(line);
      if (entry !== undefined) return entry;
    }
    if (length === size) return undefined;
  }
  return undefined;
}

/** A generation to read from; undefined when it does not exist or cannot be read (a link there is refused). */
function openLog(path: string): Promise<OpenFile | undefined> {
  return openToRead(path).catch((error: unknown) => {
    if (error instanceof UnsafeFileError) throw error;
    return undefined;
  });
}
