import { Command, CommanderError, Help } from 'commander';
import { registerAccountCommands } from './commands/account/index.js';
import { registerApiCommand } from './commands/api/index.js';
import { registerArticleCommands } from './commands/articles/index.js';
import { registerAuthCommands } from './commands/auth/index.js';
import { registerBalanceCommand } from './commands/balance/index.js';
import { registerCatalogCommands } from './commands/catalog/index.js';
import { registerCompletionCommand } from './commands/completion/index.js';
import { registerConfigCommands } from './commands/config/index.js';
import { registerDepositCommands } from './commands/deposits/index.js';
import { registerDoctorCommand } from './commands/doctor/index.js';
import { registerHelpCommand } from './commands/help/index.js';
import { registerInvoiceCommands } from './commands/invoices/index.js';
import { registerMockCommands } from './commands/mock/index.js';
import { registerOrderBatchCommand } from './commands/orders/batch.js';
import { registerOrderCreateCommand } from './commands/orders/create.js';
import { registerOrderCommands } from './commands/orders/index.js';
import { registerTransactionsCommand } from './commands/transactions/index.js';
import type { CliContext, GlobalOptions } from './context.js';
import type { RegisterScope } from './register-scope.js';
import { jsonText, messageText } from './io/sanitize.js';
import { UsageError } from './errors.js';
import { exitCodeTable } from './exit-codes.js';
import { helpTopicTable } from './help/topic-names.js';
import { printsJson } from './json-output.js';
import { VERSION } from './version.js';
import { asksForJq, asksForJson, commanderSentence, errorEnvelope } from './io/error-envelope.js';
import { redactSecrets } from './io/redact.js';
import { fitHelp, helpWidthOf } from './help/fit.js';

const rootHelp = () => `
Help topics (topup help TOPIC):
${helpTopicTable()}

Exit codes (topup help exit-codes):
${exitCodeTable.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}

Environment (topup help environment):
  TOPUP_TOKEN, TOPUP_BASE_URL and TOPUP_PROFILE pick the server and the token;
  \`topup help environment\` lists every variable topup reads.

--jq EXPR runs jq (built in) on what --json prints, and implies --json: strings are printed as text, other
values as one line of JSON, one result a line. An expression jq cannot compile is a usage error (exit 2).

Examples:
  $ topup packages
  $ topup help orders create
  $ TZ=Asia/Jakarta topup articles list
  $ topup --json packages | jq '.packages[0]'
  $ topup packages --jq '.packages[] | "\\(.code) \\(.price)"'
  $ topup api me/orders --paginate --jq '.data.orders[].invoice_code'`;

/** A group of commands, registered together, and the top-level commands it adds. */
export interface CommandGroup {
  readonly names: readonly string[];
  /** `top`: only the top-level commands, with what the root help shows of them (groups with subcommands heed it). */
  register(program: Command, ctx: CliContext, scope: RegisterScope): void;
}

/** Every group, in the order `topup --help` lists them (test/cli/program-groups.test.ts checks the names). */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  { names: ['health', 'packages', 'payment-methods'], register: registerCatalogCommands },
  { names: ['articles'], register: registerArticleCommands },
  { names: ['me', 'dashboard'], register: registerAccountCommands },
  { names: ['balance'], register: registerBalanceCommand },
  { names: ['transactions'], register: registerTransactionsCommand },
  { names: ['deposits'], register: registerDepositCommands },
  {
    names: ['orders'],
    register: (program, ctx, scope) => {
      const orders = registerOrderCommands(program, ctx, scope);
      if (scope === 'top') return;
      registerOrderCreateCommand(orders, ctx);
      registerOrderBatchCommand(orders, ctx);
    },
  },
  { names: ['invoices'], register: registerInvoiceCommands },
  { names: ['api'], register: registerApiCommand },
  { names: ['completion'], register: registerCompletionCommand },
  { names: ['auth'], register: registerAuthCommands },
  { names: ['config'], register: registerConfigCommands },
  { names: ['doctor'], register: registerDoctorCommand },
  { names: ['mock'], register: registerMockCommands },
  // `topup help` shows any command's help: it needs the whole tree, so it never stands alone.
  { names: [], register: registerHelpCommand },
];

/**
 * The group of the command `argv` runs, found as commander will find it: the first word that is not a global option
 * or its value. ROOT_HELP when `--help` or `-h` comes first: commander prints the root help then, which shows every
 * group's top-level commands and nothing below them. Undefined when the whole tree is needed or the words are not
 * plain enough to be sure: no command, an unknown one (commander suggests among all), an option the program does not
 * know before it, `--`.
 */
