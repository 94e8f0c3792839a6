import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printsNoJson } from '../../json-output.js';
import { openInBrowser } from './browser.js';
import { controlFor } from './control.js';

/** `topup mock open`: the dashboard of the target sandbox in the browser. The embedded one has none: it is no server. */
export async function runOpen(ctx: CliContext): Promise<void> {
  const spec = ctx.targetSpec();
  if (spec.kind !== 'remote') {
    throw new UsageError(
      'The embedded sandbox is no server, so it has no dashboard; run `topup mock serve --open`, or pass --base-url of a served sandbox.',
    );
  }
  // Only a sandbox has a dashboard: ask it for its fixtures first (a real server is refused here, never opened).
  await (await controlFor(ctx)).control.fixtures();
  await openInBrowser(ctx, `${spec.baseUrl.replace(/\/+$/, '')}/__sandbox/`);
}

/** `topup mock open`. */
export function registerOpen(mock: Command, ctx: CliContext): void {
  printsNoJson(mock.command('open'))
    .description("Open a served sandbox's dashboard in the browser")
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock open --base-url http://127.0.0.1:4010
  $ topup mock serve --open`,
    )
    .action(() => runOpen(ctx));
}
