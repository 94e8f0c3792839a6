import { clearRateLimits, createSandbox, createSandboxOnDemand, type Sandbox, type SandboxOptions } from './sandbox.js';
import {
  openStateFileHeadFirst,
  StateChangedError,
  type HeadFirstOptions,
  type OpenStateFileOptions,
  type StateFile,
  type SuspendedStateFile,
} from '../state/file.js';
import { historyWanted, needsHistory } from './dispatch.js';
import type { SandboxRequest } from '../core/exchange.js';

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
   * The one request `work` sends, when that is all it does (the CLI's `handle`): the state file's history (orders,
   * invoices, …: mocks/state/state-layout.ts) is then read only if that request needs it (`historyWanted`). Without
   * it, the whole state is read before `work`.
   */
  request?: Pick<SandboxRequest, 'method' | 'url'>;
}

/**
 * The journal a session lets grow, against its snapshot: every open reads it whole, and a command that reads only the
 * snapshot's head should not then read megabytes of journal (at 10k orders, an eighth is some 900 KB).
 */
const SESSION_JOURNAL_SHARE = 1 / 8;

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
  const { waitMs, fresh: _fresh, repair: _repair, ...rest } = options;
  return {
    async use(work, useOptions = {}) {
      const fresh = useOptions.fresh ?? options.fresh ?? false;
      const repair = useOptions.repair ?? options.repair ?? false;
      const resumable = kept;
      kept = undefined;
      const { request } = useOptions;
      let held: Held | undefined;
      if (resumable !== undefined && !fresh && !repair) {
        const stateFile = await resumable.suspended.resume(waitMs === undefined ? {} : { waitMs });
        if (stateFile !== undefined) {
          clearRateLimits(resumable.sandbox);
          held = { sandbox: resumable.sandbox, stateFile, notices: [] };
        }
      }
      const opening = { ...rest, ...(waitMs === undefined ? {} : { waitMs }), fresh, repair };
      const headFirst = request !== undefined && !needsHistory(request);
      // One operation at a time, most of them reads: the contract's schemas load with the first request that needs them.
      held ??= await openHeld(file, opening, createSandboxOnDemand, {
        history: headFirst ? 'later' : 'now',
        journalShare: SESSION_JOURNAL_SHARE,
      });
      let finished = false;
      try {
        // Read before the work, so that a history that cannot be read is the state's error, as at any open.
        const { store } = held.sandbox;
        if (request === undefined ? store.loadPending : historyWanted(store, request, held.sandbox.now())) {
          const reopened = await withHistory(held, () =>
            openHeld(file, opening, createSandboxOnDemand, { history: 'now', journalShare: SESSION_JOURNAL_SHARE }),
          );
          held = reopened;
        }
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

interface Held {
  sandbox: Sandbox;
  stateFile: StateFile;
  notices: readonly string[];
}

/**
 * The held sandbox with its history read; when the file changed behind the lock since its head was read (something
 * that takes no lock wrote it, or only touched it), the file is let go and opened anew, whole (`reopen`).
 */
async function withHistory(held: Held, reopen: () => Promise<Held>): Promise<Held> {
  try {
    await held.sandbox.store.loadDeferred();
    return held;
  } catch (error) {
    if (!(error instanceof StateChangedError)) throw error;
  }
  await held.stateFile.close();
  // Closed twice is harmless (the lock is let go once: mocks/state/lock.ts), should opening anew fail.
  return reopen();
}

async function openHeld(
  file: string,
  options: PersistentSandboxOptions,
  create: (options: SandboxOptions) => Promise<Sandbox>,
  headFirst: HeadFirstOptions = {},
): Promise<Held> {
  const { waitMs, fresh, repair, minJournalBytes, ...sandboxOptions } = options;
  const stateFile = await openStateFileHeadFirst(file, {
    ...headFirst,
    ...(waitMs === undefined ? {} : { waitMs }),
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
