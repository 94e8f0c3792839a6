import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseWholeNumber } from '../shared/choices.js';
import { runsAlone } from '../shared/group-action.js';
import type { FaultAddOptions } from './faults-run.js';

/** A value spliced into the compact form must not carry its separators (`,` `/` `@` `=` `+`). */
const shaped = (pattern: RegExp, what: string) => (value: string) => {
  const text = value.trim();
  if (!pattern.test(text)) throw new InvalidArgumentError(what);
  return text;
};

const routes = (value: string, previous: string[] = []) => [
  ...previous,
  ...value.split(',').map((id) => shaped(/^[A-Za-z][A-Za-z0-9_]*$/, 'A route is an endpoint id, e.g. createOrder or getBalance.')(id)),
];

/** `topup mock faults`: list, add and clear the faults a served sandbox injects. */
export function registerFaults(mock: Command, ctx: CliContext): void {
  const faults = mock
    .command('faults')
    .description('List, add and clear the faults the sandbox injects (errors, 429s, drops, latency)')
    .addHelpText(
      'after',
      `
Faults act on a served sandbox (topup mock serve); the embedded one lives one command long and keeps none.
Rules are written as \`mock serve --faults\` reads them, and listed the same way: 503=10%/retry-after=1@createOrder.
\`topup mock reset\` clears the ones added since the sandbox started (--keep faults keeps them).

Examples:
  $ topup mock faults --base-url http://127.0.0.1:4010
  $ topup mock faults add --route createOrder --status 503 --times 1 --base-url http://127.0.0.1:4010
  $ topup mock faults add "latency=100ms/25%" --base-url http://127.0.0.1:4010
  $ topup mock faults clear --base-url http://127.0.0.1:4010`,
    );
  runsAlone(faults, async () => (await import('./faults-run.js')).runFaultsList(ctx));
  faults
    .command('list')
    .description('The rules, and how often each has matched and fired')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock faults list --base-url http://127.0.0.1:4010
  $ topup mock faults list --json --base-url http://127.0.0.1:4010 | jq .stats`,
    )
    .action(async () => (await import('./faults-run.js')).runFaultsList(ctx));
  faults
    .command('add [spec]')
    .description('Add a rule after the ones there (which keep their counts), as flags or as SPEC')
    .option('--status <code>', 'answer with this status: 429, 500, 502, 503 or 504', parseWholeNumber('status', 100, 599))
    .addOption(
      new Option('--drop <when>', 'cut the connection before the handler runs, or after it committed').choices(['before', 'after']),
    )
    .option(
      '--latency <ms>',
      'answer late: 200ms, or 5-50ms for a spread',
      shaped(/^\d+(?:-\d+)?(?:ms)?$/, 'latency is milliseconds: 200ms or 5-50ms.'),
    )
    .option('--rate <share>', 'the share of requests it hits: 10% or 0.1', shaped(/^\d+(?:\.\d+)?%?$/, 'rate is a share: 10% or 0.1.'))
    .option('--times <n>', 'fire this many times, then stop', parseWholeNumber('times', 1))
    .option('--after <n>', 'let this many requests pass first', parseWholeNumber('after', 0))
    .option('--retry-after <seconds>', 'the Retry-After of a 429 or 5xx', parseWholeNumber('retry-after', 0, 3600))
    .option('--route <id>', 'only this endpoint, e.g. createOrder (repeatable; default: every /api/v1 route)', routes)
    .addHelpText(
      'after',
      `
One of --status, --drop or --latency says what the fault does; --rate, --times or --after how often
(latency fires on every request unless told otherwise). SPEC is the same rule as \`mock serve --faults\` takes it.

Examples:
  $ topup mock faults add --route createOrder --status 503 --times 1 --base-url http://127.0.0.1:4010
  $ topup mock faults add --status 429 --retry-after 2 --rate 10% --base-url http://127.0.0.1:4010
  $ topup mock faults add --drop after --route createOrder --times 1 --base-url http://127.0.0.1:4010
  $ topup mock faults add "503/retry-after=1/times=1@createOrder" --base-url http://127.0.0.1:4010`,
    )
    .action(async (spec: string | undefined, options: FaultAddOptions) =>
      (await import('./faults-run.js')).runFaultsAdd(ctx, spec, options),
    );
  faults
    .command('clear')
    .description('Remove every rule')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock faults clear --base-url http://127.0.0.1:4010`,
    )
    .action(async () => (await import('./faults-run.js')).runFaultsClear(ctx));
}
