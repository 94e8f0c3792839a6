import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as fs from './open-file.js';
import type { OpenFile } from './open-file.js';

/*
 * The one way topup opens a file it keeps (state snapshot, its journal and lock, the request log, credentials and
 * config). A file of ours is never a symbolic link and never has a second name: a link planted at one of our names
 * would make us read, append to or replace someone else's file. Links in the folders above are fine (a linked
 * ~/.config is common); only the last part of the path is checked. Imports nothing of ours but open-file.ts, through
 * which its promise calls go (node:fs/promises costs an offline command's start-up a few ms to load).
 */

/** Where the platform has it (not Windows), the kernel itself refuses to follow a link at the last part. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * A FIFO planted at one of our names would block open() (and, from the synchronous start-up read, the whole process)
 * until someone writes to it. Opening without blocking returns at once, and checkOpened then refuses it as not a
 * regular file; on a regular file the flag changes nothing.
 */
const NO_BLOCK = constants.O_NONBLOCK ?? 0;

/** A lock file holds its owner's pid as text: one longer than this holds something else. */
export const MAX_PID_FILE_BYTES = 128;

/** Files of ours are the owner's only. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** A file of ours is a link or something other than a plain file; nothing was read or written. */
export class UnsafeFileError extends Error {
  override name = 'UnsafeFileError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Refusing to use ${path}: ${reason}.`);
  }
}

/** Why a file could not be written, in words, from node's error code: never node's own text, which names the temporary file. */
const WRITE_FAILURES: Record<string, string> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space is left on the device',
  EDQUOT: 'the disk quota is used up',
  EISDIR: 'it is a folder',
  ENAMETOOLONG: 'its name is too long',
  EMFILE: 'too many files are open',
};

