import { afterAttempts } from './transport-failure.js';
import type { Clock } from './clock.js';
import { ConnectionError, RateLimitError, ServerError, TimeoutError, TopupError } from '../errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Milliseconds from the first attempt after which no retry starts; also the cap on Retry-After. */
  maxRetryTime: number;
  /** First backoff ceiling; doubles per retry. */
  baseDelay: number;
  /** Largest backoff ceiling. */
  maxDelay: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 4,
  maxRetryTime: 60_000,
  baseDelay: 500,
  maxDelay: 8_000,
};

const retryableServerStatuses = new Set([502, 503, 504]);

/** Only failures that a later identical request may not repeat. */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError || error instanceof RateLimitError) return true;
  return error instanceof ServerError && error.status !== undefined && retryableServerStatuses.has(error.status);
}

/**
 * Retry-After as seconds: delta-seconds or an HTTP date (a past date means 0).
 * Returns undefined for anything else, so a garbled header falls back to backoff.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  // Only try a date when it has letters, so Date.parse never guesses at a bare number.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - nowMs) / 1000);
}

/** Exponential backoff with full jitter: a uniform pick in [0, min(maxDelay, baseDelay·2^retry)). */
export function backoffDelay(retry: number, random: number, policy: Pick<RetryPolicy, 'baseDelay' | 'maxDelay'>): number {
  const ceiling = Math.min(policy.maxDelay, policy.baseDelay * 2 ** retry);
  return Math.floor(random * ceiling);
}

export interface RetryState {
  error: unknown;
  /** Retries already made (0 after the first attempt failed). */
  retry: number;
  /** Milliseconds since the first attempt started. */
  elapsed: number;
  random: number;
}

/**
 * The wait before the next attempt, or undefined to give up.
 * Retry-After wins over backoff; a Retry-After longer than what is left of maxRetryTime ends the retries,
 * because waiting less than the server asked would only earn another 429.
 */
export function retryDelay(state: RetryState, policy: RetryPolicy): number | undefined {
  if (!isRetryableError(state.error) || state.retry >= policy.maxRetries) return undefined;
  const retryAfter = state.error instanceof TopupError ? state.error.retryAfter : undefined;
  const delay = retryAfter === undefined ? backoffDelay(state.retry, state.random, policy) : Math.ceil(retryAfter * 1000);
  return state.elapsed + delay > policy.maxRetryTime ? undefined : delay;
}

/**
 * Runs `attempt` until it succeeds or `retryDelay` gives up; `retryable: false` means exactly one attempt.
 * maxRetryTime counts from the first attempt's start: an attempt that first waits its turn (pacing) calls `started`
 * once it may go, so that a call queued behind a burst keeps its retries. One that never calls it counts from the call.
 */
export async function withRetries<T>(
  attempt: (retry: number, started: () => void) => Promise<T>,
  options: {
    retryable: boolean;
    policy: RetryPolicy;
    clock: Clock;
    signal?: AbortSignal | undefined;
    /** `status`: that of the answer that failed, when one arrived. */
    onWait?: ((reason: 'retry-after' | 'backoff', ms: number, status: number | undefined) => void) | undefined;
    /** Called with the error of each attempt that another will follow. */
    onRetry?: ((error: unknown) => void) | undefined;
  },
): Promise<T> {
  const { policy, clock, signal } = options;
  const calledAt = clock.now();
  let startedAt: number | undefined;
  const started = () => {
    startedAt ??= clock.now();
  };
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry, started);
    } catch (error) {
      if (!options.retryable || signal?.aborted) throw error;
      const delay = retryDelay({ error, retry, elapsed: clock.now() - (startedAt ?? calledAt), random: clock.random() }, policy);
      if (delay === undefined) throw afterAttempts(error, retry + 1);
      options.onRetry?.(error);
      const answered = error instanceof TopupError ? error : undefined;
      options.onWait?.(answered?.retryAfter !== undefined ? 'retry-after' : 'backoff', delay, answered?.status);
      await clock.sleep(delay, signal);
    }
  }
}
