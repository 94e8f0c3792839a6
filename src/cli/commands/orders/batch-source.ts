// Where a batch's rows come from: a file read twice (once to check, once to send), or a stream (stdin, a pipe, a FIFO)
// spooled to a private file.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { openToAppend } from '../../../safe-file.js';
import { UsageError } from '../../errors.js';
import { readRecords, type BatchFormat, type FileRecord } from './batch-records.js';
import { unreadable } from '../../io/input-file.js';

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
  let line = 1;
  try {
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).length;
      if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge(name);
      const text = decodedOr(decoder, chunk as Buffer, () => notUtf8(name, line + linesBeforeBadByte(chunk as Buffer)));
      line += countLines(text);
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

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/** Line breaks in `chunk` before its first byte that is not UTF-8 (as a lenient decoder marks it). */
function linesBeforeBadByte(chunk: Buffer): number {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(chunk);
  const bad = text.indexOf('\ufffd');
  return countLines(bad === -1 ? text : text.slice(0, bad));
}

const notUtf8 = (name: string, line: number) =>
  new UsageError(
    `${name === '-' ? 'stdin' : name} is not UTF-8 text (line ${line} has bytes that are not): save it as UTF-8 ("CSV UTF-8" in a spreadsheet) and run the batch again.`,
  );

/**
 * Copies a stream (stdin, or a named pipe) to a new 0600 file in a new 0700 folder, chunk by chunk: the whole input is never in memory. At most
 * MAX_BATCH_INPUT_BYTES: past it the copy is removed and the batch refused.
 */
async function spool(stdin: NodeJS.ReadableStream, name: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'topup-batch-'));
  const path = join(dir, 'stdin');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const handle = await openToAppend(path);
    try {
      let bytes = 0;
      for await (const chunk of stdin) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
        bytes += buffer.length;
        // Leaving the loop closes stdin: nothing more is read or written.
        if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge(name);
        await handle.write(buffer);
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    await cleanup();
    throw error instanceof UsageError || name === '-' ? error : unreadable(name, error);
  }
  return { path, cleanup };
}

/** A named stream's bytes (a directory, or a path that went away, fails here and is reported as unreadable). */
function streamOf(path: string): NodeJS.ReadableStream {
  return createReadStream(path, { highWaterMark: 64 * 1024 });
}

/**
 * Whether the input can be read only once: stdin (`-`), or a path that names no regular file: a pipe
 * (`<(make-rows)`, /dev/stdin), a FIFO, a socket, a device. A batch reads its rows twice (to check every row before
 * it sends one, then to send), and a second read of a pipe finds nothing; such an input is spooled, as stdin is.
 * A path that cannot be looked at is for the read to report.
 */
export async function isStreamedInput(name: string): Promise<boolean> {
  if (name === '-') return true;
  try {
    return !(await stat(name)).isFile();
  } catch {
    return false;
  }
}

export async function openBatchSource(
  name: string,
  format: BatchFormat,
  stdin: NodeJS.ReadableStream,
  streamed: boolean = name === '-',
): Promise<BatchSource> {
  const spooled = streamed ? await spool(name === '-' ? stdin : streamOf(name), name) : undefined;
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
