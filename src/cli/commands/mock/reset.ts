import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseResetKeep, unknownResetPart, type ResetPart } from '../../../contract/sandbox-control.js';

/** `--keep faults,requests`: a name a reset cannot keep is a usage error, never ignored. */
function keepList(value: string, previous: ResetPart[] = []): ResetPart[] {
  const parsed = parseResetKeep(value);
  if ('unknown' in parsed) throw new InvalidArgumentError(unknownResetPart(parsed.unknown));
  return [...new Set([...previous, ...parsed.keep])];
}

/** `topup mock reset`. */
export function registerReset(mock: Command, ctx: CliContext): void {
  mock
    .command('reset')
    .description('Reset the sandbox to how it started: its seed, its starting faults, an empty request journal, its clock')
    .option('--keep <parts>', 'leave these as they are: state (records and clock), faults, requests', keepList)
    .addHelpText(
      'after',
      `
A served sandbox goes back to its --seed state (or the seed) and its --faults; faults added since and every
request in its journal are gone. The embedded sandbox goes back to the seed and forgets its request log.

Examples:
  $ topup mock reset
  $ topup mock reset --keep faults,requests
  $ topup mock reset --keep state --base-url http://127.0.0.1:4010   # only the faults and the journal`,
    )
    .action(async (options: { keep?: ResetPart[] }) => (await import('./reset-run.js')).runReset(ctx, options.keep ?? []));
}
