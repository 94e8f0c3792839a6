import type { CliContext } from '../../context.js';

/**
 * Opens a URL in the user's browser (xdg-open, open, or start), as `gh browse` does; TOPUP_BROWSER or BROWSER name
 * another program. Where none can run, the URL is printed to open by hand.
 */
export async function openInBrowser(ctx: CliContext, url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const chosen = ctx.io.env.TOPUP_BROWSER ?? ctx.io.env.BROWSER;
  const [command, args] =
    chosen !== undefined && chosen !== ''
      ? [chosen, [url]]
      : process.platform === 'darwin'
        ? ['open', [url]]
        : process.platform === 'win32'
          ? ['cmd', ['/c', 'start', '', url]]
          : ['xdg-open', [url]];
  const opened = await new Promise<boolean>((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  if (!opened) ctx.io.warn(`Could not start a browser (${command}); open ${url} yourself.`);
  else ctx.io.notice(`Opened ${url}`);
}
