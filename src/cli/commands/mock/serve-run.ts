// `topup mock serve`'s run, loaded only when the command runs (the flags and help in ./serve.ts stay on the eager path).
import { unlink } from '../../../open-file.js';
import { realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ensurePrivateDir, replaceFile, writeFailure } from '../../../safe-file.js';
import type { Sandbox } from '../../../../mocks/facade/serve.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { isTopupError } from '../../../errors.js';
import { CONTROL_SECRET_ENV, CONTROL_SECRET_HEADER } from '../../../contract/sandbox-control.js';
import { openInBrowser } from './browser.js';
import { printServing, type ServedState } from './serve-banner.js';
import { readStateArgument } from './state-argument.js';

export interface ServeOptions {
  port: number;
  host: string;
  state?: string | undefined;
  /** In memory, from the seed: not the config folder's sandbox (claims and announces nothing). */
  fresh?: boolean | undefined;
  /** Once listening, write the URL to this file (one line, atomically), for test runners that start it with --port 0. */
  readyFile?: string | undefined;
  /** With --state: go on past a damaged journal, keeping a copy of it (mocks/state/file.ts). */
  repair?: boolean | undefined;
  rateLimit: boolean;
  lean: boolean;
  faults?: string | undefined;
  faultSeed?: number | undefined;
  /** Host names besides the loopback ones under which the control API answers (--allow-host, repeatable). */
  allowHost?: string[] | undefined;
  /** The origin written into invoice links, instead of the listen address (--public-url). */
  publicUrl?: string | undefined;
  /** A 0600 file holding the control secret (else TOPUP_SANDBOX_CONTROL_SECRET). */
  controlSecretFile?: string | undefined;
  /** Refused: a secret on the command line is visible to every user of the machine. */
  controlSecret?: string | undefined;
  /** Print each request to stderr as `topup mock logs` does. */
  log: boolean;
  /** Open the dashboard in the browser once listening. */
  open: boolean;
  /** Requests kept in the journal; 0 keeps none. */
  journalSize: number;
  /** Start from this saved state (a file of `topup mock state save` or GET /__sandbox/state). */
  seed?: string | undefined;
  /** Every new invoice pays itself after this many ms of sandbox time (--auto-pay). */
  autoPay?: number | undefined;
  /** Every new invoice expires after this many ms of sandbox time instead of the usual TTL (--auto-expire). */
  autoExpire?: number | undefined;
  /** The most invoices the sandbox keeps (--max-invoices); its default when not given. */
  maxInvoices?: number | undefined;
  /** Epoch ms the clock of a sandbox in memory starts at (--start-at); it runs on from there. */
  startAt?: number | undefined;
}

type ServeFacade = typeof import('../../../../mocks/facade/serve.js');

/** A sandbox opened for serving, and how to let go of its state file. */
interface OpenedSandbox {
  sandbox: Sandbox;
  close(): Promise<void>;
}

/** `topup mock serve`: the sandbox over HTTP until Ctrl-C. */
export async function runServe(ctx: CliContext, options: ServeOptions): Promise<void> {
  // A runner that reads only the banner (`| head -1`) must not stop the sandbox it started.
  ctx.io.streams.letStdoutClose?.();
  const [facade, { serveControlSecret }] = await Promise.all([
    import('../../../../mocks/facade/serve.js'),
    import('../../control-secret.js'),
  ]);
  const { controlSecret, sandboxOptions, seed } = await checkOptions(ctx, options, facade, serveControlSecret);
  // A runner that waits for the file must never read a previous run's URL: gone before the state is opened, which
  // can take a while (a large --state file, a lock to wait for).
  if (options.readyFile !== undefined) await removeReadyFile(options.readyFile);
  const state = servedState(ctx, options);
  if (state.kind === 'config') await refuseIfServed(ctx, options);
  const opened = await openSandbox(ctx, state, options, sandboxOptions, facade);
  const requestLog = state.kind === 'config' ? keepRequestLog(opened.sandbox, state.file, facade) : undefined;
  try {
    // In memory the sandbox starts from the seed already; a state file's content gives way to it.
    if (seed !== undefined && state.kind !== 'memory') await loadSeed(opened.sandbox, seed, options);
    const server = await listen(opened.sandbox, options, controlSecret, facade);
    const reachUrl = loopbackUrl(options.host, server.url) ?? server.url;
    try {
      if (state.kind === 'config') await facade.announce(state.file, { url: reachUrl, instance: server.instance });
      if (options.readyFile !== undefined) await writeReadyFile(options.readyFile, reachUrl);
      await printServing(ctx, options, {
        state,
        url: server.url,
        reachUrl,
        sandbox: opened.sandbox,
        controlCalls: facade.controlCallLines(),
      });
      await startExtras(ctx, options, opened.sandbox, server.url, controlSecret !== undefined, facade);
      await interrupted(ctx);
    } finally {
      // The announcement goes first: a command started from here on finds the state in the file, once the lock is free.
      if (state.kind === 'config') await facade.removeAnnouncement(state.file);
      await server.close();
      if (options.readyFile !== undefined) await removeReadyFile(options.readyFile);
    }
    ctx.io.notice('Sandbox stopped.');
  } finally {
    await requestLog?.stop();
    await opened.close();
  }
}

