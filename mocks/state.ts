import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { SnapshotError, type SandboxSnapshot } from './snapshot.js';

/**
 * Writes the snapshot beside the target, flushes it to disk, then renames it over the target.
 * A crash at any moment leaves either the old file or the new one, never a torn one.
 */
export async function writeStateFile(file: string, snapshot: SandboxSnapshot): Promise<void> {
  // Serialised before the first await: nothing may change what is written after this call.
  const text = JSON.stringify(snapshot);
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(file));
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
}

/** The parsed snapshot, or undefined when the file does not exist yet. */
export async function readStateFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotError(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SnapshotError(`The state file ${file} is not valid JSON.`);
  }
}

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

/**
 * Takes the state file's lock for as long as this process reads and writes it, so that two processes on one
 * state file take turns instead of overwriting each other's changes. The lock file holds the owner's pid: a lock
 * whose owner is gone (a crash, a SIGKILL) is taken over at once, which an age-based lock could only do later.
 * Resolves to the release function.
 */
export async function lockStateFile(file: string, options: { waitMs?: number } = {}): Promise<() => Promise<void>> {
  const lockPath = `${file}.lock`;
  const waitMs = options.waitMs ?? 15_000;
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(lockPath).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await removeIfAbandoned(lockPath)) continue;
    if (Date.now() - started >= waitMs) throw new StateLockedError(`The state file ${file} is in use by another process.`);
    await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 35));
  }
}

/** Removes a lock whose owner process no longer runs. */
async function removeIfAbandoned(lockPath: string): Promise<boolean> {
  let owner: number;
  try {
    owner = Number((await readFile(lockPath, 'utf8')).trim());
  } catch {
    return true; // released between our attempts: try again
  }
  // An empty or unreadable pid is a lock being written right now, not an abandoned one.
  if (!Number.isSafeInteger(owner) || owner <= 0 || owner === process.pid || isRunning(owner)) return false;
  await unlink(lockPath).catch(() => undefined);
  return true;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
