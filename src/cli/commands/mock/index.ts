import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerClock } from './clock.js';
import { registerDeposit } from './deposit.js';
import { registerFaults } from './faults.js';
import { registerFixtures } from './fixtures.js';
import { registerLogs } from './logs.js';
import { registerMoves } from './moves.js';
import { registerOpen } from './open.js';
import { registerRequests } from './requests.js';
import { registerReset } from './reset.js';
import { registerServe } from './serve.js';
import { registerState } from './state.js';

/** `topup mock`: one file per verb (serve, open, logs, requests, fixtures, state, reset, faults, clock, the moves, deposit). */
export function registerMockCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const mock = program
    .command('mock')
    .description('Run and steer the sandbox: serve it over HTTP, pay or expire invoices, add deposits')
    .addHelpText(
      'after',
      `
These act on the same server as every other command: a profile logged in to \`topup mock serve\`, --base-url
or TOPUP_BASE_URL of a served sandbox, or the embedded one (--mock, or when nothing is configured), which is the
one \`topup mock serve\` serves while it runs. A server that is not a topup sandbox is refused (exit 2).

Examples:
  $ topup mock serve --port 4010
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup mock pay "$inv"
  $ topup mock deposit 50000 --paid
  $ topup mock fixtures --json`,
    );
  if (scope === 'top') return;

  registerServe(mock, ctx);
  registerOpen(mock, ctx);
  registerLogs(mock, ctx);
  registerRequests(mock, ctx);
  registerFixtures(mock, ctx);
  registerState(mock, ctx);
  registerReset(mock, ctx);
  registerFaults(mock, ctx);
  registerClock(mock, ctx);
  registerMoves(mock, ctx);
  registerDeposit(mock, ctx);
}
