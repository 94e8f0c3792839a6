import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { JournalEntry } from '../../../mocks/facade/requests.js';
import { CONTROL_HEADER, CONTROL_SECRET_HEADER, INSTANCE_HEADER } from '../../contract/sandbox-control.js';
import { abortableSleep } from '../../abort.js';
import { ConnectionError, UsageError } from '../../errors.js';

export interface FollowOptions {
  /** The sandbox's base URL and the filters, as query parameters of /__sandbox/requests/stream. */
  baseUrl: string;
  query: URLSearchParams;
  /** The sandbox's control secret (TOPUP_SANDBOX_CONTROL_SECRET), sent when set. */
  controlSecret?: string | undefined;
  /** Ends the follow (Ctrl-C); the promise then rejects with the signal's reason. */
  signal: AbortSignal;
  onEntry(entry: JournalEntry): void;
  /**
   * Told when the connection is lost and when it is back, so the user knows why nothing arrives: `restarted` when
   * what answers is another run of the sandbox (its journal begins again, and all of it is new).
   */
  onConnection?(state: 'lost' | 'back' | 'restarted'): void;
}

const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

/**
 * Follows a served sandbox's request stream (Server-Sent Events) until the signal aborts. When the sandbox goes away,
 * it reconnects with Last-Event-ID, so nothing the sandbox still holds is missed. What answers then may be a new run
 * of the sandbox (its X-Topup-Sandbox-Instance differs), whose journal began again at 1: its ids say nothing of
 * what was shown, so it is followed from its start, and the requests it answered before the reconnection are shown
 * too. Over node:http directly: the CLI's fetch reads whole bodies, and a stream never ends.
 */
export async function followJournal(options: FollowOptions): Promise<never> {
  let lastId: number | undefined;
  let instance: string | undefined;
  let everConnected = false;
  let lost = false;
  /** The sandbox that answered the last connection is another run than the one before. */
  let restarted = false;
  let attempt = 0;
  for (;;) {
    try {
      await streamOnce(
        options,
        lastId,
        (entry) => {
          lastId = entry.id;
          options.onEntry(entry);
        },
        (answeredBy) => {
          if (answeredBy !== undefined && answeredBy !== instance) {
            const before = instance;
            instance = answeredBy;
            // Connected with an id of another run (or the listing's after_id): asked again from its start, at once.
            if (before !== undefined) {
              restarted = true;
              if (lastId !== 0) {
                lastId = 0;
                throw new InstanceChanged();
              }
            }
          }
          everConnected = true;
          attempt = 0;
          if (lost) options.onConnection?.(restarted ? 'restarted' : 'back');
          lost = false;
          restarted = false;
        },
      );
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (error instanceof StreamRefused) throw new UsageError(error.message);
      if (error instanceof InstanceChanged) continue;
      // Nothing to follow yet: say so at once rather than wait for a sandbox that may never start.
      if (!everConnected)
        throw new ConnectionError(`Could not reach ${new URL(options.baseUrl).origin}. Is \`topup mock serve\` running there?`);
    }
    if (!lost) options.onConnection?.('lost');
    lost = true;
    await abortableSleep(RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]!, options.signal);
  }
}

/** The sandbox answered, but not with a stream: no point in retrying. */
class StreamRefused extends Error {}

/** What answered is another run of the sandbox than the ids sent were of: connect again, from its start. */
class InstanceChanged extends Error {}

function streamOnce(
  options: FollowOptions,
  lastId: number | undefined,
  onEntry: (entry: JournalEntry) => void,
  onOpen: (instance: string | undefined) => void,
): Promise<void> {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/__sandbox/requests/stream`);
  url.search = options.query.toString();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        headers: {
          accept: 'text/event-stream',
          [CONTROL_HEADER]: '1',
          ...(options.controlSecret === undefined ? {} : { [CONTROL_SECRET_HEADER]: options.controlSecret }),
          ...(lastId === undefined ? {} : { 'last-event-id': String(lastId) }),
        },
        signal: options.signal,
      },
      (response: IncomingMessage) => {
        if (response.statusCode !== 200 || response.headers[CONTROL_HEADER] !== '1') {
          response.resume();
          reject(
            new StreamRefused(
              `${url.origin} did not stream its request log (status ${response.statusCode}); \`topup mock logs\` follows only a served topup sandbox.`,
            ),
          );
          return;
        }
        const instance = response.headers[INSTANCE_HEADER];
        try {
          onOpen(typeof instance === 'string' ? instance : undefined);
        } catch (error) {
          response.destroy();
          reject(error);
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
            buffer = buffer.slice(end + 2);
            if (data !== undefined) onEntry(JSON.parse(data) as JournalEntry);
          }
        });
        response.once('end', resolve);
        response.once('error', reject);
      },
    );
    request.once('error', reject);
    request.end();
  });
}
