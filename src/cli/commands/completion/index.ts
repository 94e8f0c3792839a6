import { Argument, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { printsNoJson } from '../../json-output.js';
import { renderCompletion, shells, type Shell } from '../../io/completion-script.js';

export function runCompletion(ctx: CliContext, program: Command, shell: Shell): void {
  ctx.io.out(renderCompletion(shell, program.name()));
}

export function registerCompletionCommand(program: Command, ctx: CliContext): void {
  printsNoJson(program.command('completion'))
    .addArgument(new Argument('<shell>', `the shell: ${shells.join(', ')}`).choices(shells))
    .description('Print a shell completion script for commands, subcommands, options, profiles and invoice codes')
    .addHelpText(
      'after',
      `
The script asks topup itself on each Tab (\`topup __complete WORD…\`): commands and flags at once, profile names
and config keys from the config folder, and invoice codes, article slugs and payment methods from the target's
server, given up on after 1.5 s. It never prompts and never prints an error into your shell.

Examples:
  $ source <(topup completion bash)
  $ topup completion zsh > "\${fpath[1]}/_topup"
  $ topup completion fish > ~/.config/fish/completions/topup.fish`,
    )
    .action((shell: Shell) => runCompletion(ctx, program, shell));
}
