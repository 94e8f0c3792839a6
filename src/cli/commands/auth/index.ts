import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerLogin } from './login.js';
import { registerLogout } from './logout.js';

/**
 * `topup auth`: login and logout register themselves; status, token and switch are registered here, on every run,
 * and their run functions (status.ts, token.ts, switch.ts) load only when they run.
 */
export function registerAuthCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const auth = program
    .command('auth')
    .description('Log in to a server, log out, switch profiles, and check or print the token')
    .addHelpText(
      'after',
      `
Until you log in, commands use the built-in offline sandbox with a demo token.
TOPUP_TOKEN, when set, wins over the token stored by \`auth login\`.

Examples:
  $ topup auth login
  $ topup auth login --with-token --base-url https://shop.example.com < token.txt
  $ topup auth status
  $ topup auth switch --profile staging
  $ topup auth logout --profile staging`,
    );
  if (scope === 'top') return;

  registerLogin(auth, ctx);
  registerLogout(auth, ctx);

  auth
    .command('status')
    .description('Check the token of every profile with its server; the active one first')
    .addHelpText(
      'after',
      `
Each profile's token is checked with its server (token/validate), two at a time. A server that does not answer
shows as unreachable, not invalid. Exit 4 when the active target has no token or its server refuses it; the other
profiles never change the exit code. The token itself is never shown, only its family (topup_test_… or topup_live_…).

Examples:
  $ topup auth status
  $ topup auth status --json | jq -r '.[] | select(.status != "valid") | .profile'
  $ topup auth status --profile staging --json`,
    )
    .action(async () => (await import('./status.js')).runStatus(ctx));

  auth
    .command('token')
    .description("Print the active profile's token on stdout, for another program (as gh auth token)")
    .addHelpText(
      'after',
      `
TOPUP_TOKEN wins, as everywhere; a stored token is printed only for its own profile's server. It goes to stdout
only, never to stderr or a log: hand it on through a pipe or the environment, not as an argument, which other
users can see. Exit 4 with one sentence when there is none (the embedded sandbox has none).

Examples:
  $ topup auth token --profile staging
  $ topup auth token --profile staging | topup auth login --with-token --profile ci --base-url https://shop.example.com`,
    )
    .action(async () => (await import('./token.js')).runToken(ctx));

  auth
    .command('switch')
    .usage('[--profile NAME]')
    .description('Make another profile the current one; on a terminal without --profile, pick it from a list')
    .addHelpText(
      'after',
      `
Without --profile and without a terminal (or with --no-input) it is a usage error: a script must name the profile.

Examples:
  $ topup auth switch --profile staging
  $ topup auth switch`,
    )
    .action(async () => (await import('./switch.js')).runSwitch(ctx));
}
