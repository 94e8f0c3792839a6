// Where a batch's rows come from: a file read twice (once to check, once to send), or a stream (stdin, a pipe, a FIFO)
// spooled to a private file.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { raceAbort } from '../../../abort.js';
import { openToAppend } from '../../../safe-file.js';
import { UsageError } from '../../errors.js';
import { readRecords, type BatchFormat, type FileRecord } from './batch-records.js';
import { unreadable } from '../../io/input-file.js';
import { isNamedPipe, openNamedPipe } from '../../io/named-pipe.js';

export interface BatchSource {
  /** As the user named it: a path, or `-`. */
  name: string;
  format: BatchFormat;
  /** The records, read afresh from the start on every call. */
  records(): AsyncGenerator<FileRecord>;
  /** Removes the spooled copy of stdin, if any. */
  cleanup(): Promise<void>;
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, BatchFormat>> = { '.csv': 'csv', '.jsonl': 'jsonl', '.ndjson': 'jsonl' };

export function formatOf(name: string, given: BatchFormat | undefined): BatchFormat {
  if (given !== undefined) return given;
  if (name === '-') throw new UsageError('Reading stdin, say what it holds: --format jsonl or --format csv.');
  const format = FORMAT_BY_EXTENSION[extname(name).toLowerCase()];
  if (format === undefined)
    throw new UsageError(`Cannot tell the format of ${basename(name)} from its name: add --format jsonl or --format csv.`);
  return format;
}

/**
 * The most a batch's input may hold. A batch is sent at 10 orders a minute, the published limit, so a larger one would
 * take weeks; the bound keeps an endless input (`yes '{}' |`, a FIFO) from filling the disk or memory.
 */
export const MAX_BATCH_INPUT_BYTES = 256 * 2 ** 20;

const inputTooLarge = (name: string) =>
  new UsageError(
    `${name === '-' ? 'stdin' : name} is more than ${MAX_BATCH_INPUT_BYTES / 2 ** 20} MiB, the most one batch takes; split it into batches of their own (each with its own --batch name).`,
  );

/**
 * The file's text, in chunks, as UTF-8. Bytes that are not UTF-8 (a spreadsheet's Latin-1 or UTF-16 export) are
 * refused, naming their line, rather than read as U+FFFD: an order would otherwise go out with other text than the
 * file holds (a reference `M\ufffdller-1` for `Müller-1`). A byte-order mark is kept for the splitter to take off.
 */
async function* fileChunks(path: string, name: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let bytes = 0;
  /** The line the next chunk starts on, counted in bytes (0x0A) as the file has them. */
  let line = 1;
  /** The end of the last chunk that a character begun in it and not yet ended: it belongs to the next one. */
  let carried: Buffer = Buffer.alloc(0);
  try {
    for await (const read of stream) {
      const chunk = read as Buffer;
      bytes += chunk.length;
      if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge(name);
      const text = decodedOr(decoder, chunk, () => notUtf8(name, line + lineBreaks(Buffer.concat([carried, chunk]), true)));
      line += lineBreaks(chunk, false);
      carried = unendedCharacter(chunk);
      yield text;
    }
    const rest = decodedOr(decoder, undefined, () => notUtf8(name, line));
    if (rest !== '') yield rest;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error);
  } finally {
    stream.destroy();
  }
}

/** The chunk decoded (the decoder's end, without one), or `refusal()` thrown when its bytes are not UTF-8. */
function decodedOr(decoder: TextDecoder, chunk: Buffer | undefined, refusal: () => UsageError): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    throw refusal();
  }
}

/** Line breaks in `bytes`; with `toBadByte`, only those before its first byte that is not UTF-8. */
function lineBreaks(bytes: Buffer, toBadByte: boolean): number {
  const end = toBadByte ? firstBadByte(bytes) : bytes.length;
  let breaks = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1 && at < end; at = bytes.indexOf(0x0a, at + 1)) breaks += 1;
  return breaks;
}

/** The bytes at the end of `chunk` that begin a character its end cuts off (none, or 1 to 3). */
function unendedCharacter(chunk: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, chunk.length); back++) {
    const byte = chunk[chunk.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? chunk.subarray(chunk.length - back) : Buffer.alloc(0);
  }
  return Buffer.alloc(0);
}

/**
 * Where the first byte that is not UTF-8 is: the end of the longest start of `bytes` that a fatal decoder takes (a
 * character cut off at that end waits for the rest), found by halving; the length when there is none. The decoder
 * that refused the chunk decides, so the two cannot disagree.
 */
