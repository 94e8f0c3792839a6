import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseDuration } from '../shared/choices.js';
import { runsAlone } from '../shared/group-action.js';

/** `topup mock clock`: the sandbox's time, and moving it on. */
export function registerClock(mock: Command, ctx: CliContext): void {
  const clock = mock
    .command('clock')
    .description("Show the sandbox's clock, or move it on (expiry, auto-pay and delivery without waiting)")
    .addHelpText(
      'after',
      `
The clock only moves forward; \`topup mock reset\` sets it back to where the sandbox started.

Examples:
  $ topup mock clock
  $ topup mock clock advance 1h
  $ topup mock clock --json | jq .next_move_at`,
    );
  runsAlone(clock, async () => (await import('./clock-run.js')).runClockShow(ctx));
  clock
    .command('show')
    .description('The sandbox time, how far it is ahead of this machine, and when it next moves something by itself')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock clock show
  $ topup mock clock show --base-url http://127.0.0.1:4010`,
    )
    .action(async () => (await import('./clock-run.js')).runClockShow(ctx));
  clock
    .command('advance')
    .argument('<duration>', 'how far: 500ms, 30s, 15m, 1h', parseDuration('duration'))
    .description('Move the sandbox clock on by DURATION: 500ms, 30s, 15m, 1h (a plain number is seconds)')
    .addHelpText(
      'after',
      `
What falls due meanwhile (expiry, auto-pay, delivery) happens before the move answers, dated when it was due.

Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup mock clock advance 61m
  $ topup invoices status "$inv"`,
    )
    .action(async (ms: number) => (await import('./clock-run.js')).runClockAdvance(ctx, ms));
}
