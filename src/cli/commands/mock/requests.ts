import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { runsAlone } from '../shared/group-action.js';
import { withLogFilters, type LogsOptions } from './logs.js';

/** `topup mock requests`: the request journal, listed (as `mock logs` prints it) or cleared. */
export function registerRequests(mock: Command, ctx: CliContext): void {
  const requests = mock
    .command('requests')
    .description("List or clear the sandbox's request journal (what `mock logs` shows)")
    .addHelpText(
      'after',
      `
\`topup mock requests\` lists them as \`topup mock requests list\` does, with the same filters;
\`topup mock logs --follow\` keeps printing new ones.

Examples:
  $ topup mock requests
  $ topup mock requests --filter-status 4xx,5xx --json
  $ topup mock requests clear`,
    );
  const list = withLogFilters(
    requests.command('list').description('Print the requests, oldest first: one line each, or NDJSON with --json'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock requests list --limit 10
  $ topup mock requests list --json --filter-method POST --base-url http://127.0.0.1:4010 | jq .status`,
    )
    .action(async (options: LogsOptions) => (await import('./requests-run.js')).runRequestsList(ctx, options));
  // Named alone it lists, and `mock requests --filter-status 4xx` is list's run with those flags.
  runsAlone(requests, async () => (await import('./requests-run.js')).runRequestsList(ctx, { follow: false, limit: 50 }), {
    optionsTo: list,
  });
  requests
    .command('clear')
    .description('Forget every request in the journal (ids go on from the last one)')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock requests clear
  $ topup mock requests clear --base-url http://127.0.0.1:4010`,
    )
    .action(async () => (await import('./requests-run.js')).runRequestsClear(ctx));
}
