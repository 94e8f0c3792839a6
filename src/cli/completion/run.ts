import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { complete, completionText, type Lookups } from './complete.js';

/** The lookups, loaded only when a word needs one: commands, flags and fixed choices need neither the client nor the network. */
function lazyLookups(ctx: CliContext): Lookups {
  const load = () => import('./lookups.js').then(({ targetLookups }) => targetLookups(ctx.io.streams, ctx.deps));
  return {
    // The config folder is read by the start-up bundle already: no need to load the client for it.
    profiles: async () => {
      try {
        return ctx.settings().profileNames();
      } catch {
        return [];
      }
    },
    invoiceCodes: async (target) => (await load()).invoiceCodes(target),
    depositCodes: async (target) => (await load()).depositCodes(target),
    articleSlugs: async (target) => (await load()).articleSlugs(target),
    paymentMethods: async (target) => (await load()).paymentMethods(target),
  };
}

/**
 * `topup __complete WORD…`: the candidates for the last word, one a line, then the directive line (cobra's protocol),
 * for the scripts of `topup completion`. Never an error: a shell shows nothing rather than a message.
 */
export async function runComplete(ctx: CliContext, program: Command, words: readonly string[], lookups?: Lookups): Promise<void> {
  ctx.io.out(completionText(await complete(program, words, lookups ?? lazyLookups(ctx))));
}
