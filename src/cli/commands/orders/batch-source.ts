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

async function* fileChunks(path: string, name: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      bytes += Buffer.byteLength(chunk as string);
      if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge(name);
      yield chunk as string;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error);
  } finally {
    stream.destroy();
  }
}

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
