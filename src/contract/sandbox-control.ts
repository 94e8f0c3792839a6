/**
 * The sandbox's control API, outside the interface: its path prefix, and the header its every answer carries, by
 * which a client tells a topup sandbox from a real server before it acts on it. Zod-free, for the CLI's start-up path.
 */
export const CONTROL_PREFIX = '/__sandbox';
export const CONTROL_HEADER = 'x-topup-sandbox';

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
