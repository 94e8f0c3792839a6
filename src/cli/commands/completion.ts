import { Argument, type Command, type Option } from 'commander';
import type { CliContext } from '../context.js';
import { printsNoJson } from '../json-output.js';
import {
  renderCompletion,
  shells,
  type CompletionNode,
  type CompletionOption,
  type CompletionSpec,
  type Shell,
} from '../io/completion-script.js';

const helpOption: CompletionOption = { flags: ['-h', '--help'], description: 'display help for command', takesValue: false, choices: [] };

function optionOf(option: Option): CompletionOption {
  return {
    flags: [option.short, option.long].filter((f): f is string => f !== undefined),
    description: option.description,
    takesValue: option.required,
    choices: option.argChoices ?? [],
  };
}

/** The completion spec of a commander tree: every command path with its subcommands and options. */
export function completionSpec(program: Command): CompletionSpec {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[]) => {
    nodes.push({
      path,
      subcommands: command.commands.map((c) => ({ name: c.name(), description: c.description() })),
      options: path.length === 1 ? [helpOption] : [...command.options.filter((o) => !o.hidden).map(optionOf), helpOption],
      argumentChoices: command.registeredArguments[0]?.argChoices ?? [],
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, [program.name()]);
  return { program: program.name(), globalOptions: program.options.filter((o) => !o.hidden).map(optionOf), nodes };
}

export function runCompletion(ctx: CliContext, program: Command, shell: Shell): void {
  ctx.io.out(renderCompletion(shell, completionSpec(program)));
}

export function registerCompletionCommand(program: Command, ctx: CliContext): void {
  printsNoJson(program.command('completion'))
    .addArgument(new Argument('<shell>', `the shell: ${shells.join(', ')}`).choices(shells))
    .description('Print a shell completion script for commands, subcommands and options')
    .addHelpText(
      'after',
      `
Examples:
  $ source <(topup completion bash)
  $ topup completion zsh > "\${fpath[1]}/_topup"
  $ topup completion fish > ~/.config/fish/completions/topup.fish`,
    )
    .action((shell: Shell) => runCompletion(ctx, program, shell));
}
