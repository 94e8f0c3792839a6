import { constants } from 'node:buffer';
import type { FileTooLargeError } from '../../src/safe-file.js';
import { SnapshotError } from './snapshot.js';

/**
 * The largest state file that can be opened: its text must fit in one string for JSON.parse, and node refuses a
 * longer one (about 512 MiB). A larger file would be read whole and then fail as if it were not JSON.
 */
export const MAX_STATE_FILE_BYTES = constants.MAX_STRING_LENGTH;

/**
 * The largest state journal that can be opened. A journal is emptied into a new snapshot as soon as it outgrows the
 * one beside it, and no snapshot can be longer than MAX_STATE_FILE_BYTES, so one past it is not a journal the
 * sandbox wrote; read whole, up to node's 2 GiB, it would be held in memory with every change it parsed to.
 */
export const MAX_STATE_JOURNAL_BYTES = MAX_STATE_FILE_BYTES;

/** Bytes in whole mebibytes, rounded up: for a refusal's message. */
const mebibytes = (bytes: number) => Math.ceil(bytes / 2 ** 20);

/**
 * A state file or journal (`what`) refused by its size (safe-file's FileTooLargeError, which names the file and its
 * limit), with why no larger one can be opened.
 */
export function refusedBySize(what: string, error: FileTooLargeError, why: string): SnapshotError {
  const size = error.sizeKnown ? `is ${mebibytes(error.bytes)} MiB, more than` : 'holds more than';
  return new SnapshotError(`The ${what} ${error.path} ${size} the ${mebibytes(error.maxBytes)} MiB ${why}.`);
}
