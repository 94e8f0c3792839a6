import type { BigIntStats } from 'node:fs';
import { HISTORY_TABLES, isHistoryTable } from '../store/db.js';
import { readIfExistsSync, replaceFile, type FilePart } from '../../src/safe-file.js';
import type { SandboxSnapshot } from './snapshot.js';
import type { OrderType } from '../../src/contract/index.js';
import { magicOutcomeOf } from '../store/magic-values.js';
import type { DeferredMoves } from '../store/store.js';

/*
 * A state file as the sandbox writes it keeps an account's history (the tables that grow with every order) after
 * everything else, and a small file beside it (FILE.layout) says where that history begins, for the one file it
 * describes by its exact stats. A command that needs no history (the catalog, a profile, a token check) then reads
 * and checks the head alone: at 10k orders some 50 KB of 7 MB. The history is read, checked with the rest (the state
 * whole, as at any open) and restored the first time a request needs it (mocks/state/snapshot.ts deferHistory).
 * The layout is only ever a shortcut: a file it does not describe exactly (edited, copied, replaced by anything but
 * this writer) is read whole, as any state file is.
 */

/** A layout file is a few hundred bytes; a larger one is no layout of ours, and is not read. */
const MAX_LAYOUT_BYTES = 4096;
const LAYOUT_VERSION = 1;

/** The stats that tell a file from any other and from itself changed: device, inode, size, both times in ns. */
function identityOf(stats: BigIntStats): FileIdentity {
  return {
    dev: String(stats.dev),
    ino: String(stats.ino),
    size: String(stats.size),
    mtime_ns: String(stats.mtimeNs),
    ctime_ns: String(stats.ctimeNs),
  };
}

interface FileIdentity {
  dev: string;
  ino: string;
  size: string;
  mtime_ns: string;
  ctime_ns: string;
}

/** What FILE.layout says: the file it describes, where its history begins, and what in it may move by itself. */
export interface StateLayout {
  identity: FileIdentity;
  headBytes: number;
  moves: HistoryMoves;
}

/**
 * What in a history the sandbox may move by itself (mocks/rules/timed-moves.ts), for a head-only read to know when
 * a move could be due without reading it (Store.deferredMayMoveBy).
 */
export type HistoryMoves = DeferredMoves;

/** A history whose moves are not known: as if one were due now. */
const UNKNOWN_MOVES: HistoryMoves = { expiresFrom: null, pendingFrom: null, watched: true };

/**
 * The moves of invoices and orders folded into `moves`: a state's records, or a journal's (not yet checked: one this
 * cannot read counts as a move due now).
 */
export function foldHistoryMoves(moves: HistoryMoves, tables: { invoices?: unknown; orders?: unknown }): HistoryMoves {
  let { expiresFrom, pendingFrom, watched } = moves;
  const earliest = (at: number | null, value: unknown): number | null => {
    if (typeof value === 'number' && Number.isFinite(value)) return at === null ? value : Math.min(at, value);
    watched = true;
    return at;
  };
  if (Array.isArray(tables.invoices))
    for (const invoice of tables.invoices as { payment_status?: unknown; expires_at?: unknown; created_at?: unknown }[]) {
      if (invoice === null || typeof invoice !== 'object') watched = true;
      else if (invoice.payment_status === 'pending') {
        expiresFrom = earliest(expiresFrom, invoice.expires_at);
        pendingFrom = earliest(pendingFrom, invoice.created_at);
      }
    }
  if (Array.isArray(tables.orders))
    for (const order of tables.orders as { order_type: OrderType; place_id: number; platform_pass_id: number; status?: unknown }[]) {
      if (order === null || typeof order !== 'object') watched = true;
      else if ((order.status === 'pending' || order.status === 'processing') && magicOutcomeOf(order) !== undefined) watched = true;
    }
  return { expiresFrom, pendingFrom, watched };
}

const NO_MOVES: HistoryMoves = { expiresFrom: null, pendingFrom: null, watched: false };

export const layoutPath = (file: string) => `${file}.layout`;

/**
 * The snapshot as a state file's text, history last: `{…envelope…,"tables":{…head tables…,…history tables…}}`.
 * `headBytes` is where the history begins: the text before it, closed with `}}`, is the snapshot without its
 * history; from one byte past it to one before the end, opened with `{`, is the history's tables.
 */
export function layoutText(snapshot: SandboxSnapshot): { text: string; headBytes: number; moves: HistoryMoves } {
  const { tables, ...envelope } = snapshot;
  const head: Record<string, unknown> = {};
  const history: Record<string, unknown> = {};
  for (const [name, records] of Object.entries(tables)) if (!isHistoryTable(name)) head[name] = records;
  // In this order: a head read checks that the first of them follows it (headPart).
  for (const name of HISTORY_TABLES) history[name] = tables[name];
  const opening = `${JSON.stringify(envelope).slice(0, -1)},"tables":`;
  const headText = opening + JSON.stringify(head).slice(0, -1);
  const text = `${headText},${JSON.stringify(history).slice(1)}}`;
  return { text, headBytes: Buffer.byteLength(headText), moves: foldHistoryMoves(NO_MOVES, tables) };
}

