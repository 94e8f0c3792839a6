import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { OFFLINE_STATE_FILE } from '../config-dir.js';
import type { Sandbox } from '../../../mocks/facade/serve.js';
import type { PersistentSandbox } from '../../../mocks/facade/serve.js';
import type { JournalEntry } from '../../../mocks/facade/requests.js';
import { DEFAULT_TIMEOUT_MS } from '../../client/options.js';
import { embeddedNotice, type CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { printsNoJson } from '../json-output.js';
import { isTopupError } from '../../errors.js';
import { renderFields, renderTable } from '../io/table.js';
import { formatDuration, parseDuration, parseWholeNumber } from './choices.js';
import { embeddedControl, remoteControl, type InvoiceMove, type SandboxControlClient } from '../sandbox/control.js';
import { CONTROL_SECRET_ENV, CONTROL_SECRET_HEADER } from '../../contract/sandbox-control.js';
import { controlSecretFromEnv } from '../control-secret.js';

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
    { createSandbox },
    { startHttpSandbox },
    { openPersistentSandbox, SnapshotError, StateLockedError, JournalDamagedError, OrphanJournalError },
    { parseFaultSpec, FaultConfigError },
    { isLoopbackHost },
    { controlCallLines },
    { publicOrigin },
    { serveControlSecret },
  ] = await Promise.all([
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../../../mocks/facade/serve.js'),
    import('../control-secret.js'),
  ]);
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
  };
  // One server per state file (it holds the file's lock): a second one would overwrite the first one's orders.
  let persistent: PersistentSandbox | undefined;
  try {
    persistent =
      file === undefined ? undefined : await openPersistentSandbox(file, { ...sandboxOptions, waitMs: 0, repair: options.repair ?? false });
  } catch (error) {
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
    const sandbox = persistent?.sandbox ?? (await createSandbox(sandboxOptions));
    if (seed !== undefined) {
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
      const { logLine } = await import('../io/log-line.js');
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

/**
 * The control API of the same target as every other command (src/cli/target.ts): a profile logged in to
 * `topup mock serve` drives that served sandbox. A target that is not a sandbox is refused, never replaced.
 */
async function controlFor(ctx: CliContext): Promise<{ control: SandboxControlClient; token: string | undefined }> {
  const spec = ctx.targetSpec();
  if (spec.kind === 'remote') {
    // The client's own per-attempt timeout: the CLI sets none of its own for client calls.
    return {
      control: await remoteControl(spec.baseUrl, {
        fetch: await ctx.remoteFetch(),
        timeout: DEFAULT_TIMEOUT_MS,
        signal: ctx.signal,
        controlSecret: controlSecretFromEnv(ctx.io.env),
      }),
      token: spec.token,
    };
  }
  ctx.io.warn(ctx.io.style.dim(embeddedNotice(spec)));
  return { control: embeddedControl(await ctx.offlineSandbox()), token: undefined };
}

export async function runMove(ctx: CliContext, verb: InvoiceMove, invoiceCode: string): Promise<void> {
  await (await controlFor(ctx)).control.move(verb, invoiceCode);
  if (ctx.globals.json) return ctx.io.writeJson({ invoice_code: invoiceCode, action: verb });
  ctx.io.success(`${moveDone[verb]} ${invoiceCode}.`);
}

const moveDone: Record<InvoiceMove, string> = {
  pay: 'Paid',
  expire: 'Expired',
  fail: 'Failed',
  complete: 'Completed order',
  failOrder: 'Failed and refunded order',
};

export async function runDeposit(
  ctx: CliContext,
  amount: number,
  options: { paid: boolean; account?: string; mode?: 'sandbox' | 'production' },
): Promise<void> {
  const { control, token } = await controlFor(ctx);
  // Without --account, the deposit is for the target's own account (its token), else the sandbox's demo account.
  const created = await control.deposit({
    amount,
    paid: options.paid,
    account: options.account,
    token: options.account === undefined ? token : undefined,
    mode: options.mode,
  });
  if (ctx.globals.json) return ctx.io.writeJson(created);
  ctx.io.out(`${created.invoice_code}\n`);
  if (options.paid) ctx.io.success('Deposit created and paid; the balance is credited.');
  else ctx.io.notice(`Deposit created. Pay it with: topup mock pay ${created.invoice_code}`);
}

/** `topup mock state save [FILE]`: the whole state as JSON, to stdout or to a 0600 file written whole or not at all. */
export async function runStateSave(ctx: CliContext, file: string | undefined): Promise<void> {
  const state = await (await controlFor(ctx)).control.saveState();
  if (file === undefined || file === '-') return ctx.io.writeJsonLine(state);
  // As a state file is written: beside it, flushed, then renamed over it.
  const { writeStateFile } = await import('../../../mocks/facade/serve.js');
  try {
    await writeStateFile(file, state as Parameters<typeof writeStateFile>[1]);
  } catch (error) {
    throw new CliError(`Cannot write ${file}: ${(error as Error).message}`);
  }
  ctx.io.success(`Sandbox state saved to ${file}.`);
}

/** `topup mock state load FILE`: replaces the sandbox's state with a saved one (`-` reads stdin). */
export async function runStateLoad(ctx: CliContext, file: string): Promise<void> {
  const snapshot = await readStateArgument(ctx, file);
  await (await controlFor(ctx)).control.loadState(snapshot);
  if (ctx.globals.json) return ctx.io.writeJson({ loaded: true });
  ctx.io.success(`Sandbox state loaded from ${file === '-' ? 'stdin' : file}.`);
}

/**
 * `topup mock state repair [FILE]`: opens a state file (the embedded sandbox's by default) as `mock serve --state FILE
 * --repair` would, and closes it. A file, not a target: a served sandbox holds its file's lock, and is repaired by
 * restarting it with --repair; the embedded one has no server to restart.
 */
export async function runStateRepair(ctx: CliContext, file: string | undefined): Promise<void> {
  const { openPersistentSandbox, SnapshotError, StateLockedError } = await import('../../../mocks/facade/serve.js');
  const path = file ?? join(ctx.configDir, OFFLINE_STATE_FILE);
  const exists = async (p: string) => (await lstat(p).catch(() => undefined)) !== undefined;
  if (!(await exists(path)) && !(await exists(`${path}.journal`))) {
    if (ctx.globals.json) return ctx.io.writeJson({ file: path, notices: [] });
    return ctx.io.success(`There is no state at ${path}; nothing to repair.`);
  }
  let opened;
  try {
    opened = await openPersistentSandbox(path, { repair: true });
  } catch (error) {
    if (error instanceof StateLockedError) throw new CliError(`${path} is in use by another process; stop it first.`);
    if (error instanceof SnapshotError) throw new CliError(error.message);
    throw error;
  }
  await opened.close();
  for (const notice of opened.notices) ctx.io.warn(ctx.io.style.yellow(notice));
  if (ctx.globals.json) return ctx.io.writeJson({ file: path, notices: opened.notices });
  ctx.io.success(opened.notices.length === 0 ? `${path} is whole; nothing to repair.` : `${path} is readable again.`);
}

/** A saved state named on the command line (a file, or `-` for stdin), parsed; anything else is a usage error. */
async function readStateArgument(ctx: CliContext, file: string): Promise<unknown> {
  const text = await (await import('../io/input-file.js')).readInputFile(file, ctx.io.stdin);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not JSON; save a state with \`topup mock state save FILE\`.`);
  }
}