function groupNamed(program: Command, argv: readonly string[]): CommandGroup | RootHelp | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-') || word === '-') return COMMAND_GROUPS.find((group) => group.names.includes(word));
    // commander answers the program's own help option, wherever the words after it point: the root help.
    if (word === '--help' || word === '-h') return ROOT_HELP;
    const option = program.options.find((known) => known.long === word.split('=')[0] || known.short === word);
    if (option === undefined || option.optional) return undefined;
    if (option.required && !word.includes('=')) i++;
  }
  return undefined;
}

/**
 * Whether the words name a command group and nothing else (`topup orders`, `topup mock state`): a group that runs
 * nothing by itself (`mock faults` does) then shows its help, as `gh pr` alone does, rather than fail as a usage error.
 * Only plain words: with an option (`--json`), commander's help-as-error stands, as its one JSON envelope.
 */
export function namesGroupAlone(program: Command, argv: readonly string[]): boolean {
  if (argv.length === 0 || argv.some((word) => word.startsWith('-'))) return false;
  let command = program;
  for (const word of argv) {
    const sub = command.commands.find((known) => known.name() === word || known.aliases().includes(word));
    if (sub === undefined) return false;
    command = sub;
  }
  // commander keeps a command's action in _actionHandler; one without it and with subcommands only shows help.
  const action = (command as unknown as { _actionHandler?: unknown })._actionHandler;
  return command.commands.length > 0 && (action === undefined || action === null);
}

/** `topup --help`: every group, each with its top-level commands only (see RegisterScope). */
const ROOT_HELP = Symbol('root help');
type RootHelp = typeof ROOT_HELP;

/**
 * The commander tree. Commands register themselves; their run functions take the context. Given the run's words,
 * only what they run is registered (see groupNamed); without them, everything.
 */
export function buildProgram(ctx: CliContext, argv?: readonly string[]): Command {
  const program = new Command('topup')
    .description('Client and sandbox for the credit top-up shop API (v1)')
    .option('-V, --version', 'print the version')
    .option('--json', 'print the response data as JSON on stdout, and nothing else', false)
    .option('--jq <expression>', 'filter the --json output through jq (implies --json), e.g. --jq .packages[0].code')
    .option('--profile <name>', "use this profile's base URL and token")
    .option('--base-url <url>', "server to talk to (default: the profile's, or the embedded sandbox)")
    .option('--mock', 'use the embedded offline sandbox for this command', false)
    .option('--no-color', 'turn colour off')
    .option('--no-input', 'never prompt; a missing value is a usage error')
    .option('--debug', 'log requests (Authorization redacted) and show stack traces on stderr', false)
    .addHelpText('after', rootHelp)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput(outputFor(ctx))
    .configureHelp(HELP_LAYOUT)
    .hook('preAction', async (_command, action) => {
      const globals = action.optsWithGlobals<GlobalOptions>();
      ctx.setGlobals(globals);
      await ctx.io.loadStyle();
      // --json promises JSON on stdout and nothing else: a command that prints none refuses it rather than ignore it.
      if (globals.jq !== undefined && !printsJson(action))
        throw new UsageError(`--jq filters JSON output, and \`${commandPath(action)}\` prints none.`);
      if (globals.json && !printsJson(action))
        throw new UsageError(`--json asks for JSON output, and \`${commandPath(action)}\` prints none.`);
      if (globals.jq === undefined) return;
      // Checked before the command runs: a typo in the filter must not cost an order its output.
      await ctx.io.useJq(globals.jq, ctx.signal);
    });
  answerVersion(program, ctx);
  // A run names its command: only that command's group is registered. Registering them all (about a fifth of a
  // command's start-up) is left to what needs the whole tree: `topup help`, suggestions for a mistyped command,
  // completion. The root help gets every group's top-level commands only (a quarter of `topup --help`'s own time).
  const named = argv === undefined ? undefined : groupNamed(program, argv);
  const scope: RegisterScope = named === ROOT_HELP ? 'top' : 'all';
  for (const group of COMMAND_GROUPS) {
    if (named === undefined || named === ROOT_HELP || group === named) group.register(program, ctx, scope);
  }
  for (const command of program.commands) inheritSettings(command, ctx);
  return program;
}

