import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printsNoJson } from '../../json-output.js';
import { openInBrowser } from './browser.js';
import { controlBaseUrl, controlFor } from './control.js';

/**
 * `topup mock open`: the dashboard of the target sandbox in the browser: a served one, or the config folder's while
 * `topup mock serve` serves it. The embedded one in this process has none: it is no server.
 */
export async function runOpen(ctx: CliContext): Promise<void> {
  const baseUrl = await controlBaseUrl(ctx);
  if (baseUrl === undefined) {
    throw new UsageError(
      'The embedded sandbox is no server, so it has no dashboard; run `topup mock serve --open`, or pass --base-url of a served sandbox.',
    );
  }
  // Only a sandbox has a dashboard: ask it for its fixtures first (a real server is refused here, never opened).
  await (await controlFor(ctx)).control.fixtures();
  await openInBrowser(ctx, `${baseUrl.replace(/\/+$/, '')}/__sandbox/`);
}

/** `topup mock open`. */
export function registerOpen(mock: Command, ctx: CliContext): void {
  printsNoJson(mock.command('open'))
    .description("Open a served sandbox's dashboard in the browser")
    .addHelpText(
      'after',
      `
With no flags: the dashboard of the topup mock serve that serves the config folder's sandbox.

Examples:
  $ topup mock open --base-url http://127.0.0.1:4010
  $ topup mock serve --open`,
    )
    .action(() => runOpen(ctx));
}
