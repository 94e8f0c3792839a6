import { DEFAULT_TIMEOUT_MS } from '../../../client/options.js';
import { embeddedNotice, type CliContext } from '../../context.js';
import { embeddedControl, remoteControl, type SandboxControlClient } from '../../sandbox/control.js';
import { controlSecretFromEnv } from '../../control-secret.js';

/**
 * The control API of the same target as every other command (src/cli/target.ts): a profile logged in to
 * `topup mock serve` drives that served sandbox. A target that is not a sandbox is refused, never replaced.
 */
export async function controlFor(ctx: CliContext): Promise<{ control: SandboxControlClient; token: string | undefined }> {
  const spec = ctx.targetSpec();
  if (spec.kind === 'remote') {
    // The client's own per-attempt timeout: the CLI sets none of its own for client calls.
    return {
      control: await remoteControl(spec.baseUrl, {
        fetch: await ctx.remoteFetch(),
        timeout: DEFAULT_TIMEOUT_MS,
        signal: ctx.signal,
        controlSecret: controlSecretFromEnv(ctx.io.env),
      }),
      token: spec.token,
    };
  }
  ctx.io.warn(ctx.io.style.dim(embeddedNotice(spec)));
  return { control: embeddedControl(await ctx.offlineSandbox()), token: undefined };
}