/**
 * The part of the file a layout says is its head, with the text that must follow it (HISTORY_BOUNDARY) so that a head
 * that ends anywhere else is never taken for one; undefined: read the whole file.
 */
export function headPart(layout: StateLayout | undefined, stats: BigIntStats): FilePart | undefined {
  if (layout === undefined || !sameFile(layout, stats)) return undefined;
  return { start: 0, length: layout.headBytes + HISTORY_BOUNDARY.length };
}

/** What follows a head in a file written by layoutText: the history's first table. */
const HISTORY_BOUNDARY = Buffer.from(`,"${HISTORY_TABLES[0]}":`);

/** The part that holds the history, for a file whose head ends at `headBytes` (the byte after it is a comma). */
export function historyPart(layout: StateLayout): FilePart {
  return { start: layout.headBytes + 1, length: Number(layout.identity.size) - layout.headBytes - 2 };
}

export function sameFile(layout: StateLayout, stats: BigIntStats): boolean {
  const now = identityOf(stats);
  const was = layout.identity;
  return (
    now.dev === was.dev && now.ino === was.ino && now.size === was.size && now.mtime_ns === was.mtime_ns && now.ctime_ns === was.ctime_ns
  );
}

/**
 * The head's text (read as headPart says) as a snapshot's (`{…,"tables":{…head tables…}}`), or undefined when it is
 * not one, or the history does not begin where it ends.
 */
export function parseHead(bytes: Buffer): unknown {
  const headBytes = bytes.length - HISTORY_BOUNDARY.length;
  if (headBytes < 0 || !bytes.subarray(headBytes).equals(HISTORY_BOUNDARY)) return undefined;
  try {
    return JSON.parse(`${bytes.toString('utf8', 0, headBytes)}}}`);
  } catch {
    return undefined;
  }
}

/** The history part's text as its tables, or undefined when it is no JSON object. */
export function parseHistory(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(`{${bytes.toString('utf8')}`);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * FILE.layout, when it is one of ours: read as any file of ours (no link, at most a few KB), checked field by field.
 * Anything else (missing, unreadable, another shape) is no layout, and the state file is read whole.
 */
export function readLayout(file: string): StateLayout | undefined {
  let value: unknown;
  try {
    const bytes = readIfExistsSync(layoutPath(file), { soleName: true, maxBytes: MAX_LAYOUT_BYTES });
    if (bytes === undefined) return undefined;
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { version, file: identity, head_bytes: headBytes } = value as Record<string, unknown>;
  if (version !== LAYOUT_VERSION || !Number.isSafeInteger(headBytes) || (headBytes as number) < 2) return undefined;
  if (identity === null || typeof identity !== 'object') return undefined;
  const fields = identity as Record<string, unknown>;
  const digits = (name: keyof FileIdentity) =>
    typeof fields[name] === 'string' && /^\d{1,30}$/.test(fields[name]) ? fields[name] : undefined;
  const parsed = {
    dev: digits('dev'),
    ino: digits('ino'),
    size: digits('size'),
    mtime_ns: digits('mtime_ns'),
    ctime_ns: digits('ctime_ns'),
  };
  if (Object.values(parsed).some((field) => field === undefined)) return undefined;
  const layout = {
    identity: parsed as FileIdentity,
    headBytes: headBytes as number,
    moves: movesOf((value as Record<string, unknown>).moves),
  };
  // The head, then at least the history's first table's name and the closing braces.
  if (historyPart(layout).length < HISTORY_BOUNDARY.length + 2) return undefined;
  return layout;
}

function movesOf(value: unknown): HistoryMoves {
  if (value === null || typeof value !== 'object') return UNKNOWN_MOVES;
  const { expires_from: expiresFrom, pending_from: pendingFrom, watched } = value as Record<string, unknown>;
  const time = (at: unknown) => at === null || (typeof at === 'number' && Number.isFinite(at));
  if (!time(expiresFrom) || !time(pendingFrom) || typeof watched !== 'boolean') return UNKNOWN_MOVES;
  return { expiresFrom: expiresFrom as number | null, pendingFrom: pendingFrom as number | null, watched };
}

/**
 * Writes FILE.layout for the state file just written (its stats taken after its rename): replaced whole, like the
 * state file. A layout lost in a crash, or left from the file before, describes no file there is, and the state
 * file is then read whole.
 */
export async function writeLayout(file: string, stats: BigIntStats, headBytes: number, moves: HistoryMoves): Promise<void> {
  const layout = {
    version: LAYOUT_VERSION,
    file: identityOf(stats),
    head_bytes: headBytes,
    moves: { expires_from: moves.expiresFrom, pending_from: moves.pendingFrom, watched: moves.watched },
  };
  await replaceFile(layoutPath(file), `${JSON.stringify(layout)}\n`);
}
