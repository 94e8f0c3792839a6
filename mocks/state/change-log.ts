import { nodeZlib } from '../core/builtins.js';
import { FileTooLargeError, readIfExists, type UnsafeFileError } from '../../src/safe-file.js';
import { tableKeys } from '../store/table-keys.js';
import { MAX_STATE_JOURNAL_BYTES, refusedBySize } from './limits.js';
import { SnapshotError, type SandboxChanges } from './snapshot.js';

/**
 * The change log: the state file's write-ahead log, kept beside it as FILE.journal (the name on disk, in messages and
 * in `journal_id` stays as users know it; in code "journal" means the request journal, inspect/request-journal.ts).
 * One line per commit, `{ journal_id, seq, ...changes, crc }`,
 * appended and flushed before the commit's request is answered. Only lines with the snapshot's `journal_id` continue
 * it. `crc` is the CRC-32 of the line without it, so that a changed byte is found rather than replayed.
 */
export interface ChangeLogLine extends SandboxChanges {
  journal_id: string;
  seq: number;
}

/** A complete line of the journal that is damaged (it does not parse, fails its checksum or is out of order). */
export class JournalDamagedError extends SnapshotError {
  override name = 'JournalDamagedError';
  constructor(
    readonly path: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`The state journal ${path} is damaged at line ${line} (${reason}).`);
  }
}

/** A line that --repair left out, and the invoice codes it named (those orders are gone from the state). */
export interface DroppedLine {
  line: number;
  bytes: number;
  reason: string;
  invoiceCodes: string[];
}

export interface ChangeLogRead {
  entries: SandboxChanges[];
  /** Bytes up to the end of the last complete line: where appending goes on. */
  validBytes: number;
  fileBytes: number;
  seq: number;
  /** A last line with no newline: a crash mid-write, never acknowledged, so left out. */
  torn: { line: number; bytes: number } | undefined;
  /** Damaged lines left out (only with `repair`; without it the first one is thrown). */
  dropped: DroppedLine[];
}

/** The text written for one commit. */
export function changeLogLineText(line: ChangeLogLine): string {
  const json = JSON.stringify(line);
  const checksum = nodeZlib().crc32(json).toString(16).padStart(8, '0');
  return `${json.slice(0, -1)},"crc":"${checksum}"}\n`;
}

const CHECKSUM_TAIL = /,"crc":"([0-9a-f]{8})"\}$/;

/**
 * The journal's lines that continue the snapshot (those with its id), in order. A torn last line (no newline) was
 * never acknowledged and is left out; any complete line that is damaged throws JournalDamagedError naming it, or
 * with `repair` is left out and listed in `dropped`.
 */
export async function readChangeLog(
  path: string,
  journalId: string | undefined,
  options: { repair?: boolean } = {},
): Promise<ChangeLogRead> {
  let buffer: Buffer | undefined;
  try {
    // Its only name, as it is written in place: through a hard link it would write another file.
    buffer = await readIfExists(path, { soleName: true, maxBytes: MAX_STATE_JOURNAL_BYTES });
  } catch (error) {
    if (error instanceof Error && error.name === 'UnsafeFileError') throw SnapshotError.ofUnsafeFile(error as UnsafeFileError);
    if (error instanceof FileTooLargeError)
      throw refusedBySize('state journal', error, 'a journal can grow to before it becomes a new snapshot');
    throw new SnapshotError(`Cannot read the state journal ${path}: ${(error as Error).message}`);
  }
  const read: ChangeLogRead = { entries: [], validBytes: 0, fileBytes: buffer?.length ?? 0, seq: 0, torn: undefined, dropped: [] };
  if (buffer === undefined) return read;
  let offset = 0;
  let lineNumber = 0;
  let foreignId: string | undefined;
  while (offset < buffer.length) {
    lineNumber += 1;
    const end = buffer.indexOf(0x0a, offset);
    if (end === -1) {
      read.torn = { line: lineNumber, bytes: buffer.length - offset };
      break;
    }
    const text = buffer.subarray(offset, end).toString('utf8');
    offset = end + 1;
    read.validBytes = offset;
    const parsed = parseLine(text);
    let reason = typeof parsed === 'string' ? parsed : undefined;
    if (typeof parsed !== 'string') {
      if (parsed.journal_id === journalId) {
        if (parsed.seq === read.seq + 1 || (options.repair === true && parsed.seq > read.seq)) {
          read.seq = parsed.seq;
          const { journal_id: _id, seq: _seq, ...changes } = parsed;
          read.entries.push(changes);
        } else reason = `entry ${parsed.seq} follows ${read.seq}`;
      } else if (read.seq > 0 || (foreignId !== undefined && foreignId !== parsed.journal_id)) {
        // An older journal's lines (a crash between a new snapshot and emptying its journal) only come first.
        reason = "a line of another journal among this one's";
      } else foreignId = parsed.journal_id;
    }
    if (reason === undefined) continue;
    if (options.repair !== true) throw new JournalDamagedError(path, lineNumber, reason);
    read.dropped.push({
      line: lineNumber,
      bytes: Buffer.byteLength(text) + 1,
      reason,
      invoiceCodes: [...new Set(text.match(/INV\d{14}/g))],
    });
  }
  return read;
}

/** The line, or why it is damaged. */
function parseLine(text: string): ChangeLogLine | string {
  const tail = CHECKSUM_TAIL.exec(text);
  if (tail === null) return 'it has no checksum';
  const json = `${text.slice(0, tail.index)}}`;
  if (nodeZlib().crc32(json).toString(16).padStart(8, '0') !== tail[1]) return 'its checksum does not match';
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return 'it is not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it is not an object';
  const line = value as Partial<ChangeLogLine>;
  if (typeof line.journal_id !== 'string') return 'journal_id is not a string';
  if (!Number.isSafeInteger(line.seq) || line.seq! < 1) return 'seq is not a positive whole number';
  if (!Number.isFinite(line.clock_offset_ms)) return 'clock_offset_ms is not a number';
  const counters = line.counters as Record<string, unknown> | undefined;
  if (counters === null || typeof counters !== 'object' || !['invoice', 'transaction'].every((k) => isCount(counters[k])))
    return 'counters are not whole numbers';
  if (line.tables === null || typeof line.tables !== 'object' || Array.isArray(line.tables)) return 'tables is not an object';
  for (const [name, change] of Object.entries(line.tables)) {
    if (!Object.hasOwn(tableKeys, name)) return `it names an unknown table '${name}'`;
    if (
      change === null ||
      typeof change !== 'object' ||
      !Array.isArray(change.put) ||
      !Array.isArray(change.remove) ||
      !change.put.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r)) ||
      !change.remove.every((k) => typeof k === 'string')
    )
      return `its change to '${name}' is malformed`;
  }
  return line as ChangeLogLine;
}

const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
