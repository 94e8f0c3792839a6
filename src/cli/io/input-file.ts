import { UsageError } from '../errors.js';
import { isNamedPipe, openNamedPipe } from './named-pipe.js';
import { readAllBytes, type InputLimit } from './streams.js';

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
export async function readInputFile(
  path: string,
  stdin: NodeJS.ReadableStream,
  limit: InputFileLimit,
  signal?: AbortSignal,
): Promise<string> {
  const name = path === '-' ? 'stdin' : path;
  const tooLarge = () => new UsageError(`${name} is more than ${sizeText(limit.maxBytes)}, the most ${limit.what} can be.`);
  const reading = { maxBytes: limit.maxBytes, tooLarge, signal };
  if (path === '-') return utf8Text(name, await readAllBytes(stdin, reading), limit);
  // A named pipe (`<(make-body)`, mkfifo) is read as a pipe, so that Ctrl-C ends the run while no writer comes.
  if (await isNamedPipe(path)) return utf8Text(name, await readNamedPipe(path, reading), limit);
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
    return utf8Text(name, await readAllBytes(file.createReadStream({ autoClose: false }), reading), limit);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(path, error);
  } finally {
    await file.close();
  }
}

/** All a named pipe holds (see openNamedPipe: Ctrl-C stops it however long its writer takes). */
async function readNamedPipe(path: string, limit: InputLimit): Promise<Buffer> {
  let pipe;
  try {
    pipe = await openNamedPipe(path, limit.signal);
  } catch (error) {
    throw limit.signal?.aborted === true ? limit.signal.reason : unreadable(path, error);
  }
  try {
    return await readAllBytes(pipe, limit);
  } finally {
    pipe.destroy();
  }
}

/**
 * The bytes as UTF-8 text, or a usage error: what these files hold is sent or read as (JSON) text, and decoding bytes
 * that are not UTF-8 would replace each with U+FFFD, so the server would get other bytes than the file holds.
 */
function utf8Text(name: string, bytes: Buffer, limit: InputFileLimit): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(`${name} is not UTF-8 text, as ${limit.what} must be.`);
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
