import { clearRateLimits, createSandbox, createSandboxOnDemand, type Sandbox, type SandboxOptions } from './sandbox.js';
import { openStateFile, type OpenStateFileOptions, type StateFile, type SuspendedStateFile } from '../state/file.js';

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
  const { sandbox, stateFile, notices } = await openHeld(file, options, createSandbox);
  return { sandbox, notices, close: () => stateFile.close() };
}

/** A state file used one operation at a time (the CLI's embedded sandbox): see `persistentSandboxSession`. */
export interface PersistentSandboxSession {
  /**
   * `work` on the sandbox as the file holds it now, under the file's lock; what it changes is on disk before the lock
   * goes. `fresh` starts from the seed, `repair` goes on past a damaged journal (see OpenStateFileOptions).
   */
  use<T>(work: (opened: Omit<PersistentSandbox, 'close'>) => Promise<T>, options?: SessionUseOptions): Promise<T>;
}

export interface SessionUseOptions {
  fresh?: boolean;
  repair?: boolean;
  /**
   * `head`: `work` is one request that needs no history (`needsHistory` in mocks/assembly/dispatch.ts says which):
   * the file's history is read only if a request comes to need it. Default `all`: the whole state, read before `work`.
   */
  reads?: 'head' | 'all';
}

/**
 * Opens the state file for each `use` and lets go after it, like `openPersistentSandbox` and `close()` in turn, but
 * keeps the sandbox between uses: when neither the snapshot nor its journal changed since the last use let go (no
 * other process wrote them; mocks/state/file.ts compares inode, size and times under the lock), the next use goes on
 * with the sandbox in memory instead of reading, checking and restoring the file again (over 100 ms at 10k orders,
 * for every order of `topup orders batch --mock`). It then starts its rate-limit windows over, as a new sandbox's.
 * The sandbox is kept only after work that ended without an error, with every change written.
 */
export function persistentSandboxSession(file: string, options: PersistentSandboxOptions = {}): PersistentSandboxSession {
  let kept: { sandbox: Sandbox; suspended: SuspendedStateFile } | undefined;
  const { waitMs, fresh: _fresh, repair: _repair, history: _history, ...rest } = options;
  return {
    async use(work, useOptions = {}) {
      const fresh = useOptions.fresh ?? options.fresh ?? false;
      const repair = useOptions.repair ?? options.repair ?? false;
      const resumable = kept;
      kept = undefined;
      const reads = useOptions.reads ?? 'all';
      let held: { sandbox: Sandbox; stateFile: StateFile; notices: readonly string[] } | undefined;
      if (resumable !== undefined && !fresh && !repair) {
        const stateFile = await resumable.suspended.resume(waitMs === undefined ? {} : { waitMs });
        if (stateFile !== undefined) {
          clearRateLimits(resumable.sandbox);
          held = { sandbox: resumable.sandbox, stateFile, notices: [] };
        }
      }
      // One operation at a time, most of them reads: the contract's schemas load with the first request that needs them.
      held ??= await openHeld(
        file,
        { ...rest, ...(waitMs === undefined ? {} : { waitMs }), fresh, repair, history: reads === 'head' ? 'later' : 'now' },
        createSandboxOnDemand,
      );
      let finished = false;
      try {
        // Read before the work, so that a history that cannot be read is the state's error, as at any open.
        if (reads === 'all') await held.sandbox.store.loadDeferred();
        const result = await work({ sandbox: held.sandbox, notices: held.notices });
        finished = true;
        return result;
      } finally {
        if (finished && !held.sandbox.store.hasUntakenChanges()) {
          const suspended = await held.stateFile.suspend();
          kept = { sandbox: held.sandbox, suspended };
        } else await held.stateFile.close();
      }
    },
  };
}

async function openHeld(file: string, options: PersistentSandboxOptions, create: (options: SandboxOptions) => Promise<Sandbox>) {
  const { waitMs, fresh, repair, minJournalBytes, history, ...sandboxOptions } = options;
  const stateFile = await openStateFile(file, {
    ...(waitMs === undefined ? {} : { waitMs }),
    ...(history === undefined ? {} : { history }),
    ...(fresh === undefined ? {} : { fresh }),
    ...(repair === undefined ? {} : { repair }),
    ...(minJournalBytes === undefined ? {} : { minJournalBytes }),
  });
  try {
    const snapshot = stateFile.takeSnapshot();
    const sandbox = await create({
      ...sandboxOptions,
      ...(snapshot === undefined ? {} : { snapshot }),
      stateWriter: stateFile.writer,
    });
    if (stateFile.writer.wantsSnapshot) {
      await sandbox.store.loadDeferred();
      await stateFile.writer.write({ snapshot: sandbox.snapshot() });
    }
    return { sandbox, stateFile, notices: stateFile.notices };
  } catch (error) {
    await stateFile.close();
    throw error;
  }
}

/** What opening can fail with: the file is another process's (`StateLockedError`), or it is damaged (`SnapshotError`). */
export { StateLockedError } from '../state/lock.js';
export { SnapshotError } from '../state/snapshot.js';
export { JournalDamagedError } from '../state/change-log.js';
export { OrphanJournalError, StateFolderError } from '../state/file.js';
