import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { helpTopicNames, isHelpTopic } from '../../help/topic-names.js';
import { printsNoJson } from '../../json-output.js';
import { VERSION } from '../../version.js';
import { fitHelp, helpWidthOf } from '../../help/fit.js';

const topicList = () => `topics: ${helpTopicNames.join(', ')}`;
const visible = (command: Command) => command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);

/** The command `words` names from the root, or a usage error that says which word is unknown and what would do. */
function commandAt(program: Command, words: readonly string[]): Command {
  let command = program;
  for (const word of words) {
    const next = visible(command).find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) {
      const names = visible(command).map((c) => c.name());
      throw new UsageError(
        command === program
          ? `No help topic or command is named '${word}' (${topicList()}; commands: ${names.join(', ')}).`
          : `'${command.name()}' has no subcommand '${word}' (its subcommands: ${names.join(', ') || 'none'}; ${topicList()}).`,
      );
    }
    command = next;
  }
  return command;
}

/** `topup help reference [--man]`: every command's help and every topic, as Markdown or as a man page. */
async function printReference(ctx: CliContext, program: Command, words: readonly string[], man: boolean): Promise<void> {
  if (words.length > 1) throw new UsageError('`topup help reference` takes no more words; add --man for the man page.');
  const { referenceMan, referenceMarkdown, referencePages } = await import('../../help/reference.js');
  const pages = referencePages(program);
  ctx.io.out((man ? referenceMan(pages, VERSION) : referenceMarkdown(pages)).trimEnd());
}

/** `topup help [topic | command [subcommand…]]`: a topic's text, or that command's own help, on stdout. */
export async function runHelp(ctx: CliContext, program: Command, words: readonly string[], options: { man?: boolean } = {}): Promise<void> {
  const [first] = words;
  if (first === 'reference') return printReference(ctx, program, words, options.man === true);
  if (options.man === true) throw new UsageError('--man goes with `topup help reference`.');
  if (first !== undefined && isHelpTopic(first)) {
    if (words.length > 1) throw new UsageError(`The help topic '${first}' has no parts; run: topup help ${first}`);
    const { helpTopicText } = await import('../../help/topics.js');
    return ctx.io.out(fitHelp(helpTopicText(first), helpWidthOf(ctx.io.columns)));
  }
  commandAt(program, words).outputHelp();
}

export function registerHelpCommand(program: Command, ctx: CliContext): void {
  printsNoJson(program.command('help'))
    .argument('[topic-or-command...]', `a topic (${helpTopicNames.join(', ')}), or a command and its subcommands`)
    .description(`Show help for a command, or a topic: ${helpTopicNames.join(', ')}; \`reference\` prints them all`)
    .option('--man', 'with reference: print it as a man page (roff) instead of Markdown', false)
    .addHelpText(
      'after',
      `
Examples:
  $ topup help orders create
  $ topup help environment
  $ topup help exit-codes
  $ topup help reference > topup-reference.md`,
    )
    .action((words: string[], options: { man: boolean }) => runHelp(ctx, program, words, options));
}
