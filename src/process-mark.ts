import { readlinkSync } from 'node:fs';
import { readIfExistsSync } from './safe-file.js';

/*
 * Who holds a lock: a process id, and on Linux what tells that process apart from a later one given the same id. A
 * lock that named its owner by pid alone was never taken over once the pid was given to another process: after a
 * reboot (pids start again from 1), and in a container, where a restarted command often gets the very pid its killed
 * predecessor had. Every later command then waited for a process that would never let go.
 *
 * The mark adds the kernel's boot id, the pid namespace, and the process's start time in clock ticks since boot
 * (/proc/PID/stat, field 22): a pid with another start time, or a mark from another boot, is another process. Where
 * /proc says nothing (macOS, Windows, a /proc mounted with hidepid), the pid alone decides, as before.
 */

/** A process as a lock file names it. */
export interface ProcessMark {
  readonly pid: number;
  /** `BOOT_ID:PID_NAMESPACE:START_TICKS` on Linux; absent where that cannot be known. */
  readonly start?: string;
}

/** What the system tells about processes; the real one reads /proc, tests give their own. */
export interface ProcessProbe {
  /** This process. */
  readonly own: ProcessMark;
  /** Whether some process has this pid (one of another user's counts). */
  alive(pid: number): boolean;
  /** The mark of the process that has this pid now, as `own.start` would be written; undefined when unknown. */
  startOf(pid: number): string | undefined;
}

/** A lock file's text: `PID` or `PID START`. */
export function formatMark(mark: ProcessMark): string {
  return mark.start === undefined ? String(mark.pid) : `${mark.pid} ${mark.start}`;
}

/**
 * Whether a lock still names the owner it named when it was read (null: it named none); undefined (no lock) never
 * matches. A lock is removed only when it does, so that a lock another process took meanwhile is left alone.
 */
export function sameMark(found: ProcessMark | null | undefined, read: ProcessMark | null): boolean {
  if (found === undefined) return false;
  if (found === null || read === null) return found === read;
  return found.pid === read.pid && found.start === read.start;
}

const START = /^[0-9a-f-]{1,64}:\d{1,20}:\d{1,20}$/;

/** A lock file's text read back; undefined for anything that names no process (damaged, or half-written by hand). */
export function parseMark(text: string): ProcessMark | undefined {
  const match = /^(\d{1,10})(?: (\S+))?$/.exec(text.trim());
  if (match === null) return undefined;
  const pid = Number(match[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (match[2] === undefined) return { pid };
  return START.test(match[2]) ? { pid, start: match[2] } : undefined;
}

/**
 * Whether the process a mark names still runs. A mark from another boot never does. One from this boot and this pid
 * namespace runs only while its pid has the same start time (so a mark naming this very pid, with another start, is a
 * predecessor that died). Without a start, or from another namespace (a container's pid means another process
 * here), the pid decides: this process, or a live one, holds it.
 */
export function markRunning(mark: ProcessMark, probe: ProcessProbe): boolean {
  const recorded = mark.start === undefined ? undefined : splitStart(mark.start);
  const own = probe.own.start === undefined ? undefined : splitStart(probe.own.start);
  // Another pid namespace first: a container (systemd-nspawn) may have a boot id of its own, so only the pid can say.
  const sameNamespace = recorded !== undefined && own !== undefined && recorded.namespace === own.namespace;
  if (sameNamespace && recorded.boot !== own.boot) return false;
  const comparable = sameNamespace && recorded.boot === own.boot;
  if (mark.pid === probe.own.pid) return comparable ? mark.start === probe.own.start : true;
  if (!probe.alive(mark.pid)) return false;
  if (!comparable) return true;
  const now = probe.startOf(mark.pid);
  // Alive but unreadable (hidepid, or it exited just now and its pid is free): only a start that differs says "gone".
  return now === undefined || now === mark.start;
}

function splitStart(start: string): { boot: string; namespace: string } {
  const [boot = '', namespace = ''] = start.split(':');
  return { boot, namespace };
}

/** The probe of this system, made on first use (a command that takes no lock reads nothing of /proc). */
export function systemProbe(): ProcessProbe {
  return (system ??= {
    own: { pid: process.pid, ...startField(linuxStart(process.pid)) },
    alive: pidAlive,
    startOf: linuxStart,
  });
}

let system: ProcessProbe | undefined;

function startField(start: string | undefined): { start?: string } {
  return start === undefined ? {} : { start };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This boot's id and pid namespace, read once; undefined off Linux. */
let here: { boot: string; namespace: string } | null | undefined;

function linuxHere(): { boot: string; namespace: string } | undefined {
  if (here === undefined) {
    // A /proc that is not this pid namespace's (`unshare -p` without its own /proc) shows other processes by our pids.
    let ours: boolean;
    try {
      ours = readlinkSync('/proc/self') === String(process.pid);
    } catch {
      ours = false;
    }
    const boot = readProc('/proc/sys/kernel/random/boot_id')?.trim();
    let namespace: string | undefined;
    try {
      namespace = /^pid:\[(\d{1,20})\]$/.exec(readlinkSync(`/proc/${process.pid}/ns/pid`))?.[1];
    } catch {
      namespace = undefined;
    }
    here = ours && boot !== undefined && /^[0-9a-f-]{1,64}$/.test(boot) && namespace !== undefined ? { boot, namespace } : null;
  }
  return here ?? undefined;
}

/** The start of the process with this pid in this boot and namespace, as a mark writes it; undefined when unknown. */
function linuxStart(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const where = linuxHere();
  if (where === undefined) return undefined;
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // `PID (COMM) STATE PPID …`: the command's name may hold spaces and parentheses, so fields count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  return ticks !== undefined && /^\d{1,20}$/.test(ticks) ? `${where.boot}:${where.namespace}:${ticks}` : undefined;
}

/** A small /proc file's text; undefined when it cannot be read (gone, hidden, no /proc). */
function readProc(path: string): string | undefined {
  try {
    return readIfExistsSync(path, { maxBytes: 4_096 })?.toString('latin1');
  } catch {
    return undefined;
  }
}