/** The sentence for a failed write of `path`: the refusal of an unsafe file as it is, else the cause in words. */
export function writeFailure(path: string, error: unknown): string {
  if (error instanceof UnsafeFileError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string')
    return `Cannot write ${path}: ${error instanceof Error ? error.message.replace(/\.$/, '') : String(error)}.`;
  return `Cannot write ${path}: ${Object.hasOwn(WRITE_FAILURES, code) ? WRITE_FAILURES[code] : `the system refused it (${code})`}.`;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * ELOOP (Linux) or EMLINK (BSD) is how O_NOFOLLOW refuses a link; ENXIO is how a non-blocking open for writing refuses a
 * FIFO that no one reads.
 */
function refusal(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') return new UnsafeFileError(path, 'it is a symbolic link');
  if (code === 'ENXIO') return new UnsafeFileError(path, 'it is not a regular file');
  return error;
}

/** A regular file, and (when we write to it in place, or its name must be its identity) this one name only. */
function checkOpened(path: string, stats: { isFile(): boolean; nlink: number }, soleName: boolean): void {
  if (!stats.isFile()) throw new UnsafeFileError(path, 'it is not a regular file');
  if (soleName && stats.nlink > 1) throw new UnsafeFileError(path, `it has ${stats.nlink - 1} other hard link(s)`);
}

/** lstat where O_NOFOLLOW does not exist, so that a link is still refused (with a small race there). */
async function refuseLinkBeforeOpen(path: string): Promise<void> {
  if (NO_FOLLOW !== 0) return;
  const stats = await fs.lstat(path).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
  if (stats?.isSymbolicLink()) throw new UnsafeFileError(path, 'it is a symbolic link');
}

async function openChecked(path: string, flags: number, soleName: boolean, mode = PRIVATE_FILE_MODE): Promise<OpenFile> {
  await refuseLinkBeforeOpen(path);
  let handle: OpenFile;
  try {
    handle = await fs.openFile(path, flags | NO_FOLLOW | NO_BLOCK, mode);
  } catch (error) {
    throw refusal(path, error);
  }
  try {
    checkOpened(path, await handle.stat(), soleName);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export interface OpenOptions {
  /** Refuse a file with other hard links too: one whose name must say which file it is (a state file and its lock). */
  soleName?: boolean;
}

export interface ReadOptions extends OpenOptions {
  /**
   * The most bytes the caller can use. A larger file is refused (FileTooLargeError) by its size before any of it is
   * read, and one that turns out larger as it is read (it grew since, or it is one whose size says nothing, as in
   * /proc) as soon as it passes this: nothing past it is ever held. Every reader says how much it can use.
   */
  maxBytes: number;
}

/** A file of ours is larger than its reader can use; nothing past the limit was read. */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(
    readonly path: string,
    /** Its size, or, when `sizeKnown` is false, the bytes read before reading stopped (one past the limit). */
    readonly bytes: number,
    readonly maxBytes: number,
    /** False when the file passed the limit while being read, not by its size: `bytes` is then a lower bound. */
    readonly sizeKnown = true,
  ) {
    super(
      sizeKnown
        ? `${path} is ${bytes} bytes, more than the ${maxBytes} its reader can use.`
        : `${path} holds more than the ${maxBytes} bytes its reader can use.`,
    );
  }
}

function checkSize(path: string, bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) throw new FileTooLargeError(path, bytes, maxBytes);
}

/** Reads buffers grow from this size when a file's size said nothing (0 in /proc). */
const FIRST_READ_BYTES = 8_192;

/**
 * Reads an opened file from where it stands to its end, at most `maxBytes`. The buffer starts one byte past the size
 * the file gave, so that a file that grew since is seen growing, and grows only up to one byte past the limit.
 */
function boundedReader(path: string, size: number, maxBytes: number) {
  checkSize(path, size, maxBytes);
  let buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
  let length = 0;
  return {
    /** Where the next read goes; grows the buffer (or refuses the file) when it is full. */
    room(): { buffer: Buffer; offset: number; length: number } {
      if (length === buffer.length) {
        if (length > maxBytes) throw new FileTooLargeError(path, length, maxBytes, false);
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(FIRST_READ_BYTES, buffer.length * 2)));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      return { buffer, offset: length, length: buffer.length - length };
    },
    /** Counts a read; false at the end of the file. */
    took(bytesRead: number): boolean {
      length += bytesRead;
      return bytesRead > 0;
    },
    contents(): Buffer {
      return buffer.subarray(0, length);
    },
  };
}

/** What an opened file of ours holds, at most `maxBytes` (see ReadOptions.maxBytes). */
export async function readOpened(handle: OpenFile, path: string, maxBytes: number): Promise<Buffer> {
  const reader = boundedReader(path, (await handle.stat()).size, maxBytes);
  for (;;) {
    const room = reader.room();
    if (!reader.took((await handle.read(room.buffer, room.offset, room.length, null)).bytesRead)) return reader.contents();
  }
}

function readOpenedSync(fd: number, path: string, size: number, maxBytes: number): Buffer {
  const reader = boundedReader(path, size, maxBytes);
  for (;;) {
    const room = reader.room();
    if (!reader.took(readSync(fd, room.buffer, room.offset, room.length, null))) return reader.contents();
  }
}

/** Opens a file of ours to read; undefined when it does not exist. */
export async function openToRead(path: string, options: OpenOptions = {}): Promise<OpenFile | undefined> {
  try {
    return await openChecked(path, constants.O_RDONLY, options.soleName === true);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The whole file; undefined when it does not exist. */
export async function readIfExists(path: string, options: ReadOptions): Promise<Buffer | undefined> {
  const handle = await openToRead(path, options);
  if (handle === undefined) return undefined;
  try {
    return await readOpened(handle, path, options.maxBytes);
  } finally {
    await handle.close();
  }
}

/**
 * As readIfExists, in one read: for the CLI's settings at start-up, which must stay synchronous, and for a state
 * file's snapshot (megabytes, which a read at a time would take in pieces).
 */
export function readIfExistsSync(path: string, options: ReadOptions): Buffer | undefined {
  return readSomeIfExistsSync(path, options, () => undefined)?.bytes;
}

/** The part of a file `readSomeIfExistsSync` read: `bytes` from `start` on. */
export interface FilePart {
  start: number;
  length: number;
}

/**
 * As readIfExistsSync, except that `choose`, shown the opened file's exact stats (its identity: device, inode, size,
 * times), may name one part of it to read instead of the whole (a state file's head: mocks/state/state-layout.ts).
 * `part` is that part, or undefined when the whole file was read.
 */
export function readSomeIfExistsSync(
  path: string,
  options: ReadOptions,
  choose: (stats: BigIntStats) => FilePart | undefined,
): { bytes: Buffer; stats: BigIntStats; part: FilePart | undefined } | undefined {
  const fd = openToReadSync(path);
  if (fd === undefined) return undefined;
  try {
    const stats = fstatSync(fd, { bigint: true });
    checkOpened(path, { isFile: () => stats.isFile(), nlink: Number(stats.nlink) }, options.soleName === true);
    // A file past the limit is refused whole, whatever part of it would do.
    checkSize(path, Number(stats.size), options.maxBytes);
    const part = choose(stats);
    if (part === undefined) return { bytes: readOpenedSync(fd, path, Number(stats.size), options.maxBytes), stats, part };
    return { bytes: readOpenedPartSync(fd, path, part, options.maxBytes), stats, part };
  } finally {
    closeSync(fd);
  }
}

/**
 * One part of a file, read only when the file is still the one `expected` approves of by its exact stats (the
 * state file a head was read from): else PartChangedError, and nothing is read.
 */
export function readFilePartSync(
  path: string,
  options: ReadOptions & { expected: (stats: BigIntStats) => boolean },
  part: FilePart,
): Buffer {
  const fd = openToReadSync(path);
  if (fd === undefined) throw new PartChangedError(path);
  try {
    const stats = fstatSync(fd, { bigint: true });
    checkOpened(path, { isFile: () => stats.isFile(), nlink: Number(stats.nlink) }, options.soleName === true);
    if (!options.expected(stats)) throw new PartChangedError(path);
    return readOpenedPartSync(fd, path, part, options.maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** The file is no longer the one a part of it was to be read from. */
export class PartChangedError extends Error {
  override name = 'PartChangedError';
  constructor(readonly path: string) {
    super(`${path} changed since it was opened.`);
  }
}

function openToReadSync(path: string): number | undefined {
  if (NO_FOLLOW === 0) {
    try {
      if (lstatSync(path).isSymbolicLink()) throw new UnsafeFileError(path, 'it is a symbolic link');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }
  try {
    return openSync(path, constants.O_RDONLY | NO_FOLLOW | NO_BLOCK);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw refusal(path, error);
  }
}

/** Exactly `part` of an opened file; a file that ends before it is refused as changed. */
function readOpenedPartSync(fd: number, path: string, part: FilePart, maxBytes: number): Buffer {
  checkSize(path, part.length, maxBytes);
  const buffer = Buffer.allocUnsafe(part.length);
  let length = 0;
  while (length < part.length) {
    const read = readSync(fd, buffer, length, part.length - length, part.start + length);
    if (read === 0) throw new PartChangedError(path);
    length += read;
  }
  return buffer;
}

/**
 * Opens (creating it 0600 if needed) a file of ours that grows by appends: a journal, a log. With `read`, the same
 * handle also reads it (at given positions; every write still goes to the end).
 */
export function openToAppend(path: string, options: { read?: boolean } = {}): Promise<OpenFile> {
  return openChecked(path, (options.read === true ? constants.O_RDWR : constants.O_WRONLY) | constants.O_APPEND | constants.O_CREAT, true);
}

/** Opens an existing file of ours to change it in place (truncate, read back); undefined when it does not exist. */
export async function openToUpdate(path: string): Promise<OpenFile | undefined> {
  try {
    return await openChecked(path, constants.O_RDWR, true);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Creates a new file (0600) holding `data`, flushed to disk unless `durable` is false (a lock, which only other
 * processes need to see); fails with EEXIST when anything, a link included, is at that name already: O_EXCL never
 * follows a link.
 */
export async function createNewFile(path: string, data: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const handle = await fs.openFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(data);
    if (options.durable !== false) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces a file of ours whole: written to a new file beside it with a name no one can guess, flushed, renamed over
 * it, and the folder flushed. A crash at any moment leaves the old file or the new one, never a torn one; a link at
 * the name is refused, and a link planted at a temporary name is never written through.
 */
export async function replaceFile(path: string, data: string | Uint8Array): Promise<void> {
  const stats = await fs.lstat(path).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
  if (stats?.isSymbolicLink()) throw new UnsafeFileError(path, 'it is a symbolic link');
  if (stats !== undefined && !stats.isFile()) throw new UnsafeFileError(path, 'it is not a regular file');
  const temp = join(dirname(path), `.${basename(path)}.${(await nodeCrypto()).randomBytes(12).toString('hex')}.tmp`);
  try {
    await createNewFile(temp, data);
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(path));
}

/**
 * node:crypto, on first use: loading it (with the streams it brings) cost every command's start-up a few ms, and
 * most commands never replace a file. Node's own getter where it has one (node >= 20.16), so that the CLI's eager
 * CommonJS bundle does not start the ES module loader for it.
 */
async function nodeCrypto(): Promise<typeof import('node:crypto')> {
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return (node?.getBuiltinModule?.('node:crypto') as typeof import('node:crypto') | undefined) ?? (await import('node:crypto'));
}

/** Makes a file's creation or rename durable. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await fs.openFile(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
}

/**
 * Creates a folder of ours and any missing parents, 0700. The folder itself must not be a link (its parents may be);
 * an existing folder keeps its mode.
 */
export async function ensurePrivateDir(path: string): Promise<void> {
  await fs.mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stats = await fs.lstat(path);
  if (stats.isSymbolicLink()) throw new UnsafeFileError(path, 'it is a symbolic link');
  if (!stats.isDirectory()) throw new UnsafeFileError(path, 'it is not a folder');
}
