import { groupThousands } from './money.js';

/**
 * The sandbox's control API, outside the interface: its path prefix, and the header its every answer carries, by
 * which a client tells a topup sandbox from a real server before it acts on it. Zod-free, for the CLI's start-up path.
 */
export const CONTROL_PREFIX = '/__sandbox';
export const CONTROL_HEADER = 'x-topup-sandbox';
/**
 * Every answer of a sandbox served over HTTP names its instance (a random id made when it starts listening), so that
 * the CLI can tell the sandbox `topup mock serve` announced from whatever took its port after it died.
 */
export const INSTANCE_HEADER = 'x-topup-sandbox-instance';

/**
 * Set (to true) on a fetch function whose server enforces no rate limits: the sandbox's in-process fetch when it was
 * made with `rateLimit: false`. A client handed such a fetch does not pace itself unless told to (`pacing: true`), so
 * a test suite never waits on limits that are not there. A registered symbol, so copies of the modules agree.
 */
export const NO_RATE_LIMITS = Symbol.for('topup.fetch.noRateLimits');

/** Whether a fetch function says its server enforces no rate limits (see NO_RATE_LIMITS). */
export function declaresNoRateLimits(fetchFunction: unknown): boolean {
  return typeof fetchFunction === 'function' && (fetchFunction as { [NO_RATE_LIMITS]?: unknown })[NO_RATE_LIMITS] === true;
}

/**
 * The most invoices a sandbox keeps (`createSandbox({ maxInvoices })`, `topup mock serve --max-invoices`), and its
 * default: at about 2.4 KB of state each at most (an order with a 64-character client_reference of escaped characters,
 * its invoice, its 255-character idempotency key, two ledger lines), 200,000 keep the whole state under the 512 MiB
 * node can write or read as one JSON text. A request for one more is answered 507 SANDBOX_FULL (mocks/rules/capacity.ts).
 */
export const MAX_SANDBOX_INVOICES = 200_000;

/**
 * What is wrong with one value of the request journal's status filter (a RequestFilter's `status`, `status=` of
 * `/__sandbox/requests`, `mock logs --filter-status`), or undefined: a status from 100 to 599, a class from `1xx` to
 * `5xx` (any case), or `dropped` for a connection closed without an answer. Anything else is refused, never matched
 * against nothing: an assertion that no request was answered `abc` would pass whatever the bot did.
 */
export function journalStatusProblem(value: number | string): string | undefined {
  const text = String(value).trim().toLowerCase();
  if (/^[1-5]xx$/.test(text) || text === 'dropped') return undefined;
  if (/^\d{3}$/.test(text) && Number(text) >= 100 && Number(text) <= 599) return undefined;
  return `'${String(value)}' is not a status (100 to 599), a class such as 4xx, or dropped`;
}

/** `1 invoice`, `12,000 invoices`: a capacity as the sandbox's refusal and `mock serve`'s banner say it. */
export function invoiceCount(count: number): string {
  return `${groupThousands(count)} ${count === 1 ? 'invoice' : 'invoices'}`;
}

/**
 * The control secret of a served sandbox (`topup mock serve` with TOPUP_SANDBOX_CONTROL_SECRET or
 * --control-secret-file): when one is set, every control call presents it in this header. Not `Authorization`,
 * which carries the API token of the account a call acts for.
 */
export const CONTROL_SECRET_HEADER = 'x-sandbox-control-secret';
/** Where `topup mock serve` and the CLI's control commands read the control secret from (never from an argument). */
export const CONTROL_SECRET_ENV = 'TOPUP_SANDBOX_CONTROL_SECRET';

/**
 * What a reset may keep (`POST /__sandbox/reset?keep=faults,requests`, `topup mock reset --keep …`,
 * `sandbox.reset({ keep })`); everything else goes back to how the sandbox started. `state` is the records with the
 * clock they are dated by: a clock moved back under kept records would date them in the future.
 */
export const RESET_PARTS = ['state', 'faults', 'requests'] as const;
export type ResetPart = (typeof RESET_PARTS)[number];

/** The parts a comma-separated keep list names (spaces and empty items allowed), or the first name that is none. */
export function parseResetKeep(text: string): { keep: ResetPart[] } | { unknown: string } {
  const keep: ResetPart[] = [];
  for (const name of text.split(',').map((s) => s.trim())) {
    if (name === '') continue;
    if (!(RESET_PARTS as readonly string[]).includes(name)) return { unknown: name };
    if (!keep.includes(name as ResetPart)) keep.push(name as ResetPart);
  }
  return { keep };
}

/** The one sentence for a keep list naming something a reset cannot keep. */
export function unknownResetPart(name: string): string {
  return `A reset can keep ${RESET_PARTS.join(', ')}; not '${name}'.`;
}
