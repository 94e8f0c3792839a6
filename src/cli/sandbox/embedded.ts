import { dirname } from 'node:path';
import { ensurePrivateDir } from '../../safe-file.js';
import type { SandboxRequest, SandboxResponse } from '../../../mocks/facade/exchange.js';
import {
  DEFAULT_SANDBOX_URL,
  JournalDamagedError,
  OrphanJournalError,
  persistentSandboxSession,
  requestLogFile,
  seedAccount,
  SnapshotError,
  STATE_LOCK_WAIT_MS,
  StateFolderError,
  StateLockedError,
  type RequestLogFile,
  type Sandbox,
} from '../../../mocks/facade/embedded.js';
import type { JournalEntry } from '../../../mocks/facade/requests.js';
import { finalFetchError } from '../../client/http.js';
import { CliError } from '../errors.js';

/**
 * The embedded sandbox, whose state lives in a file in the config folder (mocks/state/: snapshot, journal, pid lock).
 * The lock is held only around each operation: take it, load what is on disk now (so a change another process made
 * since is seen), do the one request or control move, write what it changed, let go. Never across a wait, a watch
 * interval or a prompt, so `topup invoices status --wait` in one terminal and `topup mock pay` in another both work.
 */
export interface EmbeddedSandbox {
  readonly baseUrl: string;
  /** The demo account's token: the seed's public test value. */
  readonly demoToken: string;
  /** One request, under the lock. */
  handle(request: SandboxRequest): Promise<SandboxResponse>;
  /** The log of the requests it answered, command after command (mocks/state/request-log.ts). */
  readonly requestLog: RequestLogFile;
  /**
   * `work` on the sandbox as it is on disk now, under the lock; what it changes is on disk before the lock goes.
   * `fresh` starts from the seed; `request`, the one request `work` sends: the state's history is read only if it needs it.
   */
  use<T>(work: (sandbox: Sandbox) => Promise<T>, options?: UseOptions): Promise<T>;
}

type UseOptions = { fresh?: boolean; repair?: boolean; request?: SandboxRequest };

export interface EmbeddedSandboxOptions {
  /** Told what opening the state left out or set aside (a torn last line, what a repair dropped), a sentence each. */
  onNotice?: (text: string) => void;
}

export function embeddedSandbox(file: string, options: EmbeddedSandboxOptions = {}): EmbeddedSandbox {
  const log = requestLogFile(file);
  // Keeps the sandbox between this process's operations while no other process changes the file (mocks/state/).
  const session = persistentSandboxSession(file);
  const use = async <T>(work: (sandbox: Sandbox) => Promise<T>, useOptions: UseOptions = {}): Promise<T> => {
    await ensurePrivateDir(dirname(file)).catch((error: unknown) => {
      throw finalFetchError(new CliError((error as Error).message));
    });
    let opened = false;
    const onOpened = async (sandbox: Sandbox, notices: readonly string[]): Promise<T> => {
      opened = true;
      for (const notice of notices) options.onNotice?.(notice);
      // What this command sent goes to the log beside the state, for `topup mock logs` to show later.
      const answered: JournalEntry[] = [];
      const stopListening = sandbox.requests.subscribe((entry) => answered.push(entry));
      try {
        return await work(sandbox);
      } catch (error) {
        throw unreadable(error);
      } finally {
        stopListening();
        // Under the lock still, so two commands never interleave their ids. A log that cannot be written must not
        // turn a request that was answered (an order made) into a failure the user would retry.
        await log.append(answered).catch(() => undefined);
      }
    };
    try {
      return await session.use(({ sandbox, notices }) => onOpened(sandbox, notices), {
        fresh: useOptions.fresh ?? false,
        repair: useOptions.repair ?? false,
        ...(useOptions.request === undefined ? {} : { request: useOptions.request }),
      });
    } catch (error) {
      if (opened) throw error;
      // Final: the client must report these as they are, not retry them as if the network had failed.
      if (error instanceof StateLockedError)
        throw finalFetchError(
          new CliError(
            error.nameless
              ? error.message
              : `The offline sandbox is busy: another topup command, or a \`topup mock serve\` that began serving it since this command started, has held it for over ${STATE_LOCK_WAIT_MS / 1000} seconds${error.byHolder}; run the command again.`,
          ),
        );
      throw unreadable(error);
    }
  };
  return {
    baseUrl: DEFAULT_SANDBOX_URL,
    demoToken: seedAccount('demo').token.token,
    requestLog: log,
    // A request that reads no history (the catalog, a profile) leaves it unread: at 10k orders, most of the state file.
    handle: (request) => use((sandbox) => sandbox.handle(request), { request }),
    use,
  };
}

function unreadable(error: unknown): unknown {
  if (error instanceof JournalDamagedError || error instanceof OrphanJournalError)
    return finalFetchError(
      new CliError(
        `${error.message.replace(/\.$/, '')}; run \`topup mock state repair\` to keep a copy of it and go on without what is damaged, or \`topup mock reset\` to start over.`,
      ),
    );
  // Its folder cannot hold it: the state may be whole, and a reset would be refused the same way.
  if (error instanceof StateFolderError) return finalFetchError(new CliError(`The offline sandbox cannot use its state: ${error.message}`));
  // A link or a folder in its place: no reset or repair reads through it (they would be refused the same way).
  if (error instanceof SnapshotError && error.unsafeFile !== undefined)
    return finalFetchError(
      new CliError(
        `The offline sandbox's state is unreadable (${error.message.replace(/\.$/, '')}); move ${error.unsafeFile} away and run the command again.`,
      ),
    );
  if (error instanceof SnapshotError)
    return finalFetchError(
      new CliError(
        `The offline sandbox's state is unreadable (${error.message.replace(/\.$/, '')}); run \`topup mock reset\` to start over.`,
      ),
    );
  return error;
}
