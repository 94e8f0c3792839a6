import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
import { openStateFile, type OpenStateFileOptions } from '../state/file.js';

/** A sandbox whose state lives in a state file, which it holds locked until `close()`. */
export interface PersistentSandbox {
  readonly sandbox: Sandbox;
  /** What opening left out or set aside (mocks/state/file.ts), one sentence each, for the user to read. */
  readonly notices: readonly string[];
  /** Closes the journal and releases the file's lock. The sandbox must not be used after. */
  close(): Promise<void>;
}

export type PersistentSandboxOptions = Omit<SandboxOptions, 'snapshot' | 'stateWriter'> & OpenStateFileOptions;

/**
 * The one way to run a sandbox on a state file (`topup mock serve --state`, the CLI's embedded sandbox): takes the
 * file's lock, replays its snapshot and journal, and starts a sandbox that writes every commit back. A new file, or
 * one whose journal outgrew its snapshot, gets a whole snapshot now rather than at the first change.
 */
export async function openPersistentSandbox(file: string, options: PersistentSandboxOptions = {}): Promise<PersistentSandbox> {
  const { waitMs, fresh, repair, minJournalBytes, ...sandboxOptions } = options;
  const stateFile = await openStateFile(file, {
    ...(waitMs === undefined ? {} : { waitMs }),
    ...(fresh === undefined ? {} : { fresh }),
    ...(repair === undefined ? {} : { repair }),
    ...(minJournalBytes === undefined ? {} : { minJournalBytes }),
  });
  try {
    const snapshot = stateFile.takeSnapshot();
    const sandbox = await createSandbox({
      ...sandboxOptions,
      ...(snapshot === undefined ? {} : { snapshot }),
      stateWriter: stateFile.writer,
    });
    if (stateFile.writer.wantsSnapshot) await stateFile.writer.write({ snapshot: sandbox.snapshot() });
    return { sandbox, notices: stateFile.notices, close: () => stateFile.close() };
  } catch (error) {
    await stateFile.close();
    throw error;
  }
}

/** What opening can fail with: the file is another process's (`StateLockedError`), or it is damaged (`SnapshotError`). */
export { StateLockedError } from '../state/lock.js';
export { SnapshotError } from '../state/snapshot.js';
export { JournalDamagedError } from '../state/change-log.js';
export { OrphanJournalError } from '../state/file.js';
