import type { Command } from 'commander';
import { UsageError } from '../../errors.js';

/**
 * A group that does something when named alone (`topup mock faults` lists the faults), and still answers a mistyped
 * subcommand as commander answers it for every other group (`unknown command 'lst' (Did you mean list?)`, exit 2)
 * rather than "too many arguments". Commander does not suggest for a group with an action of its own, so the action
 * hands such a word to commander's own unknown-command report.
 */
export function runsAlone(group: Command, run: () => Promise<void>, options: { optionsTo?: Command } = {}): Command {
  // Flags given to the group itself are the subcommand's whose run it is (`optionsTo`): parsed, and refused, there.
  if (options.optionsTo !== undefined) group.allowUnknownOption();
  return group.allowExcessArguments(true).action(async (_options: unknown, command: Command) => {
    if (options.optionsTo !== undefined && command.args[0]?.startsWith('-') === true) {
      await options.optionsTo.parseAsync(command.args, { from: 'user' });
      return;
    }
    if (command.args.length > 0) {
      const report = (command as unknown as { unknownCommand?: () => never }).unknownCommand;
      if (typeof report === 'function') report.call(command);
      throw new UsageError(`unknown command '${command.args[0]}'.`);
    }
    await run();
  });
}
