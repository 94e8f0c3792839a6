import { DEFAULT_TIMEOUT_MS } from '../../../client/options.js';
import type { CliContext } from '../../context.js';
import { embeddedControl, remoteControl, type SandboxControlClient } from '../../sandbox/control.js';
import { controlSecretFromEnv } from '../../control-secret.js';

/**
 * The control API of the same target as every other command (src/cli/target.ts): a profile logged in to
 * `topup mock serve` drives that served sandbox, and so does the embedded target while `topup mock serve` serves the
 * config folder's state (rule 5): it holds that state, so the moves go to it, never to the file behind its back.
 * A target that is not a sandbox is refused, never replaced.
 */
export async function controlFor(ctx: CliContext): Promise<{ control: SandboxControlClient; token: string | undefined }> {
  const spec = ctx.targetSpec();
  if (spec.kind === 'remote') return { control: await servedControl(ctx, spec.baseUrl), token: spec.token };
  const home = await ctx.noticeEmbedded(spec);
  // No token: a deposit without --account is the demo account's, as on the embedded sandbox.
  if (home.kind === 'served') return { control: await servedControl(ctx, home.url), token: undefined };
  return { control: embeddedControl(await ctx.offlineSandbox()), token: undefined };
}

/** The base URL the control moves of this run go to: the served sandbox's, or undefined for the in-process one. */
export async function controlBaseUrl(ctx: CliContext): Promise<string | undefined> {
  const spec = ctx.targetSpec();
  if (spec.kind === 'remote') return spec.baseUrl;
  const home = await ctx.sandboxHome();
  return home.kind === 'served' ? home.url : undefined;
}

async function servedControl(ctx: CliContext, baseUrl: string): Promise<SandboxControlClient> {
  // The client's own per-attempt timeout: the CLI sets none of its own for client calls.
  return remoteControl(baseUrl, {
    fetch: await ctx.remoteFetch(),
    timeout: DEFAULT_TIMEOUT_MS,
    signal: ctx.signal,
    controlSecret: controlSecretFromEnv(ctx.io.env),
  });
}