function firstBadByte(bytes: Buffer): number {
  const takes = (length: number) => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, length), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  if (takes(bytes.length)) return bytes.length;
  // takes(good), and not takes(bad): the byte at bad - 1 is the one that cannot be.
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1;
    if (takes(middle)) good = middle;
    else bad = middle;
  }
  return bad - 1;
}

const notUtf8 = (name: string, line: number) =>
  new UsageError(
    `${name === '-' ? 'stdin' : name} is not UTF-8 text (line ${line} has bytes that are not): save it as UTF-8 ("CSV UTF-8" in a spreadsheet) and run the batch again.`,
  );

/**
 * Copies a stream (stdin, or a named pipe) to a new 0600 file in a new 0700 folder, chunk by chunk: the whole input
 * is never in memory. At most MAX_BATCH_INPUT_BYTES: past it the copy is removed and the batch refused.
 */
async function spool(
  input: NodeJS.ReadableStream,
  name: string,
  signal: AbortSignal | undefined,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  signal?.throwIfAborted();
  const dir = await mkdtemp(join(tmpdir(), 'topup-batch-'));
  const path = join(dir, 'stdin');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const copy = copyTo(input, path, name);
  try {
    // Ctrl-C stops it at once, even while the other end writes nothing: a read of a pipe that waits for data cannot be
    // cancelled (it ends only with the process, which a Ctrl-C ends), so the copy is not waited for; its input closes.
    await raceAbort(copy, signal);
  } catch (error) {
    if (signal?.aborted === true) (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    await cleanup();
    if (signal?.aborted === true) throw signal.reason;
    throw error instanceof UsageError || name === '-' ? error : unreadable(name, error);
  }
  return { path, cleanup };
}

/** The input's bytes into a new 0600 file at `path`, up to MAX_BATCH_INPUT_BYTES. */
async function copyTo(input: NodeJS.ReadableStream, path: string, name: string): Promise<void> {
  const handle = await openToAppend(path);
  try {
    let bytes = 0;
    for await (const chunk of input) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
      bytes += buffer.length;
      // Leaving the loop closes the input: nothing more is read or written.
      if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge(name);
      await handle.write(buffer);
    }
  } finally {
    await handle.close();
  }
}

/**
 * A named stream's bytes (a directory, or a path that went away, fails here and is reported as unreadable). A named
 * pipe is read as a pipe (openNamedPipe), so that Ctrl-C ends the run while its writer has not come or writes nothing.
 */
async function streamOf(path: string, signal: AbortSignal | undefined): Promise<NodeJS.ReadableStream> {
  if (!(await isNamedPipe(path))) return createReadStream(path, { highWaterMark: 64 * 1024 });
  try {
    return await openNamedPipe(path, signal);
  } catch (error) {
    throw signal?.aborted === true ? signal.reason : unreadable(path, error);
  }
}

/**
 * Whether the input can be read only once: stdin (`-`), a path under /dev or /proc, or a path that names no regular
 * file (nor folder): a pipe (`<(make-rows)`), a FIFO, a socket, a device. A batch reads its rows twice (to check
 * every row before it sends one, then to send), and a second read of a pipe finds nothing; such an input is spooled,
 * as stdin is. A path that cannot be looked at is for the read to report.
 */
export async function isStreamedInput(name: string): Promise<boolean> {
  if (name === '-') return true;
  // /dev/stdin, /dev/fd/N, /proc/self/fd/N: a stream's name even when a regular file is behind it, and no folder for
  // a ledger to stay in.
  if (/^\/(dev|proc)\//.test(name)) return true;
  try {
    const stats = await stat(name);
    // A folder is for the read to report as one.
    return !stats.isFile() && !stats.isDirectory();
  } catch {
    return false;
  }
}

export async function openBatchSource(
  name: string,
  format: BatchFormat,
  stdin: NodeJS.ReadableStream,
  streamed: boolean = name === '-',
  signal?: AbortSignal,
): Promise<BatchSource> {
  const spooled = streamed ? await spool(name === '-' ? stdin : await streamOf(name, signal), name, signal) : undefined;
  const path = spooled?.path ?? name;
  // Checked now, so that a missing file is one sentence before anything else happens.
  const probe = fileChunks(path, name);
  try {
    await probe.next();
  } catch (error) {
    await spooled?.cleanup();
    throw error;
  } finally {
    await probe.return(undefined);
  }
  return {
    name,
    format,
    records: () => readRecords(fileChunks(path, name), format),
    cleanup: async () => spooled?.cleanup(),
  };
}
