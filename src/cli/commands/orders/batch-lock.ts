import { stat, unlink } from '../../../open-file.js';
import { createNewFile, FileTooLargeError, MAX_PID_FILE_BYTES, readIfExists } from '../../../safe-file.js';
import { formatMark, markRunning, parseMark, sameMark, type ProcessMark, type ProcessProbe } from '../../../process-mark.js';
import { CliError } from '../../errors.js';
import { resultsFolderError } from './batch-ledger.js';

/*
 * One batch run per ledger at a time: `LEDGER.lock` names its owner (its pid, and on Linux its start:
 * src/process-mark.ts). A lock whose owner is gone (SIGKILL, a crash, a reboot, its pid since given to another
 * process) is taken over at once, so a resume right after a crash just works; a live owner makes the second run refuse,
 * never interleave. Takeovers are serialised by a second exclusive file, so two resumers never both get in.
 */

const TAKEOVER_STALE_MS = 10_000;

/** `ledgerPath`: the results file the lock at `path` sits beside, whose folder's trouble it shares. */
async function createExclusive(path: string, owner: ProcessMark, ledgerPath: string): Promise<boolean> {
  try {
    await createNewFile(path, formatMark(owner), { durable: false });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw resultsFolderError(ledgerPath, error, 'write') ?? error;
  }
}

/** The owner a lock names; null when it names none; undefined when there is no lock. */
async function ownerOf(path: string): Promise<ProcessMark | null | undefined> {
  // A lock too long for an owner names none, as one with other text does.
  const text = await readIfExists(path, { maxBytes: MAX_PID_FILE_BYTES }).then(
    (bytes) => bytes?.toString('utf8'),
    (error: unknown) => (error instanceof FileTooLargeError ? 'not a pid' : Promise.reject(error)),
  );
  if (text === undefined) return undefined;
  // A lock caught between creation and its owner (a crash there) has no owner to wait for.
  return parseMark(text) ?? null;
}

/** Takes the ledger's lock; resolves to its release. Refuses (exit 1) while another live batch holds it. */
export async function lockLedger(ledgerPath: string, processes: ProcessProbe): Promise<() => Promise<void>> {
  const lockPath = `${ledgerPath}.lock`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(lockPath, processes.own, ledgerPath)) {
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(lockPath).catch(() => undefined);
      };
    }
    const owner = await ownerOf(lockPath);
    if (owner === undefined) continue; // released meanwhile
    if (owner !== null && markRunning(owner, processes)) {
      throw new CliError(
        `Another batch (process ${owner.pid}) is using ${ledgerPath}; wait for it to finish, or stop it first (a lock left by a process that no longer runs is taken over).`,
      );
    }
    const takeover = `${lockPath}.takeover`;
    if (await createExclusive(takeover, processes.own, ledgerPath)) {
      try {
        if (sameMark(await ownerOf(lockPath), owner)) await unlink(lockPath).catch(() => undefined);
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
      const abandoned = taker !== undefined && taker !== null && !markRunning(taker, processes);
      if (abandoned || (since !== undefined && Date.now() - since > TAKEOVER_STALE_MS)) {
        if (taker !== undefined && sameMark(await ownerOf(takeover), taker)) await unlink(takeover).catch(() => undefined);
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  throw new CliError(`Could not take the lock ${lockPath}: other runs keep taking it; try again.`);
}
