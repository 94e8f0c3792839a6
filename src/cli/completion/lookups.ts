import { CliContext } from '../context.js';
import type { TargetSpec } from '../target.js';
import type { CliIO } from '../io/streams.js';
import { sanitizeText } from '../io/sanitize.js';
import type { Candidate, Lookups, WordTarget } from './complete.js';

/** A lookup on a server gets this long in all (loading the client and the request included), then completes nothing. */
export const LOOKUP_DEADLINE_MS = 1_500;

const INVOICE_CODE = /^INV\d+$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const METHOD_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

const silent = { write: () => true };

/** Only text of our own making or the server's sanitised text reaches the shell; a value must be a plain word. */
const described = (value: unknown, pattern: RegExp, ...parts: unknown[]): Candidate[] =>
  typeof value === 'string' && pattern.test(value)
    ? [
        {
          value,
          description: sanitizeText(parts.filter((p) => typeof p === 'string' && p !== '').join(' '), { multiline: false }) || undefined,
        },
      ]
    : [];

const itemsOf = (data: unknown, key: string): Record<string, unknown>[] => {
  const items = (data as Record<string, unknown> | null)?.[key];
  return Array.isArray(items) ? items.filter((i): i is Record<string, unknown> => i !== null && typeof i === 'object') : [];
};

/**
 * The lookups of `topup __complete`, on the configured target (the one rule of target.ts: --mock and --profile among
 * the words, the environment, the current profile), through a context whose stderr is silent: no notice, warning or
 * error reaches the shell. No prompts (nothing is a terminal here), at most one request per lookup, no retries, and
 * the deadline over all of it.
 * A Tab press is no request a person made: a `--base-url` among the words completes nothing (the shell would send
 * whatever URL was typed, or pasted from a stranger), and the token goes only to the logged-in profile's own server.
 */
export function targetLookups(streams: CliIO, deps: CliContext['deps'], deadlineMs = LOOKUP_DEADLINE_MS): Lookups {
  const contextFor = (target: WordTarget) => {
    const ctx = new CliContext({ ...streams, stdout: silent, stderr: silent }, deps);
    ctx.setGlobals({
      json: true,
      color: false,
      input: false,
      debug: false,
      mock: target.mock,
      profile: target.profile,
    });
    return ctx;
  };
  const within = async (
    target: WordTarget,
    work: (ctx: CliContext, signal: AbortSignal) => Promise<Candidate[]>,
    needs: 'token' | 'nothing' = 'nothing',
  ): Promise<Candidate[]> => {
    if (target.baseUrl !== undefined) return [];
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = deps.signal ? AbortSignal.any([deadline, deps.signal]) : deadline;
    const expired = new Promise<Candidate[]>((resolve) => signal.addEventListener('abort', () => resolve([]), { once: true }));
    try {
      const ctx = contextFor(target);
      if (needs === 'token' && !ownServerOfProfile(ctx.targetSpec())) return [];
      return await Promise.race([work(ctx, signal), expired]);
    } catch {
      return [];
    }
  };
  return {
    profiles: async () => {
      try {
        return contextFor({ mock: false }).settings().profileNames();
      } catch {
        return [];
      }
    },
    invoiceCodes: (target) =>
      within(
        target,
        async (ctx, signal) => {
          const page = await (await ctx.client()).orders.list({ per_page: 20 }, { signal });
          return itemsOf(page, 'orders').flatMap((o) => described(o.invoice_code, INVOICE_CODE, o.status, o.platform_username));
        },
        'token',
      ),
    depositCodes: (target) =>
      within(
        target,
        async (ctx, signal) => {
          const page = await (await ctx.client()).deposits.list({ per_page: 20 }, { signal });
          return itemsOf(page, 'deposits').flatMap((d) => described(d.invoice_code, INVOICE_CODE, d.payment_status));
        },
        'token',
      ),
    articleSlugs: (target) =>
      within(target, async (ctx, signal) => {
        const page = await (await ctx.client()).articles.list({}, { signal });
        return itemsOf(page, 'articles').flatMap((a) => described(a.slug, SLUG, a.title));
      }),
    paymentMethods: (target) =>
      within(target, async (ctx, signal) => {
        const data = await (await ctx.client()).catalog.paymentMethods({ signal });
        return itemsOf(data, 'payment_methods').flatMap((m) => described(m.code, METHOD_CODE, m.name));
      }),
  };
}

/**
 * Whether a lookup may send a token: to the embedded sandbox (its demo token), or to the server of the profile the
 * run names or has logged in (TOPUP_TOKEN included); never to TOPUP_BASE_URL of no profile.
 */
function ownServerOfProfile(spec: TargetSpec): boolean {
  return spec.kind === 'embedded' || spec.profile !== undefined;
}
