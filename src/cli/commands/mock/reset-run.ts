// `topup mock reset`'s run, loaded only when it runs.
import type { ResetPart } from '../../../contract/sandbox-control.js';
import type { CliContext } from '../../context.js';
import { controlFor } from './control.js';

export async function runReset(ctx: CliContext, keep: readonly ResetPart[]): Promise<void> {
  await (await controlFor(ctx)).control.reset(keep);
  if (ctx.globals.json) return ctx.io.writeJson({ reset: true, kept: keep });
  ctx.io.success(
    keep.length === 0 ? 'Sandbox reset to how it started.' : `Sandbox reset to how it started, keeping its ${keep.join(' and ')}.`,
  );
}
