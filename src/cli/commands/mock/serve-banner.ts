import { shellWord } from '../../hint-command.js';
// What `topup mock serve` prints once it listens: loaded with its run (./serve-run.ts).
import type { Sandbox } from '../../../../mocks/facade/serve.js';
import type { CliContext } from '../../context.js';
import { renderFields, renderTable, simpleMeasure, wrapWords } from '../../io/table.js';
import { formatDuration } from '../shared/choices.js';
import { invoiceCount } from '../../../contract/sandbox-control.js';

/**
 * Whose state is served: the config folder's own (the embedded sandbox's, which every topup command here then reaches:
 * it is locked and announced for as long as it is served), a file of its own (--state), or one in memory (--fresh,
 * or --seed alone), which claims and announces nothing, so that a test runner can start many.
 */
export type ServedState = { kind: 'config'; file: string } | { kind: 'file'; file: string } | { kind: 'memory' };

/** The flags the banner shows (those of ServeOptions in ./serve-run.ts). */
export interface BannerOptions {
  rateLimit: boolean;
  lean: boolean;
  seed?: string | undefined;
  faults?: string | undefined;
  autoPay?: number | undefined;
  autoExpire?: number | undefined;
  maxInvoices?: number | undefined;
}

export interface Serving {
  state: ServedState;
  /** Where it listens. */
  url: string;
  /** Where other programs of this machine reach it (loopback's URL when it listens on every interface). */
  reachUrl: string;
  sandbox: Sandbox;
  controlCalls: string[];
}

/** The exact lines that point another shell, a bot and a browser at the served sandbox. */
export interface ConnectLines {
  shell: string;
  bot: { TOPUP_BASE_URL: string; TOPUP_TOKEN: string };
  browser: string;
}

/**
 * How to reach it from elsewhere. The config folder's sandbox needs nothing in another shell (with the same config
 * folder), or --mock where a profile or TOPUP_BASE_URL would win (target.ts); any other needs its URL and a token.
 */
export function connectLines(
  serving: Pick<Serving, 'state' | 'reachUrl'>,
  demoToken: string,
  shell: { configDir: string | undefined; nothingConfigured: boolean },
): ConnectLines {
  const bot = { TOPUP_BASE_URL: serving.reachUrl, TOPUP_TOKEN: demoToken };
  const withDir = shell.configDir === undefined ? '' : `TOPUP_CONFIG_DIR=${shellWord(shell.configDir)} `;
  const command =
    serving.state.kind === 'config'
      ? `${withDir}topup ${shell.nothingConfigured ? '' : '--mock '}orders list`
      : `TOPUP_BASE_URL=${serving.reachUrl} TOPUP_TOKEN=${demoToken} topup orders list`;
  return { shell: command, bot, browser: `${serving.reachUrl}/__sandbox/` };
}

function stateText(state: ServedState): string {
  if (state.kind === 'config') return `the config folder's sandbox (${state.file}), which every topup command here uses while this runs`;
  if (state.kind === 'file') return state.file;
  return 'in memory (lost on exit)';
}