/**
 * `--version`, answered as commander's own version option would be (wherever it stands, before any command runs),
 * except with --json: the version as data (`{"version": "0.1.0"}`), as every other answer is. --jq is refused rather
 * than ignored: jq runs only once a command has started, and this is no command.
 */
function answerVersion(program: Command, ctx: CliContext): void {
  program.on('option:version', () => {
    if (!asksForJson(ctx.argv)) ctx.io.stdout.write(`${VERSION}\n`);
    else if (asksForJq(ctx.argv)) throw new UsageError('--jq does not filter --version; `topup --version --json` prints it as JSON.');
    else ctx.io.stdout.write(`${jsonText({ version: VERSION }, 2)}\n`);
    throw new CommanderError(0, 'commander.version', VERSION);
  });
}

/** `topup mock open`, as a user types it. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Help on stdout; commander's own errors on stderr, as the one JSON error shape when --json was asked for. Its errors
 * echo what was typed (`-H 'Authorization: Basic …'`, `--tokn=SECRET`): cut before anything is shaped from them, and
 * every stored token is known by then (stderr cuts those word for word).
 */
function outputFor(ctx: CliContext) {
  const redact = (text: string) => redactSecrets(text);
  return {
    // Help (and --version) is laid out to the terminal's width, or 80 columns piped (help/fit.ts): commander's own
    // lists at the width it is given here, the texts the commands add after them by fitHelp.
    getOutHelpWidth: () => helpWidthOf(ctx.io.columns),
    getErrHelpWidth: () => helpWidthOf(ctx.io.stderrColumns),
    writeOut: (text: string) => ctx.io.stdout.write(fitHelp(text, helpWidthOf(ctx.io.columns))),
    // Only help shown as an error comes here (a command group named without its subcommand): with --json, the one JSON
    // error shape instead, as every other usage error has.
    // Commander writes that help in pieces (the usage, then text added after it): one envelope, from the first.
    writeErr: (text: string) => {
      if (!asksForJson(ctx.argv)) return ctx.io.stderr.write(fitHelp(redact(text), helpWidthOf(ctx.io.stderrColumns)));
      if (enveloped.has(ctx)) return;
      enveloped.add(ctx);
      ctx.io.stderr.write(errorEnvelope({ message: needsSubcommand(text), code: 'USAGE', kind: 'usage' }));
    },
    // Straight to stderr, not through writeErr (commander hands it over), which is for help shown as an error.
    outputError: (text: string) => {
      knowStoredTokens(ctx);
      // It quotes what was typed: escapes and long values never reach the terminal as they are (io/sanitize.ts).
      const shown = `${messageText(redact(text).trimEnd())}\n`;
      // One shape for every error: the JSON envelope, or text that starts `Error: ` as the CLI's own errors do.
      ctx.io.stderr.write(
        asksForJson(ctx.argv)
          ? errorEnvelope({ message: commanderSentence(shown), code: 'USAGE', kind: 'usage' })
          : shown.replace(/^error: /, 'Error: '),
      );
    },
  };
}

/**
 * A command in a list of commands is its name and arguments, as gh lists them: `[options]` said only that it has
 * some (its own help lists them) and widened the names' column, which left the descriptions too little room to wrap.
 */
const HELP_LAYOUT: Partial<Help> = {
  subcommandTerm(this: Help, command: Command) {
    return Help.prototype.subcommandTerm.call(this, command).replace(/^(\S+) \[options\]/, '$1');
  },
};

/** Runs whose help-as-error was already written as its one JSON envelope. */
const enveloped = new WeakSet<CliContext>();

/** The sentence for a command group named without a subcommand, from the first line of the help it would show. */
function needsSubcommand(help: string): string {
  const name = /^Usage: (.*?) \[options\]/m.exec(help)?.[1] ?? 'topup';
  return `\`${name}\` needs a subcommand; \`${name} --help\` lists them.`;
}

/** Loads the stored profiles, whose tokens the context then knows; a config that cannot be read changes nothing here. */
function knowStoredTokens(ctx: CliContext): void {
  try {
    ctx.settings();
  } catch {
    // The command's own run reports an unreadable config; an error about a typo must not turn into that.
  }
}

/** Subcommands report through the same streams and never call process.exit. */
function inheritSettings(command: Command, ctx: CliContext): void {
  command.exitOverride().configureOutput(outputFor(ctx)).configureHelp(HELP_LAYOUT).showSuggestionAfterError();
  for (const sub of command.commands) inheritSettings(sub, ctx);
}
