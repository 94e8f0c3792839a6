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

async function* fileChunks(path: string, name: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) yield chunk as string;
  } catch (error) {
    throw unreadable(name, error);
  } finally {
    stream.destroy();
  }
}

/** Copies stdin to a new 0600 file in a new 0700 folder, chunk by chunk: the whole input is never in memory. */
async function spool(stdin: NodeJS.ReadableStream): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'topup-batch-'));
  const path = join(dir, 'stdin');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const handle = await openToAppend(path);
    try {
      for await (const chunk of stdin) await handle.write(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array));
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
