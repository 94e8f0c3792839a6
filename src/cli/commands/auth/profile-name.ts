import type { CliContext } from '../../context.js';
import { namedProfile } from '../../target.js';

/** The profile a command acts on: --profile, then TOPUP_PROFILE (namedProfile), then `fallback`. */
export function profileNameFor(ctx: CliContext, fallback: string | undefined): string | undefined {
  return namedProfile(ctx.globals.profile, ctx.io.env)?.name ?? fallback;
}
