import type { Command } from 'commander';
import type { CliContext } from '../../context.js';

/** `topup doctor`, registered on every run; its checks (doctor/run.ts) load only when it runs. */
export function registerDoctorCommand(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description('Check where requests go, the server, its clock and rate limits, and the token; --contract reads every endpoint')
    .option('--contract', 'also read every GET endpoint once (paced) and check each answer against the interface contract', false)
    .addHelpText(
      'after',
      `
Read-only: it never creates an order. Exit 0 when all is well, 1 with a list of findings otherwise.
Values this version does not know, and differences in fields the interface document does not show,
are listed as notes, which are no problem.

Examples:
  $ topup doctor
  $ topup doctor --contract --profile staging
  $ topup doctor --contract --json | jq '.findings'`,
    )
    .action(async (options: { contract: boolean }) => (await import('./run.js')).runDoctor(ctx, options));
}
