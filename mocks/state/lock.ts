import { lockFile } from '../../src/file-lock.js';

export { isRunning } from '../../src/file-lock.js';

/** How long a process waits for another's lock on a state file before giving up. */
export const STATE_LOCK_WAIT_MS = 15_000;

export class StateLockedError extends Error {
  override name = 'StateLockedError';
  constructor(
    message: string,
    /** The pid the lock names, when it names one: for messages (`process 1234`), never for a decision. */
    readonly holderPid?: number,
    /** The lock file names no process at all: no topup holds it, and waiting longer would not help. */
    readonly nameless = false,
  ) {
    super(message);
  }

  /** ` (process 1234)`, or '' when the lock named no process: for the CLI's sentences. */
  get byHolder(): string {
    return this.holderPid === undefined ? '' : ` (process ${this.holderPid})`;
  }
}

/**
 * Takes the state file's lock (`FILE.lock`, src/file-lock.ts) for as long as this process reads and writes it, so
 * that two processes on one state file take turns instead of overwriting each other's changes. Resolves to the
 * release function; rejects with a StateLockedError when another live process keeps it past `waitMs`.
 */
export function lockStateFile(file: string, options: { waitMs?: number } = {}): Promise<() => Promise<void>> {
  return lockFile(`${file}.lock`, {
    waitMs: options.waitMs ?? STATE_LOCK_WAIT_MS,
    busy: (owner) =>
      owner === null
        ? new StateLockedError(
            `The state file's lock ${file}.lock names no process (topup never leaves one so): if no topup command or \`topup mock serve\` uses ${file}, remove the lock file.`,
            undefined,
            true,
          )
        : new StateLockedError(
            `The state file ${file} is in use by another process${owner === undefined ? '' : ` (${owner.pid})`}.`,
            owner?.pid,
          ),
  });
}
