import { Command } from 'commander';
import { registerAccountCommands } from './commands/account.js';
import { registerApiCommand } from './commands/api.js';
import { registerArticleCommands } from './commands/articles.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerBalanceCommands } from './commands/balance.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerConfigCommands } from './commands/config.js';
import { registerDoctorCommand } from './commands/doctor-command.js';
import { registerHelpCommand } from './commands/help.js';
import { registerInvoiceCommands } from './commands/invoices.js';
import { registerMockCommands } from './commands/mock.js';
import { registerOrderCreateCommand } from './commands/orders-create.js';
import { registerOrderCommands } from './commands/orders-read.js';
import type { CliContext, GlobalOptions } from './context.js';
import { exitCodeTable } from './exit-codes.js';
import { environmentTable } from './help/environment.js';
import { helpTopicTable } from './help/topic-names.js';
import { asksForJson, commanderSentence, errorEnvelope } from './io/error-envelope.js';
import { redactSecrets } from './io/redact.js';

declare const __TOPUP_VERSION__: string;
export const VERSION = typeof __TOPUP_VERSION__ === 'string' ? __TOPUP_VERSION__ : '0.0.0-dev';

const rootHelp = () => `
Help topics (topup help TOPIC):
${helpTopicTable()}

Exit codes (topup help exit-codes):
${exitCodeTable.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}

Environment (topup help environment):
${environmentTable()}

Examples:
  $ topup packages
  $ topup help orders create
  $ TZ=Asia/Jakarta topup articles list
  $ topup --json packages | jq '.packages[0]'`;

/** The commander tree. Commands register themselves; their run functions take the context. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('topup')
    .description('Client and sandbox for the credit top-up shop API (v1)')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print the response data as JSON on stdout, and nothing else', false)
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
    .hook('preAction', async (_command, action) => {
      ctx.setGlobals(action.optsWithGlobals<GlobalOptions>());
      await ctx.io.loadStyle();
    });
  registerCatalogCommands(program, ctx);
  registerArticleCommands(program, ctx);
  registerAccountCommands(program, ctx);
  registerBalanceCommands(program, ctx);
  const orders = registerOrderCommands(program, ctx);
  registerOrderCreateCommand(orders, ctx);
  registerInvoiceCommands(program, ctx);
  registerApiCommand(program, ctx);
  registerCompletionCommand(program, ctx);
  registerAuthCommands(program, ctx);
  registerConfigCommands(program, ctx);
  registerDoctorCommand(program, ctx);
  registerMockCommands(program, ctx);
  registerHelpCommand(program, ctx);
  for (const command of program.commands) inheritSettings(command, ctx);
  return program;
}

/** Help on stdout; commander's own errors on stderr, as the one JSON error shape when --json was asked for. */
function outputFor(ctx: CliContext) {
  const redact = (text: string) => redactSecrets(text, [ctx.io.env.TOPUP_TOKEN]);
  return {
    writeOut: (text: string) => ctx.io.stdout.write(text),
    writeErr: (text: string) => ctx.io.stderr.write(redact(text)),
    outputError: (text: string, write: (text: string) => void) =>
      write(asksForJson(ctx.argv) ? errorEnvelope({ message: commanderSentence(text) }) : text),
  };
}

/** Subcommands report through the same streams and never call process.exit. */
function inheritSettings(command: Command, ctx: CliContext): void {
  command.exitOverride().configureOutput(outputFor(ctx)).showSuggestionAfterError();
  for (const sub of command.commands) inheritSettings(sub, ctx);
}
