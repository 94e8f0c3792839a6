import type { Announcement } from '../../../mocks/facade/announcement.js';
import { CONTROL_HEADER, CONTROL_PREFIX, INSTANCE_HEADER } from '../../contract/sandbox-control.js';

/**
 * Where the config folder's own sandbox answers now: served over HTTP by a running `topup mock serve`, which holds
 * its state and announced itself beside it (mocks/state/announcement.ts), or in this process, from its state file.
 */
export type SandboxHome = { kind: 'in-process' } | ({ kind: 'served' } & Announcement);

export interface LocateDeps {
  /** The CLI's fetch for servers (http-fetch.ts), loaded only when there is an announcement to check. */
  fetch(): Promise<typeof globalThis.fetch>;
  signal?: AbortSignal | undefined;
  /** Told, in one sentence, why an announcement was ignored. */
  onNotice(text: string): void;
}

/** How long the served sandbox has to show who it is: it is on this machine and answers at once, or is not it. */
export const IDENTIFY_TIMEOUT_MS = 2_000;

/**
 * The announcement beside the state file, trusted only once both checks pass, and before any token is sent: its
 * process runs, and what answers at its URL (a token-less GET of the control API) names the announced instance. A
 * process that died leaves it stale, and another one may have its port by now. Anything else is said and ignored:
 * the in-process sandbox answers then, with the same state (a killed server's lock is taken over at once).
 */
export async function locateSandbox(stateFile: string, deps: LocateDeps): Promise<SandboxHome> {
  const { readAnnouncement } = await import('../../../mocks/facade/announcement.js');
  const reading = await readAnnouncement(stateFile);
  if (reading.kind === 'none') return { kind: 'in-process' };
  if (reading.kind === 'refused') {
    deps.onNotice(`Ignoring ${reading.path}: ${reading.reason}.`);
    return { kind: 'in-process' };
  }
  const { announcement } = reading;
  const stale = (why: string) => {
    deps.onNotice(`Ignoring the announcement of a sandbox served at ${announcement.url}: ${why}.`);
    return { kind: 'in-process' } as const;
  };
  if (!reading.running) return stale(`its process (pid ${announcement.pid}) is gone`);
  const answered = await identify(announcement.url, deps);
  if (answered === undefined) return stale('nothing answers there now');
  if (answered !== announcement.instance) return stale('another process answers there now');
  return { kind: 'served', ...announcement };
}

/** The instance id of what answers at `url`, '' when it names none, undefined when nothing answers in time. */
async function identify(url: string, deps: LocateDeps): Promise<string | undefined> {
  const fetch = await deps.fetch();
  const timeout = AbortSignal.timeout(IDENTIFY_TIMEOUT_MS);
  try {
    const answer = await fetch(`${url}${CONTROL_PREFIX}/clock`, {
      method: 'GET',
      // No token, no secret: only the headers of the answer are read.
      headers: { [CONTROL_HEADER]: '1' },
      redirect: 'manual',
      signal: deps.signal === undefined ? timeout : AbortSignal.any([deps.signal, timeout]),
    });
    return answer.headers.get(INSTANCE_HEADER) ?? '';
  } catch {
    if (deps.signal?.aborted) throw deps.signal.reason;
    return undefined;
  }
}
