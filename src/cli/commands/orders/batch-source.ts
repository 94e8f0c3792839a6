// Where a batch's rows come from: a file read twice (once to check, once to send), or stdin spooled to a private file.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
 * Copies stdin to a new 0600 file in a new 0700 folder, chunk by chunk: the whole input is never in memory. At most
 * MAX_BATCH_INPUT_BYTES: past it the copy is removed and the batch refused.
 */
async function spool(stdin: NodeJS.ReadableStream): Promise<{ path: string; cleanup: () => Promise<void> }> {
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
        if (bytes > MAX_BATCH_INPUT_BYTES) throw inputTooLarge('-');
        await handle.write(buffer);
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { path, cleanup };
}

export async function openBatchSource(name: string, format: BatchFormat, stdin: NodeJS.ReadableStream): Promise<BatchSource> {
  const spooled = name === '-' ? await spool(stdin) : undefined;
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
