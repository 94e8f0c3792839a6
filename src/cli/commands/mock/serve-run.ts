// `topup mock serve`'s run, loaded only when the command runs (the flags and help in ./serve.ts stay on the eager path).
import type { PersistentSandbox, Sandbox } from '../../../../mocks/facade/serve.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { isTopupError } from '../../../errors.js';
import { renderFields, renderTable } from '../../io/table.js';
import { formatDuration } from '../shared/choices.js';
import { CONTROL_SECRET_ENV, CONTROL_SECRET_HEADER } from '../../../contract/sandbox-control.js';
import { openInBrowser } from './browser.js';
import { readStateArgument } from './state-argument.js';

export interface ServeOptions {
  port: number;
  host: string;
  state?: string | undefined;
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
}

/** `topup mock serve`: the sandbox over HTTP until Ctrl-C. */
export async function runServe(ctx: CliContext, options: ServeOptions): Promise<void> {
  const [
    {
      createSandbox,
      startHttpSandbox,
      openPersistentSandbox,
      SnapshotError,
      StateLockedError,
      JournalDamagedError,
      OrphanJournalError,
      parseFaultSpec,
      FaultConfigError,
      isLoopbackHost,
      controlCallLines,
      publicOrigin,
    },
    { serveControlSecret },
  ] = await Promise.all([import('../../../../mocks/facade/serve.js'), import('../../control-secret.js')]);
  if (options.controlSecret !== undefined)
    throw new UsageError(
      `A control secret is never taken from the command line, where other users of the machine can read it; set ${CONTROL_SECRET_ENV} or use --control-secret-file FILE (mode 0600).`,
    );
  const controlSecret = await serveControlSecret(options.controlSecretFile, ctx.io.env);
  if (options.publicUrl !== undefined) {
    try {
      publicOrigin(options.publicUrl);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  let faults;
  try {
    faults = options.faults === undefined ? undefined : parseFaultSpec(options.faults, options.faultSeed);
  } catch (error) {
    if (error instanceof FaultConfigError) throw new UsageError(error.message);
    throw error;
  }
  if (options.repair === true && options.state === undefined) throw new UsageError('--repair repairs a state file: add --state FILE.');
  // Read before anything starts: a seed that cannot be read or loaded is the user's mistake, said at once.
  const seed = options.seed === undefined ? undefined : await readStateArgument(ctx, options.seed);
  const file = options.state;
  const sandboxOptions = {
    rateLimit: options.rateLimit,
    lean: options.lean,
    journalSize: options.journalSize,
    ...(faults === undefined ? {} : { faults }),
    ...(options.autoPay === undefined ? {} : { autoPay: { after: options.autoPay } }),
    ...(options.autoExpire === undefined ? {} : { autoExpire: { after: options.autoExpire } }),
    // What the sandbox starts from and `reset` goes back to.
    ...(seed === undefined ? {} : { seed }),
  };
  const seedRefusal = (error: unknown) =>
    error instanceof SnapshotError && error.message.startsWith('The seed state cannot be loaded: ')
      ? new UsageError(`${options.seed} ${error.message.replace(/^The seed state cannot be loaded: /, 'cannot be loaded: ')}`)
      : error;
  // One server per state file (it holds the file's lock): a second one would overwrite the first one's orders.
  let persistent: PersistentSandbox | undefined;
  try {
    persistent =
      file === undefined ? undefined : await openPersistentSandbox(file, { ...sandboxOptions, waitMs: 0, repair: options.repair ?? false });
  } catch (error) {
    if (seedRefusal(error) !== error) throw seedRefusal(error);
    if (error instanceof StateLockedError) throw new CliError(`${file} is already used by another running sandbox.`);
    if (error instanceof JournalDamagedError || error instanceof OrphanJournalError)
      throw new CliError(
        `${error.message.replace(/\.$/, '')}; start with --repair to keep a copy of it and go on without what is damaged.`,
      );
    // A state the checks refused names the field; say which file holds it (read errors name it already).
    if (error instanceof SnapshotError)
      throw new CliError(error.message.replace(/^The state cannot be loaded: /, `${file} cannot be loaded: `));
    throw error;
  }
  for (const notice of persistent?.notices ?? []) ctx.io.warn(ctx.io.style.yellow(notice));
  try {
    const sandbox: Sandbox =
      persistent?.sandbox ??
      (await createSandbox(sandboxOptions).catch((error: unknown) => {
        throw seedRefusal(error);
      }));
    // A state file's content gives way to the seed state.
    if (seed !== undefined && persistent !== undefined) {
      try {
        await sandbox.control.loadState(seed);
      } catch (error) {
        if (isTopupError(error, 'validation'))
          throw new UsageError(`${options.seed} ${error.message.replace(/^The state cannot be loaded: /, 'cannot be loaded: ')}`);
        throw error;
      }
    }
    let server;
    try {
      server = await startHttpSandbox(sandbox, {
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
    await printServing(ctx, options, server.url, sandbox, controlCallLines());
    if (options.open) await openInBrowser(ctx, `${server.url}/__sandbox/`);
    if (options.log) {
      const { logLine } = await import('../../io/log-line.js');
      sandbox.requests.subscribe((entry) => ctx.io.warn(logLine(entry, { ...ctx.io.view, terminal: ctx.io.stderrTerminal })));
    }
    if (!isLoopbackHost(options.host)) ctx.io.warn(ctx.io.style.yellow(networkWarning(options, controlSecret !== undefined)));
    await new Promise<void>((resolve) => {
      const signal = ctx.deps.signal;
      if (signal === undefined) return;
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    ctx.io.notice('Sandbox stopped.');
  } finally {
    await persistent?.close();
  }
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

async function printServing(ctx: CliContext, options: ServeOptions, url: string, sandbox: Sandbox, controlCalls: string[]): Promise<void> {
  const accounts = sandbox.fixtures().accounts;
  if (ctx.globals.json) {
    // The demo tokens are public test values, listed so a bot can be pointed at them: the one place they are printed.
    await ctx.io.revealingTokens(() =>
      ctx.io.writeJsonLine({
        url,
        dashboard: `${url}/__sandbox/`,
        openapi: `${url}/openapi.json`,
        rate_limit: options.rateLimit,
        lean: options.lean,
        state: options.state ?? null,
        seed: options.seed ?? null,
        faults: sandbox.faults.config,
        auto_pay_ms: options.autoPay ?? null,
        auto_expire_ms: options.autoExpire ?? null,
        accounts,
      }),
    );
    return;
  }
  const style = ctx.io.style;
  ctx.io.out(`${style.green('Sandbox listening on')} ${style.bold(url)}\n`);
  ctx.io.out(
    renderFields(
      [
        ['dashboard', `${url}/__sandbox/`],
        ['openapi', `${url}/openapi.json`],
        ['rate limits', options.rateLimit ? 'on' : 'off'],
        ['answers', options.lean ? 'lean: only what the interface document guarantees' : "full: every field of the sandbox's design"],
        ['state', options.state ?? 'in memory (lost on exit)'],
        ...(options.seed === undefined ? [] : [['seed', `started from ${options.seed}`] as [string, string]]),
        ['faults', options.faults ?? 'none'],
        ['auto-pay', options.autoPay === undefined ? 'off' : `every new invoice is paid after ${formatDuration(options.autoPay)}`],
        ['auto-expire', options.autoExpire === undefined ? 'off' : `every new invoice expires after ${formatDuration(options.autoExpire)}`],
      ],
      { terminal: ctx.io.terminal, style },
    ),
  );
  ctx.io.out('\nDemo tokens (public test values):\n');
  ctx.io.revealingTokens(() =>
    ctx.io.out(
      renderTable(
        accounts,
        [
          { header: 'account', value: (a) => a.name },
          { header: 'mode', value: (a) => a.mode },
          { header: 'token', value: (a) => a.token },
        ],
        { terminal: ctx.io.terminal, style },
      ),
    ),
  );
  // Every control call, for people: scripts read the README or `--json`.
  ctx.io.notice(
    style.dim(
      [
        `\nControl API at ${url}/__sandbox (changes need X-Topup-Sandbox: 1 or a JSON body):`,
        ...controlCalls,
        'Press Ctrl-C to stop.',
      ].join('\n'),
    ),
  );
}
