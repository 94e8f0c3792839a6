import { stat, unlink } from '../../../open-file.js';
import { createNewFile, FileTooLargeError, MAX_PID_FILE_BYTES, readIfExists } from '../../../safe-file.js';
import type { ProcessInfo } from '../../context.js';
import { CliError } from '../../errors.js';
import { resultsFolderError } from './batch-ledger.js';

/*
 * One batch run per ledger at a time: `LEDGER.lock` holds its owner's pid. A lock whose owner is gone (SIGKILL, a
 * crash) is taken over at once, so a resume right after a crash just works; a live owner makes the second run refuse,
 * never interleave. Takeovers are serialised by a second exclusive file, so two resumers never both get in.
 */

const TAKEOVER_STALE_MS = 10_000;

/** `ledgerPath`: the results file the lock at `path` sits beside, whose folder's trouble it shares. */
async function createExclusive(path: string, pid: number, ledgerPath: string): Promise<boolean> {
  try {
    await createNewFile(path, String(pid), { durable: false });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw resultsFolderError(ledgerPath, error, 'write') ?? error;
  }
}

async function ownerOf(path: string): Promise<number | undefined> {
  // A lock too long for a pid holds none, as one with other text does.
  const text = await readIfExists(path, { maxBytes: MAX_PID_FILE_BYTES }).then(
    (bytes) => bytes?.toString('utf8'),
    (error: unknown) => (error instanceof FileTooLargeError ? 'not a pid' : Promise.reject(error)),
  );
  if (text === undefined) return undefined;
  const pid = Number(text.trim());
  // A lock caught between creation and its pid (a crash there) has no owner to wait for.
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

/** Takes the ledger's lock; resolves to its release. Refuses (exit 1) while another live batch holds it. */
export async function lockLedger(ledgerPath: string, processes: ProcessInfo): Promise<() => Promise<void>> {
  const lockPath = `${ledgerPath}.lock`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(lockPath, processes.pid, ledgerPath)) {
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(lockPath).catch(() => undefined);
      };
    }
    const owner = await ownerOf(lockPath);
    if (owner === undefined) continue; // released meanwhile
    if (owner !== 0 && (owner === processes.pid || processes.isRunning(owner))) {
      throw new CliError(
        `Another batch (process ${owner}) is using ${ledgerPath}; wait for it to finish, or stop it first (a lock left by a process that no longer runs is taken over).`,
      );
    }
    const takeover = `${lockPath}.takeover`;
    if (await createExclusive(takeover, processes.pid, ledgerPath)) {
      try {
        if ((await ownerOf(lockPath)) === owner) await unlink(lockPath).catch(() => undefined);
      } finally {
        await unlink(takeover).catch(() => undefined);
      }
    } else {
      // Another run is taking the lock over, or was killed while it did (the crash a resume follows): a takeover whose
      // process no longer runs is removed at once; one whose owner is unknown, once it is stale.
      const taker = await ownerOf(takeover);
      const since = await stat(takeover).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      const abandoned = taker !== undefined && taker !== 0 && taker !== processes.pid && !processes.isRunning(taker);
      if (abandoned || (since !== undefined && Date.now() - since > TAKEOVER_STALE_MS)) {
        if ((await ownerOf(takeover)) === taker) await unlink(takeover).catch(() => undefined);
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  throw new CliError(`Could not take the lock ${lockPath}: other runs keep taking it; try again.`);
}
