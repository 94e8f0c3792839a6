import { UsageError } from '../errors.js';
import { readAll } from './streams.js';

/** The most a file named on the command line (or stdin for `-`) may hold, and what it is, for the refusal. */
export interface InputFileLimit {
  maxBytes: number;
  /** What the input is, for the sentence: `a request body`, `a saved state`. */
  what: string;
}

/**
 * A file named on the command line, as text, or all of stdin for `-` (`api --input`, `-F key=@file`,
 * `mock state load`), at most `limit.maxBytes`: a regular file past it is refused before it is read, anything else
 * (a pipe, `/dev/zero`) as soon as it passes it. A file that cannot be read is the user's mistake: a usage error in
 * one sentence.
 */
export async function readInputFile(path: string, stdin: NodeJS.ReadableStream, limit: InputFileLimit): Promise<string> {
  const name = path === '-' ? 'stdin' : path;
  const tooLarge = () => new UsageError(`${name} is more than ${sizeText(limit.maxBytes)}, the most ${limit.what} can be.`);
  if (path === '-') return readAll(stdin, { maxBytes: limit.maxBytes, tooLarge });
  const { open } = await import('node:fs/promises');
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const stat = await file.stat();
    if (stat.isDirectory()) throw new UsageError(`Cannot read ${path}: it is a folder.`);
    if (stat.isFile() && stat.size > limit.maxBytes) throw tooLarge();
    return await readAll(file.createReadStream({ autoClose: false }), { maxBytes: limit.maxBytes, tooLarge });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(path, error);
  } finally {
    await file.close();
  }
}

/** A file named on the command line that cannot be read, as one sentence: `Cannot read x.json: no such file.` */
export function unreadable(path: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : code;
  return new UsageError(`Cannot read ${path}: ${why ?? (error as Error).message}.`);
}

/** A limit in whole mebibytes or kibibytes, rounded up: `64 MiB`, `16 KiB`, `512 MiB` for node's longest string. */
function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.ceil(bytes / 2 ** 20)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