export async function runReset(ctx: CliContext): Promise<void> {
  await (await controlFor(ctx)).control.reset();
  if (ctx.globals.json) return ctx.io.writeJson({ reset: true });
  ctx.io.success('Sandbox reset to its seed.');
}

/**
 * Opens a URL in the user's browser (xdg-open, open, or start), as `gh browse` does; TOPUP_BROWSER or BROWSER name
 * another program. Where none can run, the URL is printed to open by hand.
 */
async function openInBrowser(ctx: CliContext, url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const chosen = ctx.io.env.TOPUP_BROWSER ?? ctx.io.env.BROWSER;
  const [command, args] =
    chosen !== undefined && chosen !== ''
      ? [chosen, [url]]
      : process.platform === 'darwin'
        ? ['open', [url]]
        : process.platform === 'win32'
          ? ['cmd', ['/c', 'start', '', url]]
          : ['xdg-open', [url]];
  const opened = await new Promise<boolean>((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  if (!opened) ctx.io.warn(`Could not start a browser (${command}); open ${url} yourself.`);
  else ctx.io.notice(`Opened ${url}`);
}

/** `topup mock open`: the dashboard of the target sandbox in the browser. The embedded one has none: it is no server. */
export async function runOpen(ctx: CliContext): Promise<void> {
  const spec = ctx.targetSpec();
  if (spec.kind !== 'remote') {
    throw new UsageError(
      'The embedded sandbox is no server, so it has no dashboard; run `topup mock serve --open`, or pass --base-url of a served sandbox.',
    );
  }
  // Only a sandbox has a dashboard: ask it for its fixtures first (a real server is refused here, never opened).
  await (await controlFor(ctx)).control.fixtures();
  await openInBrowser(ctx, `${spec.baseUrl.replace(/\/+$/, '')}/__sandbox/`);
}

export interface LogsOptions {
  follow: boolean;
  filterMethod?: string | undefined;
  filterStatus?: string | undefined;
  filterPath?: string | undefined;
  filterAccount?: string | undefined;
  limit: number;
}

/**
 * `topup mock logs`: the served sandbox's request journal, like `stripe logs tail`: one line per request on a
 * terminal, NDJSON with --json; --follow streams new requests until Ctrl-C, through restarts of the sandbox.
 */
export async function runLogs(ctx: CliContext, options: LogsOptions): Promise<void> {
  const query = new URLSearchParams();
  if (options.filterMethod) query.set('method', options.filterMethod);
  if (options.filterStatus) query.set('status', options.filterStatus);
  if (options.filterPath) query.set('path', options.filterPath);
  if (options.filterAccount) query.set('account', options.filterAccount);
  const { control } = await controlFor(ctx);
  const { logLine } = await import('../io/log-line.js');
  const show = async (entry: JournalEntry) =>
    ctx.globals.json ? ctx.io.writeJsonLine(entry) : ctx.io.out(`${logLine(entry, ctx.io.view)}\n`);
  const earlier = await control.requests(new URLSearchParams([...query, ['limit', String(options.limit)]]));
  for (const entry of earlier) await show(entry);
  if (!options.follow) return;
  const spec = ctx.targetSpec();
  const last = earlier.at(-1)?.id;
  // Entries arrive while --jq may still run on an earlier one: printed in order, and a failed jq ends the follow.
  const failed = new AbortController();
  const signal = ctx.signal === undefined ? failed.signal : AbortSignal.any([ctx.signal, failed.signal]);
  let printed = Promise.resolve();
  const print = (entry: JournalEntry) => {
    printed = printed.then(() => show(entry)).catch((error: unknown) => failed.abort(error));
  };
  ctx.io.notice(ctx.io.style.dim("Following the sandbox's requests; press Ctrl-C to stop."));
  if (spec.kind !== 'remote') {
    // The embedded sandbox answers other topup commands, one at a time: follow the log they leave beside its state.
    const [{ followRequestLog }, { compileFilter }, { filterFromQuery }] = await Promise.all([
      import('../sandbox/request-log-follow.js'),
      import('../../../mocks/facade/requests.js'),
      import('../../../mocks/facade/requests.js'),
    ]);
    const log = (await ctx.offlineSandbox()).requestLog;
    const matches = compileFilter(filterFromQuery(query));
    await followRequestLog({ log, afterId: last ?? 0, signal, clock: ctx.clock, onEntry: (entry) => matches(entry) && print(entry) });
    return;
  }
  const { followJournal } = await import('../sandbox/journal-stream.js');
  // From the last one shown, or from the start when none matched: a request made while the stream connects is not lost.
  query.set('after_id', String(last ?? 0));
  await followJournal({
    baseUrl: spec.baseUrl,
    query,
    controlSecret: controlSecretFromEnv(ctx.io.env),
    signal,
    onEntry: print,
    onConnection: (state) =>
      ctx.io.notice(ctx.io.style.yellow(state === 'lost' ? 'The sandbox went away; reconnecting…' : 'Reconnected to the sandbox.')),
  });
}

export async function runFixtures(ctx: CliContext): Promise<void> {
  const answer = await (await controlFor(ctx)).control.fixtures();
  // Printing the sandbox's test tokens is this command's job: stdout is not redacted while it does.
  if (ctx.globals.json) return ctx.io.revealingTokens(() => ctx.io.writeJson(answer));
  // A served sandbox is a server too: its text is made safe like any other (io/sanitize.ts).
  const fixtures = (await import('../io/sanitize.js')).sanitizeDeep(answer) as typeof answer;
  const view = await ctx.io.tableView();
  ctx.io.revealingTokens(() => printFixtures(ctx, fixtures, view));
}

function printFixtures(
  ctx: CliContext,
  fixtures: Awaited<ReturnType<SandboxControlClient['fixtures']>>,
  view: Awaited<ReturnType<CliContext['io']['tableView']>>,
): void {
  ctx.io.out(
    renderTable(
      fixtures.accounts,
      [
        { header: 'account', value: (a) => a.name },
        { header: 'mode', value: (a) => a.mode },
        { header: 'chat user', value: (a) => a.chat_user_id ?? '-' },
        { header: 'balance', value: (a) => String(a.balance), align: 'right' },
        { header: 'token', value: (a) => a.token },
      ],
      view,
    ),
  );
  ctx.io.out('\n');
  ctx.io.out(
    renderTable(
      fixtures.cases,
      [
        { header: 'case', value: (c) => c.name },
        { header: 'expect', value: (c) => `${c.expect.status}${c.expect.code ? ` ${c.expect.code}` : ''}` },
        { header: 'body', value: (c) => JSON.stringify(c.body), free: true },
      ],
      view,
    ),
  );
  // An older served sandbox has none.
  if (fixtures.magic_orders === undefined) return;
  // Titles only on a terminal: piped, the tables stay plain rows, one blank line apart, as above.
  const terminal = ctx.io.terminal;
  ctx.io.out(terminal ? '\nMagic orders: they end this way by themselves, with any token\n' : '\n');
  ctx.io.out(
    renderTable(
      fixtures.magic_orders,
      [
        { header: 'outcome', value: (m) => m.outcome },
        { header: 'pass', value: (m) => String(m.body.platform_pass_id), align: 'right' },
        { header: 'ends', value: (m) => m.ends, free: true },
      ],
      view,
    ),
  );
  const first = fixtures.magic_orders[0];
  if (terminal && first !== undefined)
    ctx.io.out(`\nOrder these passes of place ${first.body.place_id} of platform user ${first.body.platform_username}.\n`);
}

export function registerMockCommands(program: Command, ctx: CliContext): void {
  const mock = program
    .command('mock')
    .description('Run and steer the sandbox: serve it over HTTP, pay or expire invoices, add deposits')
    .addHelpText(
      'after',
      `
These act on the same server as every other command: a profile logged in to \`topup mock serve\`, --base-url
or TOPUP_BASE_URL of a served sandbox, or the embedded one (--mock, or when nothing is configured). A server that
is not a topup sandbox is refused (exit 2).

Examples:
  $ topup mock serve --port 4010
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup mock pay "$inv"
  $ topup mock deposit 50000 --paid
  $ topup mock fixtures --json`,
    );

  mock
    .command('serve')
    .description('Serve the sandbox over HTTP until Ctrl-C')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parseWholeNumber('port', 0, 65535), 4010)
    .option('--host <host>', 'address to listen on (anything but loopback makes the sandbox reachable from that network)', '127.0.0.1')
    .option(
      '--allow-host <name>',
      'a host name the control API also answers to, e.g. a container name (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--public-url <url>', 'the origin written into invoice links, e.g. http://sandbox:4010 (default: the listen address)')
    .option(
      '--control-secret-file <file>',
      `a file (mode 0600) with a secret every control call must then present; or set ${CONTROL_SECRET_ENV}`,
    )
    .addOption(new Option('--control-secret <secret>').hideHelp())
    .option('--state <file>', 'keep the state in this file across restarts (written atomically)')
    .option('--repair', 'with --state: go on past a damaged journal, keeping a copy of it (FILE.journal.bad-TIME)', false)
    .option('--seed <file>', 'start from a saved state (topup mock state save); with --state, it replaces what the file held')
    .option('--no-rate-limit', 'turn off rate limits and the in-flight cap, for load tests')
    .option('--lean', 'answer only what the interface document guarantees, to prove a client tolerates a minimal server', false)
    .option(
      '--faults <spec>',
      'inject faults: drop-after=20%,503=10%/retry-after=1,429=10%,drop-before=1%,latency=5-50ms[@route+route]; /times=N and /after=N make sequences',
    )
    .option('--fault-seed <n>', 'seed for deterministic fault injection', parseWholeNumber('fault seed', 0, 2 ** 31), 0)
    .option('--log', 'print every request to stderr as it is answered (as topup mock logs --follow does)', false)
    .option('--open', "open the sandbox's dashboard in the browser", false)
    .option(
      '--journal-size <n>',
      'requests kept for topup mock logs and /__sandbox/requests (0: none, for load tests)',
      parseWholeNumber('journal size', 0, 1_000_000),
      1_000,
    )
    .option(
      '--auto-pay <duration>',
      'pay every new invoice after this much sandbox time, e.g. 5s, 500ms, 2m (a number is seconds)',
      parseDuration('auto-pay'),
    )
    .option(
      '--auto-expire <duration>',
      'expire every new invoice after this much sandbox time instead of 60 minutes',
      parseDuration('auto-expire'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup mock serve\n  $ topup mock serve --auto-pay 5s   # invoices pay themselves, for a bot that polls the status\n  $ topup mock serve --port 0 --json --state ./sandbox.json\n  $ topup mock serve --seed ci-start.json   # every CI run starts from the same state\n  $ topup mock serve --no-rate-limit\n  $ topup mock serve --lean --port 4011\n  $ topup mock serve --faults "drop-after=20%@createOrder,503=10%/retry-after=1,429=10%" --fault-seed 7\n  $ topup mock serve --faults "503/retry-after=1/times=1@createOrder"   # the first order fails once, its retry succeeds\n  $ topup mock serve --host 0.0.0.0 --allow-host sandbox --public-url http://sandbox:4010 --control-secret-file ./secret   # in a container named sandbox\n\nFaults change at run time too: PUT/GET/DELETE /__sandbox/faults.\nControl calls that change the sandbox need Content-Type: application/json or an X-Topup-Sandbox header,\nand answer only to loopback names and --allow-host names: a web page you visit cannot drive the sandbox.\nThat stops browsers, not other clients on a network: beyond loopback, set a control secret.',
    )
    .action((options: ServeOptions) => runServe(ctx, options));

  printsNoJson(mock.command('open'))
    .description("Open a served sandbox's dashboard in the browser")
    .addHelpText('after', '\nExamples:\n  $ topup mock open --base-url http://127.0.0.1:4010\n  $ topup mock serve --open')
    .action(() => runOpen(ctx));

  mock
    .command('logs')
    .description("Print the served sandbox's request log; --follow streams new requests until Ctrl-C")
    .option('-f, --follow', 'keep printing requests as they arrive (reconnects when the sandbox restarts)', false)
    .option('--filter-method <methods>', 'only these methods, e.g. GET,POST')
    .option('--filter-status <statuses>', 'only these statuses or classes, e.g. 4xx,429')
    .option('--filter-path <path>', 'only this path; * matches one segment, ** any rest, e.g. /api/v1/me/orders/*')
    .option('--filter-account <name>', "only requests with this account's token (its username)")
    .option('--limit <n>', 'how many earlier requests to print first', parseWholeNumber('limit', 0, 10_000), 50)
    .addHelpText(
      'after',
      '\nRequests come from the target sandbox: a served one (topup mock serve) keeps the last 1,000 (--journal-size);\nthe embedded one keeps the last 1,000 that topup commands sent it, in a log beside its state.\nOn a terminal: one aligned line per request; --json: one JSON object per line (NDJSON).\n\nExamples:\n  $ topup mock logs\n  $ topup mock logs --base-url http://127.0.0.1:4010\n  $ topup mock logs --follow --filter-status 4xx,5xx --base-url http://127.0.0.1:4010\n  $ topup mock logs --json --filter-path /api/v1/me/orders --filter-method POST --base-url http://127.0.0.1:4010 | jq .idempotency_key',
    )
    .action((options: LogsOptions) => runLogs(ctx, options));

  mock
    .command('fixtures')
    .description("Print the sandbox's test accounts, tokens and order bodies")
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup mock fixtures\n  $ topup mock fixtures --json | jq -r \'.accounts[] | select(.name=="rich") | .token\'',
    )
    .action(() => runFixtures(ctx));

  const state = mock
    .command('state')
    .description('Save the whole sandbox state to a file, or start from a saved one')
    .addHelpText(
      'after',
      '\nA saved state is the JSON of GET /__sandbox/state; `topup mock serve --seed FILE` starts from one.\n\nExamples:\n  $ topup mock state save ci-start.json\n  $ topup mock state load ci-start.json\n  $ topup mock state save --base-url http://127.0.0.1:4010 | jq .counters',
    );
  state
    .command('save [file]')
    .description('Write the whole state as JSON to FILE (0600), or to stdout')
    .addHelpText('after', '\nExamples:\n  $ topup mock state save ci-start.json\n  $ topup mock state save | jq .counters')
    .action((file: string | undefined) => runStateSave(ctx, file));
  state
    .command('load <file>')
    .description('Replace the whole state with a saved one (- reads stdin); a bad file changes nothing')
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup mock state save ci-start.json\n  $ topup mock state load ci-start.json\n  $ topup mock state save | topup mock state load -',
    )
    .action((file: string) => runStateLoad(ctx, file));
  state
    .command('repair [file]')
    .description("Make a damaged state file readable again (the embedded sandbox's, or FILE); the damaged journal is kept")
    .addHelpText(
      'after',
      '\nA complete journal line that is damaged stops the sandbox rather than losing an order quietly. This keeps a copy\nof the journal (FILE.journal.bad-TIME), says which lines it dropped, and moves invoice numbering past them.\nFor a served sandbox, restart it with: topup mock serve --state FILE --repair\n\nExamples:\n  $ topup mock state repair\n  $ topup mock state repair ./sandbox.json',
    )
    .action((file: string | undefined) => runStateRepair(ctx, file));

  mock
    .command('reset')
    .description('Reset the sandbox to its seed (orders, balances, deposits)')
    .addHelpText('after', '\nExamples:\n  $ topup mock reset')
    .action(() => runReset(ctx));

  const moves: [string, InvoiceMove, string][] = [
    ['pay', 'pay', 'Pay an invoice (an order starts processing; a deposit credits the balance)'],
    ['expire', 'expire', 'Expire an unpaid invoice (its order is cancelled)'],
    ['fail', 'fail', 'Fail the payment of an unpaid invoice (its order is cancelled)'],
    ['complete', 'complete', 'Complete a paid order'],
    ['fail-order', 'failOrder', 'Fail a paid order and refund its total to the balance'],
  ];
  for (const [name, verb, description] of moves) {
    // complete and fail-order act on a paid order: their examples pay it first.
    const paidFirst = name === 'complete' || name === 'fail-order';
    mock
      .command(`${name} <invoice>`)
      .description(description)
      .addHelpText(
        'after',
        `\nOn a served sandbox, add --base-url http://127.0.0.1:4010 (or log in to it).\n\nExamples:\n  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)\n${paidFirst ? '  $ topup mock pay "$inv"\n' : ''}  $ topup mock ${name} "$inv"`,
      )
      .action((invoice: string) => runMove(ctx, verb, invoice));
  }

  mock
    .command('deposit')
    .argument('<amount>', 'amount in IDR, 10000 to 50000000', parseWholeNumber('amount', 1))
    .description('Create a deposit (a balance top-up) for the demo account, or --account NAME')
    .option('--paid', 'pay it at once, crediting the balance', false)
    .option('--account <name>', 'sandbox account by name (demo, rich, broke, unlinked, dual)')
    .addOption(
      new Option('--mode <mode>', 'for an account with both keys (dual): its test or its live world (default live)').choices([
        'sandbox',
        'production',
      ]),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ topup mock deposit 50000\n  $ topup mock deposit 100000 --paid --account rich\n  $ topup mock deposit 20000 --paid --account dual --mode sandbox',
    )
    .action((amount: number, options: { paid: boolean; account?: string; mode?: 'sandbox' | 'production' }) =>
      runDeposit(ctx, amount, options),
    );
}
