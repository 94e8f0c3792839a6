// `topup mock requests`' runs, loaded only when one runs (the flags and help in ./requests.ts stay on the eager path).
import type { CliContext } from '../../context.js';
import { controlFor } from './control.js';
import { runLogs, type LogsOptions } from './logs.js';

/** The journal as `topup mock logs` prints it, without following. */
export function runRequestsList(ctx: CliContext, options: LogsOptions): Promise<void> {
  return runLogs(ctx, { ...options, follow: false });
}

export async function runRequestsClear(ctx: CliContext): Promise<void> {
  await (await controlFor(ctx)).control.clearRequests();
  if (ctx.globals.json) return ctx.io.writeJson({ cleared: true });
  ctx.io.success('Request journal cleared.');
}