/**
 * The config folder's sandbox keeps the log of what it answered beside its state, as the embedded one does, so that
 * `topup mock logs` goes on showing them once this server stops. Appended under the state's lock, which this process
 * holds throughout; a burst is written as one append, and a log that cannot be written never fails a request.
 */
function keepRequestLog(sandbox: Sandbox, file: string, facade: ServeFacade): { stop(): Promise<void> } {
  const log = facade.requestLogFile(file);
  let waiting: Parameters<typeof log.append>[0][number][] = [];
  let writing = Promise.resolve();
  const unsubscribe = sandbox.requests.subscribe((entry) => {
    waiting.push(entry);
    if (waiting.length > 1) return;
    writing = writing.then(async () => {
      const batch = waiting;
      waiting = [];
      await log.append(batch).catch(() => undefined);
    });
  });
  return {
    stop: async () => {
      unsubscribe();
      await writing;
    },
  };
}

/** Every flag checked before anything is opened or listens; the sandbox's options and the control secret. */
async function checkOptions(
  ctx: CliContext,
  options: ServeOptions,
  facade: ServeFacade,
  serveControlSecret: typeof import('../../control-secret.js').serveControlSecret,
) {
  if (options.controlSecret !== undefined)
    throw new UsageError(
      `A control secret is never taken from the command line, where other users of the machine can read it; set ${CONTROL_SECRET_ENV} or use --control-secret-file FILE (mode 0600).`,
    );
  const controlSecret = await serveControlSecret(options.controlSecretFile, ctx.io.env);
  if (options.publicUrl !== undefined) {
    try {
      facade.publicOrigin(options.publicUrl);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  let faults;
  try {
    faults = options.faults === undefined ? undefined : facade.parseFaultSpec(options.faults, options.faultSeed);
  } catch (error) {
    if (error instanceof facade.FaultConfigError) throw new UsageError(error.message);
    throw error;
  }
  if (options.fresh === true && options.state !== undefined)
    throw new UsageError('--fresh serves a sandbox in memory and --state one kept in a file: pick one.');
  const inMemory = options.fresh === true || (options.state === undefined && options.seed !== undefined);
  if (options.repair === true && inMemory)
    throw new UsageError('--repair repairs a state file, and this sandbox is in memory: drop --repair, or add --state FILE.');
  // A state file keeps its clock's offset from the real one: a sandbox kept in a file goes on from its own time.
  if (options.startAt !== undefined && !inMemory)
    throw new UsageError('--start-at sets the clock of a sandbox in memory, and a state file keeps its own: add --fresh or --seed FILE.');
  // Read before anything starts: a seed that cannot be read or loaded is the user's mistake, said at once.
  const seed = options.seed === undefined ? undefined : await readStateArgument(ctx, options.seed);
  const sandboxOptions = {
    rateLimit: options.rateLimit,
    lean: options.lean,
    journalSize: options.journalSize,
    ...(faults === undefined ? {} : { faults }),
    ...(options.autoPay === undefined ? {} : { autoPay: { after: options.autoPay } }),
    ...(options.autoExpire === undefined ? {} : { autoExpire: { after: options.autoExpire } }),
    ...(options.maxInvoices === undefined ? {} : { maxInvoices: options.maxInvoices }),
    // What the sandbox starts from and `reset` goes back to.
    ...(seed === undefined ? {} : { seed }),
    ...(options.startAt === undefined ? {} : { now: clockFrom(options.startAt) }),
  };
  return { controlSecret, sandboxOptions, seed };
}

/** A clock that reads `start` now and runs on in real time from there. */
function clockFrom(start: number): () => number {
  const startedAt = Date.now();
  return () => start + (Date.now() - startedAt);
}

/**
 * --state FILE, else in memory for --fresh or --seed alone (which always started from that seed), else the config
 * folder's. A --state that names the config folder's own state file is that sandbox, served as without --state:
 * announced, so that other topup commands use it rather than wait for its lock and fail.
 */
function servedState(ctx: CliContext, options: ServeOptions): ServedState {
  const configState = options.state === undefined || sameFile(options.state, ctx.sandboxStateFile);
  if (!configState) return { kind: 'file', file: options.state! };
  if (options.state === undefined && (options.fresh === true || options.seed !== undefined)) return { kind: 'memory' };
  if (loopbackUrl(options.host, 'http://127.0.0.1:1') === undefined)
    throw new UsageError(
      options.state === undefined
        ? `Other topup commands reach the config folder's sandbox over loopback, which --host ${options.host} is not: add --state FILE or --fresh to serve a sandbox of its own there.`
        : `${options.state} is the config folder's sandbox, which other topup commands reach over loopback, which --host ${options.host} is not: serve another state file, or --fresh.`,
    );
  return { kind: 'config', file: ctx.sandboxStateFile };
}

/** Whether two paths name one file: the same path once resolved, or the same folder (links followed) and name. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  if (basename(a) !== basename(b)) return false;
  const folderOf = (path: string) => {
    try {
      return realpathSync(dirname(resolve(path)));
    } catch {
      return undefined;
    }
  };
  const folder = folderOf(a);
  return folder !== undefined && folder === folderOf(b);
}

/** Two servers of one state would each lose the other's orders: a live one is named, so that the user can use it. */
async function refuseIfServed(ctx: CliContext, options: ServeOptions): Promise<void> {
  const home = await ctx.sandboxHome();
  if (home.kind === 'served')
    throw new CliError(
      `The config folder's sandbox is already served at ${home.url} (pid ${home.pid}); every topup command here uses it. Start another with --fresh${options.port === 4010 ? ' --port 0' : ''}, or --state FILE.`,
    );
}

/** The sandbox on its state file (locked until `close`: one server per file), or in memory. */
async function openSandbox(
  ctx: CliContext,
  state: ServedState,
  options: ServeOptions,
  sandboxOptions: Parameters<ServeFacade['createSandbox']>[0],
  facade: ServeFacade,
): Promise<OpenedSandbox> {
  if (state.kind === 'memory') {
    const sandbox = await facade.createSandbox(sandboxOptions).catch((error: unknown) => {
      throw seedRefusal(error, options, facade);
    });
    return { sandbox, close: async () => undefined };
  }
  const { file } = state;
  // The config folder may not exist yet (nothing was ever run here): made as every command makes it, 0700.
  if (state.kind === 'config') await ensureConfigDir(file);
  let persistent;
  try {
    // The config folder's state is also the embedded sandbox's, which commands hold a moment each: wait for them.
    persistent = await facade.openPersistentSandbox(file, {
      ...sandboxOptions,
      ...(state.kind === 'file' ? { waitMs: 0 } : {}),
      repair: options.repair ?? false,
    });
  } catch (error) {
    const refused = seedRefusal(error, options, facade);
    if (refused !== error) throw refused;
    if (error instanceof facade.StateLockedError)
      throw new CliError(
        state.kind === 'file'
          ? `${file} is already used by another running sandbox${error.byHolder}.`
          : `The config folder's sandbox (${file}) is held by another process${error.byHolder}; stop it, or start this one with --fresh or --state FILE.`,
      );
    if (error instanceof facade.JournalDamagedError || error instanceof facade.OrphanJournalError)
      throw new CliError(
        `${error.message.replace(/\.$/, '')}; start with --repair to keep a copy of it and go on without what is damaged.`,
      );
    // A state the checks refused names the field; say which file holds it (read errors name it already).
    if (error instanceof facade.SnapshotError)
      throw new CliError(error.message.replace(/^The state cannot be loaded: /, `${file} cannot be loaded: `));
    throw error;
  }
  for (const notice of persistent.notices) ctx.io.warn(ctx.io.errStyle.yellow(notice));
  return { sandbox: persistent.sandbox, close: () => persistent.close() };
}

/** A seed the sandbox refused is the --seed file's fault, said as a usage error naming it. */
function seedRefusal(error: unknown, options: ServeOptions, facade: ServeFacade): unknown {
  return error instanceof facade.SnapshotError && error.message.startsWith('The seed state cannot be loaded: ')
    ? new UsageError(`${options.seed} ${error.message.replace(/^The seed state cannot be loaded: /, 'cannot be loaded: ')}`)
    : error;
}

async function ensureConfigDir(stateFile: string): Promise<void> {
  await ensurePrivateDir(dirname(stateFile)).catch((error: unknown) => {
    throw new CliError(`Cannot use the config folder ${dirname(stateFile)}: ${(error as Error).message}`);
  });
}

async function loadSeed(sandbox: Sandbox, seed: unknown, options: ServeOptions): Promise<void> {
  try {
    await sandbox.control.loadState(seed);
  } catch (error) {
    if (isTopupError(error, 'validation'))
      throw new UsageError(`${options.seed} ${error.message.replace(/^The state cannot be loaded: /, 'cannot be loaded: ')}`);
    throw error;
  }
}

async function listen(sandbox: Sandbox, options: ServeOptions, controlSecret: string | undefined, facade: ServeFacade) {
  try {
    return await facade.startHttpSandbox(sandbox, {
      port: options.port,
      host: options.host,
      allowedHosts: options.allowHost ?? [],
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      ...(controlSecret === undefined ? {} : { controlSecret }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`Port ${options.port} on ${options.host} is already in use; pick another with --port.`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`Cannot listen on host '${options.host}'.`);
    throw error;
  }
}

/**
 * The URL other processes of this machine reach the server at: its own on a loopback address, loopback's when it
 * listens on every interface, undefined when it listens on another address only.
 */
export function loopbackUrl(host: string, url: string): string | undefined {
  const port = new URL(url).port;
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (name === '::') return `http://[::1]:${port}`;
  if (name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name)) return url;
  return undefined;
}

/** --ready-file: the URL and a newline, written whole (beside it, then renamed), so a reader never sees half of it. */
async function writeReadyFile(path: string, url: string): Promise<void> {
  try {
    await replaceFile(path, `${url}\n`);
  } catch (error) {
    throw new CliError(writeFailure(`the ready file ${path}`, error));
  }
}

/** Gone before it listens and once it stops: a runner waiting for the file reads only a URL that answers. */
async function removeReadyFile(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** --open, --log and the warning of a bind beyond loopback. */
async function startExtras(
  ctx: CliContext,
  options: ServeOptions,
  sandbox: Sandbox,
  url: string,
  hasSecret: boolean,
  facade: ServeFacade,
): Promise<void> {
  if (options.open) await openInBrowser(ctx, `${url}/__sandbox/`);
  if (options.log) {
    const { logLine } = await import('../../io/log-line.js');
    // The lines go to stderr: they fit its terminal's width, and are whole when it is piped.
    const terminal = ctx.io.stderrTerminal;
    const view = { ...ctx.io.view, terminal, style: ctx.io.errStyle, width: terminal ? ctx.io.stderr.columns : undefined };
    sandbox.requests.subscribe((entry) => ctx.io.warn(logLine(entry, view)));
  }
  if (!facade.isLoopbackHost(options.host)) ctx.io.warn(ctx.io.errStyle.yellow(networkWarning(options, hasSecret)));
}

/** Until Ctrl-C (the signal aborts). */
function interrupted(ctx: CliContext): Promise<void> {
  return new Promise<void>((resolve) => {
    const signal = ctx.deps.signal;
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * What a bind beyond loopback exposes, said exactly: the Host and Origin checks stop browsers (DNS rebinding, pages on
 * other sites), not a client on the network, which can send any Host it likes; only a control secret stops that.
 */
export function networkWarning(options: Pick<ServeOptions, 'host' | 'allowHost' | 'publicUrl'>, hasSecret: boolean): string {
  const names = options.allowHost?.length
    ? `loopback names and ${options.allowHost.join(', ')}`
    : 'loopback names (add names with --allow-host)';
  return [
    `Warning: listening on ${options.host}, so the sandbox and its control API (reset, pay, faults) can be reached from that network.`,
    `The control API and the sandbox's pages answer only to ${names}: that stops web browsers (DNS rebinding, pages on other sites), not other clients on the network, which can send Host: localhost.`,
    hasSecret
      ? `A control secret is set: control calls without it in the ${CONTROL_SECRET_HEADER} header are refused.`
      : `Set a control secret (${CONTROL_SECRET_ENV}, or --control-secret-file with a 0600 file) so that only those who hold it can drive the sandbox.`,
    ...(options.publicUrl === undefined
      ? ['Invoice links use the listen address; pass --public-url with the address clients reach it at.']
      : []),
  ].join('\n');
}
