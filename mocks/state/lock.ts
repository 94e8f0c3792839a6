import { lockFile } from '../../src/file-lock.js';

export { isRunning } from '../../src/file-lock.js';

/** How long a process waits for another's lock on a state file before giving up. */
export const STATE_LOCK_WAIT_MS = 15_000;

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

/**
 * Takes the state file's lock (`FILE.lock`, src/file-lock.ts) for as long as this process reads and writes it, so
 * that two processes on one state file take turns instead of overwriting each other's changes. Resolves to the
 * release function; rejects with a StateLockedError when another live process keeps it past `waitMs`.
 */
export function lockStateFile(file: string, options: { waitMs?: number } = {}): Promise<() => Promise<void>> {
  return lockFile(`${file}.lock`, {
    waitMs: options.waitMs ?? STATE_LOCK_WAIT_MS,
    busy: () => new StateLockedError(`The state file ${file} is in use by another process.`),
  });
}
