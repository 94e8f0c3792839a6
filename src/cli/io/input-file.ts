import { UsageError } from '../errors.js';
import { readAll } from './streams.js';

/**
 * A file named on the command line, as text, or all of stdin for `-` (`api --input`, `-F key=@file`,
 * `mock state load`). A file that cannot be read is the user's mistake: a usage error in one sentence.
 */
export async function readInputFile(path: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (path === '-') return readAll(stdin);
  try {
    return await (await import('node:fs/promises')).readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : code;
    throw new UsageError(`Cannot read ${path}: ${why ?? (error as Error).message}.`);
  }
}
