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
 * The control secret of a served sandbox (`topup mock serve` with TOPUP_SANDBOX_CONTROL_SECRET or
 * --control-secret-file): when one is set, every control call presents it in this header. Not `Authorization`,
 * which carries the API token of the account a call acts for.
 */
export const CONTROL_SECRET_HEADER = 'x-sandbox-control-secret';
/** Where `topup mock serve` and the CLI's control commands read the control secret from (never from an argument). */
export const CONTROL_SECRET_ENV = 'TOPUP_SANDBOX_CONTROL_SECRET';
