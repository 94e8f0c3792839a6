import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseDuration, parseInstant, parseWholeNumber } from '../shared/choices.js';
import { CONTROL_SECRET_ENV, MAX_SANDBOX_INVOICES } from '../../../contract/sandbox-control.js';
import type { ServeOptions } from './serve-run.js';
import { groupThousands } from '../../../contract/money.js';

/** `topup mock serve`: its flags and help. */
export function registerServe(mock: Command, ctx: CliContext): void {
  mock
    .command('serve')
    .description('Serve the sandbox over HTTP until Ctrl-C')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parseWholeNumber('port', 0, 65535), 4010)
    .option('--host <host>', 'address to listen on (anything but loopback makes the sandbox reachable from that network)', '127.0.0.1')
    .option(
      '--allow-host <name>',
      'a host name the control API also answers to, e.g. a container name (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--public-url <url>', 'the origin written into invoice links, e.g. http://sandbox:4010 (default: the listen address)')
    .option(
      '--control-secret-file <file>',
      `a file (mode 0600) with a secret every control call must then present; or set ${CONTROL_SECRET_ENV}`,
    )
    .addOption(new Option('--control-secret <secret>').hideHelp())
    .option('--state <file>', "serve the state kept in this file (written atomically) instead of the config folder's sandbox")
    .option('--fresh', "serve a sandbox of its own, in memory from the seed, instead of the config folder's", false)
    .option('--ready-file <file>', 'once listening, write its URL and a newline to this file (atomically), for test runners')
    .option('--repair', 'with --state: go on past a damaged journal, keeping a copy of it (FILE.journal.bad-TIME)', false)
    .option('--seed <file>', 'start from a saved state (topup mock state save), in memory; with --state, it replaces what the file held')
    .option(
      '--start-at <time>',
      'with --fresh or --seed: start the sandbox clock at this time (ISO 8601, UTC without a zone), for the same invoice codes and times on every run',
      parseInstant('--start-at'),
    )
    .option('--no-rate-limit', 'turn off rate limits and the in-flight cap, for load tests')
    .option('--lean', 'answer only what the interface document guarantees, to prove a client tolerates a minimal server', false)
    .option(
      '--faults <spec>',
      'inject faults: drop-after=20%,503=10%/retry-after=1,429=10%,drop-before=1%,latency=5-50ms[@route+route]; /times=N and /after=N make sequences',
    )
    .option('--fault-seed <n>', 'seed for deterministic fault injection', parseWholeNumber('fault seed', 0, 2 ** 31), 0)
    .option('--log', 'print every request to stderr as it is answered (as topup mock logs --follow does)', false)
    .option('--open', "open the sandbox's dashboard in the browser", false)
    .option(
      '--journal-size <n>',
      'requests kept for topup mock logs and /__sandbox/requests (0: none, for load tests); past 256 Mi characters of their headers and bodies the oldest go first',
      parseWholeNumber('journal size', 0, 1_000_000),
      1_000,
    )
    .option(
      '--auto-pay <duration>',
      'pay every new invoice after this much sandbox time, e.g. 5s, 500ms, 2m (a number is seconds)',
      parseDuration('auto-pay'),
    )
    .option(
      '--auto-expire <duration>',
      'expire every new invoice after this much sandbox time instead of 60 minutes',
      parseDuration('auto-expire'),
    )
    .option(
      '--max-invoices <n>',
      `invoices (orders and deposits) it keeps before it answers 507 SANDBOX_FULL (at most and by default ${groupThousands(MAX_SANDBOX_INVOICES)})`,
      parseWholeNumber('max invoices', 1, MAX_SANDBOX_INVOICES),
    )
    .addHelpText(
      'after',
      `
Without --state, --fresh or --seed it serves the config folder's sandbox, the one the embedded sandbox keeps:
while it runs, every topup command here that would use the embedded sandbox uses it (no flags, no login), and
when it stops they go on with the same state. It says so in FILE.served beside that state, which --state FILE and
--fresh never do: start as many of those as you like (--port 0 --ready-file FILE tells you where each listens).
A --state that names the config folder's own state file serves that sandbox, as without --state.

Examples:
  $ topup mock serve
  $ topup mock serve --fresh --port 0 --ready-file ./sandbox.url   # a sandbox of its own, for a test run
  $ topup mock serve --auto-pay 5s   # invoices pay themselves, for a bot that polls the status
  $ topup mock serve --port 0 --json --state ./sandbox.json
  $ topup mock serve --seed ci-start.json   # every CI run starts from the same state
  $ topup mock serve --no-rate-limit
  $ topup mock serve --fresh --max-invoices 3   # the fourth order is refused: how does your bot take it?
  $ topup mock serve --lean --port 4011
  $ topup mock serve --faults "drop-after=20%@createOrder,503=10%/retry-after=1,429=10%" --fault-seed 7
  $ topup mock serve --faults "503/retry-after=1/times=1@createOrder"   # the first order fails once, its retry succeeds
  $ topup mock serve --host 0.0.0.0 --allow-host sandbox --public-url http://sandbox:4010 --control-secret-file ./secret   # in a container named sandbox

Faults change at run time too: PUT/GET/DELETE /__sandbox/faults.
Control calls that change the sandbox need Content-Type: application/json or an X-Topup-Sandbox header,
and answer only to loopback names and --allow-host names: a web page you visit cannot drive the sandbox.
That stops browsers, not other clients on a network: beyond loopback, set a control secret.`,
    )
    .action(async (options: ServeOptions) => (await import('./serve-run.js')).runServe(ctx, options));
}
