import { CliContext } from '../context.js';
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
 * The lookups of `topup __complete`, on the target the words name (the one rule of target.ts), through a context whose
 * stderr is silent: no notice, warning or error reaches the shell. No prompts (nothing is a terminal here), at most
 * one request per lookup, no retries, and the deadline over all of it.
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
      baseUrl: target.baseUrl,
    });
    return ctx;
  };
  const within = async (target: WordTarget, work: (ctx: CliContext, signal: AbortSignal) => Promise<Candidate[]>): Promise<Candidate[]> => {
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = deps.signal ? AbortSignal.any([deadline, deps.signal]) : deadline;
    const expired = new Promise<Candidate[]>((resolve) => signal.addEventListener('abort', () => resolve([]), { once: true }));
    try {
      return await Promise.race([work(contextFor(target), signal), expired]);
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
      within(target, async (ctx, signal) => {
        const page = await (await ctx.client()).orders.list({ per_page: 20 }, { signal });
        return itemsOf(page, 'orders').flatMap((o) => described(o.invoice_code, INVOICE_CODE, o.status, o.platform_username));
      }),
    depositCodes: (target) =>
      within(target, async (ctx, signal) => {
        const page = await (await ctx.client()).deposits.list({ per_page: 20 }, { signal });
        return itemsOf(page, 'deposits').flatMap((d) => described(d.invoice_code, INVOICE_CODE, d.payment_status));
      }),
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