/** The banner on stdout (one JSON line with --json), then the control calls on stderr for people. */
export async function printServing(ctx: CliContext, options: BannerOptions, serving: Serving): Promise<void> {
  const { url, reachUrl, sandbox, state } = serving;
  const accounts = sandbox.fixtures().accounts;
  const demo = accounts.find((account) => account.name === 'demo') ?? accounts[0]!;
  const connect = connectLines({ state, reachUrl }, demo.token, {
    configDir: ctx.io.env.TOPUP_CONFIG_DIR || undefined,
    nothingConfigured: nothingConfigured(ctx),
  });
  if (ctx.globals.json) {
    // The demo tokens are public test values, listed so a bot can be pointed at them: the one place they are printed.
    await ctx.io.revealingTokens(() =>
      ctx.io.writeJsonLine({
        url,
        dashboard: `${url}/__sandbox/`,
        openapi: `${url}/openapi.json`,
        rate_limit: options.rateLimit,
        lean: options.lean,
        state: state.kind === 'memory' ? null : state.file,
        announced: state.kind === 'config',
        seed: options.seed ?? null,
        faults: sandbox.faults.config,
        auto_pay_ms: options.autoPay ?? null,
        auto_expire_ms: options.autoExpire ?? null,
        max_invoices: sandbox.store.maxInvoices,
        accounts,
        connect: { shell: connect.shell, bot_env: connect.bot, browser: connect.browser },
      }),
    );
    return;
  }
  const style = ctx.io.style;
  // Its width too: key/value lines wrap to it, and the token table leaves out the mode (its token's prefix says it).
  const terminal = { ...ctx.io.view, style };
  ctx.io.out(`${style.green('Sandbox listening on')} ${style.bold(url)}\n`);
  ctx.io.out(
    renderFields(
      [
        ['dashboard', `${url}/__sandbox/`],
        ['openapi', `${url}/openapi.json`],
        ['rate limits', options.rateLimit ? 'on' : 'off'],
        ['answers', options.lean ? 'lean: only what the interface document guarantees' : "full: every field of the sandbox's design"],
        ['state', stateText(state)],
        ...(options.seed === undefined ? [] : [['seed', `started from ${options.seed}`] as [string, string]]),
        ['faults', options.faults ?? 'none'],
        ['auto-pay', options.autoPay === undefined ? 'off' : `every new invoice is paid after ${formatDuration(options.autoPay)}`],
        ['auto-expire', options.autoExpire === undefined ? 'off' : `every new invoice expires after ${formatDuration(options.autoExpire)}`],
        ...(options.maxInvoices === undefined
          ? []
          : [['capacity', `at most ${invoiceCount(options.maxInvoices)}, then 507 SANDBOX_FULL`] as [string, string]]),
      ],
      terminal,
    ),
  );
  ctx.io.out('\nDemo tokens (public test values):\n');
  ctx.io.revealingTokens(() => {
    ctx.io.out(
      renderTable(
        accounts,
        [
          { header: 'account', value: (a) => a.name },
          { header: 'mode', value: (a) => a.mode, priority: 1 },
          { header: 'token', value: (a) => a.token },
        ],
        terminal,
      ),
    );
    ctx.io.out('\nPoint at it:\n');
    ctx.io.out(
      renderFields(
        [
          ['another shell', connect.shell, { command: true }],
          ['a bot', `export TOPUP_BASE_URL=${connect.bot.TOPUP_BASE_URL} TOPUP_TOKEN=${connect.bot.TOPUP_TOKEN}`, { command: true }],
          ['a browser', connect.browser],
        ],
        terminal,
      ),
    );
  });
  // Every control call, for people: scripts read docs/sandbox.md (The control API) or `--json`.
  const width = ctx.io.stderrTerminal ? ctx.io.stderr.columns : undefined;
  ctx.io.notice(
    ctx.io.errStyle.dim(
      [
        '',
        ...fitted(`Control API at ${url}/__sandbox (changes need X-Topup-Sandbox: 1 or a JSON body):`, width, ''),
        ...serving.controlCalls.flatMap((line) => controlCallLines(line, width)),
        'Press Ctrl-C to stop.',
      ].join('\n'),
    ),
  );
}

/** Prose wrapped at spaces to `width` (when known), its next lines indented by `indent`. */
function fitted(text: string, width: number | undefined, indent: string): string[] {
  if (width === undefined || width <= 0) return [text];
  return wrapWords(text, width - indent.length, simpleMeasure).map((line, i) => (i === 0 ? line : indent + line));
}

/**
 * A control call's line (`  POST /clock   move the clock on: …`) as is when it fits the terminal, else the call on
 * its line and what it does below it, indented.
 */
function controlCallLines(line: string, width: number | undefined): string[] {
  const split = /^(\s*\S+ \S+)\s{2,}(.*)$/.exec(line);
  if (width === undefined || width <= 0 || line.length <= width || split === null) return [line];
  return [split[1]!, ...wrapWords(split[2]!, width - 6, simpleMeasure).map((text) => `      ${text}`)];
}

/** Whether a plain `topup …` in a shell like this one would use the embedded target (else it needs --mock). */
function nothingConfigured(ctx: CliContext): boolean {
  try {
    const spec = ctx.targetSpec();
    return spec.kind === 'embedded' && spec.source === 'nothing configured';
  } catch {
    return false;
  }
}
