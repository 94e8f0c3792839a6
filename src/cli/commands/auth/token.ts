import { AuthError } from '../../../errors.js';
import type { CliContext } from '../../context.js';

/**
 * `topup auth token`: the token the active target would send, on stdout, for another program to use (as
 * `gh auth token`). The one rule of target.ts decides it: TOPUP_TOKEN, else the stored token of the profile that
 * serves the target. The embedded sandbox's demo token is no one's token: that, like no token at all, is exit 4.
 */
export async function runToken(ctx: CliContext): Promise<void> {
  const spec = ctx.targetSpec();
  if (spec.kind === 'embedded')
    throw new AuthError(
      'No token: commands use the embedded offline sandbox, which needs none; log in with `topup auth login`, or set TOPUP_TOKEN and TOPUP_BASE_URL.',
    );
  if (spec.token === undefined) throw new AuthError(ctx.missingTokenReason() ?? `No token for ${spec.baseUrl}.`);
  const token = spec.token;
  // Printing the token is this command's job: the one run whose stdout is not redacted.
  await ctx.io.revealingTokens(async () => {
    if (ctx.globals.json)
      return ctx.io.writeJson({ token, profile: spec.profile ?? null, base_url: spec.baseUrl, token_source: spec.tokenSource });
    ctx.io.out(`${token}\n`);
  });
}
