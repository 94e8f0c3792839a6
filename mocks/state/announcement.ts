import { unlink } from '../../src/open-file.js';
import { FileTooLargeError, openToRead, readOpened, replaceFile, UnsafeFileError } from '../../src/safe-file.js';
import { isRunning } from './lock.js';

/**
 * The announcement that a state file is being served over HTTP (`topup mock serve` on the CLI's own state), kept
 * beside it as FILE.served, 0600: `{"version": 1, "url": "http://127.0.0.1:4010", "pid": 1234, "instance": "…"}`.
 * Only the process holding the state file's lock writes it, and it removes it before letting the lock go; so under
 * the lock, an announcement that is still there is stale (its server was killed), and openStateFile removes it.
 * Whoever reads it treats it as input from a stranger: every field is checked, and the URL must be loopback.
 */
export interface Announcement {
  /** Where the sandbox answers: an http origin on a loopback address. */
  readonly url: string;
  /** The serving process. */
  readonly pid: number;
  /** The id its every answer carries (the X-Topup-Sandbox-Instance header). */
  readonly instance: string;
}

export type AnnouncementReading =
  | { kind: 'none' }
  /** There is a file, but not one to trust: ignored, and `reason` says why (one sentence, no trailing stop). */
  | { kind: 'refused'; path: string; reason: string }
  /** A well-formed announcement; `running` says whether its process still runs (the caller checks who answers). */
  | { kind: 'found'; path: string; announcement: Announcement; running: boolean };

/** An announcement is a few dozen bytes; anything past this is not one. */
const MAX_ANNOUNCEMENT_BYTES = 4_096;
const INSTANCE = /^[A-Za-z0-9-]{8,64}$/;

export function announcementPath(stateFile: string): string {
  return `${stateFile}.served`;
}

/** Writes the announcement (0600, atomically: a reader sees the old file, the new one or none). */
export async function announce(stateFile: string, served: { url: string; instance: string }): Promise<Announcement> {
  // An origin as URL writes it (`http://127.0.0.1:80` is `http://127.0.0.1`), which is what readers compare against.
  const announcement = { url: new URL(served.url).origin, pid: process.pid, instance: served.instance };
  const problem = announcementProblem({ version: 1, ...announcement });
  // The writer holds itself to what readers accept: one it would refuse is never written.
  if (problem !== undefined) throw new TypeError(`Cannot announce ${served.url}: ${problem}.`);
  await replaceFile(announcementPath(stateFile), `${JSON.stringify({ version: 1, ...announcement })}\n`);
  return announcement;
}

/**
 * Removes the announcement: done by its server as it stops, and under the state file's lock, where any is stale. Never
 * fails: one that cannot be removed (a folder planted at its name) is refused or found stale by every reader anyway.
 */
export async function removeAnnouncement(stateFile: string): Promise<void> {
  await unlink(announcementPath(stateFile)).catch(() => undefined);
}

/** Reads the announcement beside a state file; never throws for what the file holds or is. */
export async function readAnnouncement(stateFile: string): Promise<AnnouncementReading> {
  const path = announcementPath(stateFile);
  let text: string;
  try {
    const handle = await openToRead(path, { soleName: true });
    if (handle === undefined) return { kind: 'none' };
    try {
      const stats = await handle.stat();
      const owner = process.getuid?.();
      if (owner !== undefined && stats.uid !== owner) return refused(path, 'it belongs to another user');
      if ((stats.mode & 0o022) !== 0) return refused(path, 'others can write to it');
      text = (await readOpened(handle, path, MAX_ANNOUNCEMENT_BYTES)).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UnsafeFileError) return refused(path, error.message.replace(/^Refusing to use .*?: |\.$/g, ''));
    if (error instanceof FileTooLargeError) return refused(path, `it is larger than ${MAX_ANNOUNCEMENT_BYTES} bytes`);
    return refused(path, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused(path, 'it is not JSON');
  }
  const problem = announcementProblem(value);
  if (problem !== undefined) return refused(path, problem);
  const { url, pid, instance } = value as Announcement;
  return { kind: 'found', path, announcement: { url, pid, instance }, running: pid === process.pid || isRunning(pid) };
}

function refused(path: string, reason: string): AnnouncementReading {
  return { kind: 'refused', path, reason };
}

/** What is wrong with an announcement, or undefined when nothing is. */
function announcementProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it is not a JSON object';
  const { version, url, pid, instance } = value as Record<string, unknown>;
  if (version !== 1) return 'its version is not 1';
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return 'its pid is not a process id';
  if (typeof instance !== 'string' || !INSTANCE.test(instance)) return 'its instance is not an instance id';
  if (typeof url !== 'string') return 'its url is not text';
  return loopbackOriginProblem(url);
}

/** Only plain http on this machine: the announcement never sends a command (and its token) anywhere else. */
function loopbackOriginProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'its url is not a URL';
  }
  if (parsed.protocol !== 'http:') return 'its url is not http';
  if (parsed.origin !== url) return 'its url is not an origin alone (no path, query, user or trailing slash)';
  const host = parsed.hostname;
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host);
  if (!loopback) return `its url's host ${host} is not a loopback address`;
  return undefined;
}
