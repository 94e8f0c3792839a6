import type { JournalEntry, RequestLogFile } from '../../../mocks/facade/requests.js';
import type { CliClock } from '../clock.js';

export interface FollowLogOptions {
  log: RequestLogFile;
  /** Entries up to this id were shown already. */
  afterId: number;
  /** Ends the follow (Ctrl-C); the promise then rejects with the signal's reason. */
  signal: AbortSignal;
  clock: CliClock;
  onEntry(entry: JournalEntry): void;
}

/** How often the log's size and time are looked at; it is read only when they changed. */
export const REQUEST_LOG_POLL_MS = 200;

/**
 * Follows the embedded sandbox's request log (mocks/state/request-log.ts) until the signal aborts: the sandbox is no
 * server, so there is no stream; the log is looked at a few times a second and read only when it changed.
 */
export async function followRequestLog(options: FollowLogOptions): Promise<never> {
  let lastId = options.afterId;
  let seen: string | undefined;
  for (;;) {
    const version = await options.log.version();
    if (version !== seen) {
      seen = version;
      const entries = await options.log.read();
      // A log started over (its files were removed) begins again at 1: show it from there.
      if ((entries.at(-1)?.id ?? lastId) < lastId) lastId = 0;
      for (const entry of entries) {
        if (entry.id > lastId) {
          lastId = entry.id;
          options.onEntry(entry);
        }
      }
    }
    await options.clock.sleep(REQUEST_LOG_POLL_MS, options.signal);
  }
}
