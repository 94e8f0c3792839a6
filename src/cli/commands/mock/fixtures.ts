import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { renderTable } from '../../io/table.js';
import type { SandboxControlClient } from '../../sandbox/control.js';
import { controlFor } from './control.js';

export async function runFixtures(ctx: CliContext): Promise<void> {
  const answer = await (await controlFor(ctx)).control.fixtures();
  // Printing the sandbox's test tokens is this command's job: stdout is not redacted while it does.
  if (ctx.globals.json) return ctx.io.revealingTokens(() => ctx.io.writeJson(answer));
  // A served sandbox is a server too: its text is made safe like any other (io/sanitize.ts).
  const fixtures = (await import('../../io/sanitize.js')).sanitizeDeep(answer) as typeof answer;
  const view = await ctx.io.tableView();
  ctx.io.revealingTokens(() => printFixtures(ctx, fixtures, view));
}

function printFixtures(
  ctx: CliContext,
  fixtures: Awaited<ReturnType<SandboxControlClient['fixtures']>>,
  view: Awaited<ReturnType<CliContext['io']['tableView']>>,
): void {
  ctx.io.out(
    renderTable(
      fixtures.accounts,
      [
        { header: 'account', value: (a) => a.name },
        { header: 'mode', value: (a) => a.mode, priority: 1 },
        { header: 'chat user', value: (a) => a.chat_user_id ?? '-', priority: 2 },
        { header: 'balance', value: (a) => String(a.balance), align: 'right', priority: 3 },
        { header: 'token', value: (a) => a.token },
      ],
      view,
    ),
  );
  ctx.io.out('\n');
  ctx.io.out(
    renderTable(
      fixtures.cases,
      [
        // Cases are told apart by the ends of their names: the code and the body go before a name is cut short.
        { header: 'case', value: (c) => c.name, free: true, readable: 40 },
        { header: 'expect', value: (c) => String(c.expect.status) },
        { header: 'code', value: (c) => c.expect.code ?? '-', priority: 2 },
        { header: 'body', value: (c) => JSON.stringify(c.body), free: true, priority: 1 },
      ],
      view,
    ),
  );
  // An older served sandbox has none.
  if (fixtures.magic_orders === undefined) return;
  // Titles only on a terminal: piped, the tables stay plain rows, one blank line apart, as above.
  const terminal = ctx.io.terminal;
  ctx.io.out(terminal ? '\nMagic orders (they end by themselves, with any token):\n' : '\n');
  ctx.io.out(
    renderTable(
      fixtures.magic_orders,
      [
        { header: 'outcome', value: (m) => m.outcome },
        { header: 'pass', value: (m) => String(m.body.platform_pass_id), align: 'right', priority: 2 },
        { header: 'ends', value: (m) => m.ends, free: true, priority: 1 },
      ],
      view,
    ),
  );
  const first = fixtures.magic_orders[0];
  if (terminal && first !== undefined)
    ctx.io.out(`\nOrder them in place ${first.body.place_id} for platform user ${first.body.platform_username}.\n`);
}

/** `topup mock fixtures`. */
export function registerFixtures(mock: Command, ctx: CliContext): void {
  mock
    .command('fixtures')
    .description("Print the sandbox's test accounts, tokens and order bodies")
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock fixtures
  $ topup mock fixtures --json | jq -r '.accounts[] | select(.name=="rich") | .token'`,
    )
    .action(() => runFixtures(ctx));
}
