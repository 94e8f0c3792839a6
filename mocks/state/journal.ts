import { readFile } from 'node:fs/promises';
import { SnapshotError, type SandboxChanges } from './snapshot.js';

/**
 * The journal beside a state file (FILE.journal): one line per commit, `{ journal_id, seq, ...changes }`, appended
 * and flushed before the commit's request is answered. Only lines with the snapshot's `journal_id` continue it.
 */
export interface JournalLine extends SandboxChanges {
  journal_id: string;
  seq: number;
}

/**
 * The journal's lines that continue the snapshot (those with its id), in order. A torn tail (an unfinished or
 * unparseable last stretch, with no valid line after it) was never acknowledged and is left out; anything else
 * unreadable means the file was damaged.
 */
export async function readJournal(
  path: string,
  journalId: string,
): Promise<{ entries: SandboxChanges[]; validBytes: number; fileBytes: number; seq: number }> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], validBytes: 0, fileBytes: 0, seq: 0 };
    throw new SnapshotError(`Cannot read the state journal ${path}: ${(error as Error).message}`);
  }
  const entries: SandboxChanges[] = [];
  let seq = 0;
  let offset = 0;
  let validBytes = 0;
  let tornAt: number | undefined;
  while (offset < buffer.length) {
    const end = buffer.indexOf(0x0a, offset);
    const line = parseLine(buffer.subarray(offset, end === -1 ? buffer.length : end));
    if (tornAt === undefined) {
      if (line === undefined || end === -1) tornAt = offset;
      else {
        if (line.journal_id === journalId) {
          if (line.seq !== seq + 1) throw new SnapshotError(`The state journal ${path} is damaged: entry ${line.seq} follows ${seq}.`);
          seq = line.seq;
          const { journal_id: _id, seq: _seq, ...changes } = line;
          entries.push(changes);
        }
        validBytes = end + 1;
      }
    } else if (line !== undefined) {
      throw new SnapshotError(`The state journal ${path} is damaged: an unreadable entry lies before readable ones.`);
    }
    if (end === -1) break;
    offset = end + 1;
  }
  return { entries, validBytes, fileBytes: buffer.length, seq };
}

function parseLine(bytes: Buffer): JournalLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const line = value as Partial<JournalLine>;
  if (typeof line.journal_id !== 'string' || !Number.isSafeInteger(line.seq) || typeof line.clock_offset_ms !== 'number') return undefined;
  if (line.counters === null || typeof line.counters !== 'object' || line.tables === null || typeof line.tables !== 'object')
    return undefined;
  for (const change of Object.values(line.tables)) {
    if (
      change === null ||
      typeof change !== 'object' ||
      !Array.isArray(change.put) ||
      !Array.isArray(change.remove) ||
      !change.remove.every((k) => typeof k === 'string')
    )
      return undefined;
  }
  return line as JournalLine;
}
