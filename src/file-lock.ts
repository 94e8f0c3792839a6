import { link, stat, unlink } from './open-file.js';
import { abortableSleep } from './abort.js';
import { formatMark, markRunning, parseMark, sameMark, systemProbe, type ProcessMark } from './process-mark.js';
import { createNewFile, FileTooLargeError, MAX_PID_FILE_BYTES, readIfExists } from './safe-file.js';

/*
 * Why a hand-rolled lock rather than proper-lockfile: proper-lockfile decides that a lock is stale by its age
 * (an mtime it refreshes every few seconds), so a lock left by a killed process blocks every other process
 * until it ages out (10 s by default), and the refresh keeps a timer in every sandbox. The offline CLI takes
 * this lock for each command, and a crashed command is common (Ctrl-C, SIGKILL): here the lock file names its
 * owner (src/process-mark.ts), so a lock whose owner is gone is taken over at once, and nothing runs while the lock
 * is held.
 * test/reliability/state-lock.test.ts starts six processes at one instant on a lock left by a dead process.
 * Used for the sandbox's state files (mocks/state/lock.ts) and the CLI's settings (src/cli/settings.ts).
 */

/**
 * Takes the lock `lockPath` for as long as this process reads and writes what it guards, so that two processes take
 * turns instead of overwriting each other's changes. The lock file names its owner (its pid, and on Linux its start:
 * src/process-mark.ts): a lock whose owner is gone (a crash, a SIGKILL, a reboot, its pid since given to another
 * process) is taken over at once, which an age-based lock could only do later. Waits up to `waitMs` for a live owner,
 * then rejects with `busy(owner)`: null when the lock file names no process (topup never writes one so: it was left by
 * hand, or by something else), undefined when it was gone by then. Resolves to the release function.
 */
export async function lockFile(
  lockPath: string,
  options: { waitMs: number; busy: (owner: ProcessMark | null | undefined) => Error },
): Promise<() => Promise<void>> {
  const { waitMs } = options;
  const started = Date.now();
  for (;;) {
    if (await createWithPid(lockPath)) {
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(lockPath).catch(() => undefined);
      };
    }
    if (await removeIfAbandoned(lockPath)) continue;
    if (Date.now() - started >= waitMs) throw options.busy(await ownerOf(lockPath).catch(() => undefined));
    await abortableSleep(15 + Math.random() * 35);
  }
}

/**
 * Creates `path` naming this process, unless it exists. Written beside it and then hard-linked into place, so that
 * the file never exists without its owner (a crash between creating and writing would leave a lock that no one could
 * tell from one being written).
 */
let tempNames = 0;

async function createWithPid(path: string): Promise<boolean> {
  // Created exclusively: a link planted at the name is never written through, and a name already taken fails rather
  // than being shared. So the name need only be unique, not unguessable (node's crypto, ~7 ms to load, is not needed
  // by a command that reads): the pid tells processes apart, the rest the attempts of one process.
  const temp = `${path}.${process.pid}.${(tempNames += 1)}.${Math.random().toString(36).slice(2, 10)}`;
  await createNewFile(temp, formatMark(systemProbe().own), { durable: false });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * The owner a lock file names (null when it holds anything else), or undefined when there is no lock file (it was
 * released). A link there is refused.
 */
async function ownerOf(lockPath: string): Promise<ProcessMark | null | undefined> {
  const text = await readIfExists(lockPath, { maxBytes: MAX_PID_FILE_BYTES }).then(
    (bytes) => bytes?.toString('utf8'),
    (error: unknown) => (error instanceof FileTooLargeError ? 'not a pid' : Promise.reject(error)),
  );
  return text === undefined ? undefined : (parseMark(text) ?? null);
}

/**
 * Removes a lock whose owner process no longer runs. Processes that find the same abandoned lock at once must
 * not each remove it: one would remove the lock another had just taken after removing it first (measured: 6
 * processes on an abandoned lock, two inside at once in 9 of 10 runs). So only the holder of `LOCK.takeover`
 * removes it, and only if it still names the dead owner.
 */
async function removeIfAbandoned(lockPath: string): Promise<boolean> {
  const owner = await ownerOf(lockPath);
  if (owner === undefined) return true; // released between our attempts: try again
  // A lock that names no process is left alone, as before: it is being written by hand, or is not this lock.
  if (owner === null || markRunning(owner, systemProbe())) return false;
  const takeover = `${lockPath}.takeover`;
  if (!(await createWithPid(takeover))) {
    // Held for a moment only; one older than that belongs to a process that died holding it.
    const since = await stat(takeover).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (since !== undefined && Date.now() - since > TAKEOVER_STALE_MS) await unlink(takeover).catch(() => undefined);
    return false;
  }
  try {
    if (sameMark(await ownerOf(lockPath), owner)) await unlink(lockPath).catch(() => undefined);
    return true;
  } finally {
    await unlink(takeover).catch(() => undefined);
  }
}

const TAKEOVER_STALE_MS = 10_000;

/** Whether a process with this pid runs (one of another user's counts: it cannot be signalled, but it is there). */
export function isRunning(pid: number): boolean {
  return systemProbe().alive(pid);
}
