import { MAX_IN_FLIGHT_SERVER, rateClasses, type RateClass } from '../../src/contract/rate-limits.js';
import { ApiError } from '../core/exchange.js';

interface Window {
  startedAt: number;
  count: number;
}

/**
 * Fixed windows that open at a key's first request (as Laravel's throttle does), one per class and key.
 * Answers the X-RateLimit-* headers for every counted request.
 */
export class RateLimiter {
  readonly #windows = new Map<string, Window>();

  take(rateClass: RateClass, key: string, now: number): Record<string, string> {
    const { limit } = rateClasses[rateClass];
    const window = this.#window(rateClass, key, now);
    const headers = this.#headers(rateClass, window);
    if (window.count >= limit) {
      const retryAfter = Math.max(1, Math.ceil((this.#resetAt(rateClass, window) - now) / 1000));
      throw new ApiError(
        429,
        `Too many requests. Retry in ${retryAfter} seconds.`,
        undefined,
        undefined,
        Object.assign({}, headers, { 'retry-after': String(retryAfter) }),
      );
    }
    window.count += 1;
    return headers;
  }

  /** The headers of the current window without counting a request: for a request refused before it is counted. */
  peek(rateClass: RateClass, key: string, now: number): Record<string, string> {
    const window = this.#windows.get(`${rateClass}\u0000${key}`);
    const { limit, windowSeconds } = rateClasses[rateClass];
    if (window === undefined || now >= window.startedAt + windowSeconds * 1000) {
      return {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(limit),
        'x-ratelimit-reset': String(Math.ceil((now + windowSeconds * 1000) / 1000)),
      };
    }
    return Object.assign(this.#headers(rateClass, window), { 'x-ratelimit-remaining': String(Math.max(0, limit - window.count)) });
  }

  #window(rateClass: RateClass, key: string, now: number): Window {
    const { windowSeconds } = rateClasses[rateClass];
    const id = `${rateClass}\u0000${key}`;
    let window = this.#windows.get(id);
    if (window === undefined || now >= window.startedAt + windowSeconds * 1000) {
      window = { startedAt: now, count: 0 };
      this.#windows.set(id, window);
    }
    return window;
  }

  #resetAt(rateClass: RateClass, window: Window): number {
    return window.startedAt + rateClasses[rateClass].windowSeconds * 1000;
  }

  /** The X-RateLimit-* headers as they will be once this request is counted (remaining 0 when it cannot be). */
  #headers(rateClass: RateClass, window: Window): Record<string, string> {
    const { limit } = rateClasses[rateClass];
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - window.count - 1)),
      'x-ratelimit-reset': String(Math.ceil(this.#resetAt(rateClass, window) / 1000)),
    };
  }

  clear(): void {
    this.#windows.clear();
  }
}

/** Counts a token's requests in flight; the 4th at once is refused. */
export class InFlightLimiter {
  readonly #counts = new Map<string, number>();

  enter(key: string): () => void {
    const count = this.#counts.get(key) ?? 0;
    if (count >= MAX_IN_FLIGHT_SERVER) {
      throw new ApiError(
        429,
        `Too many parallel requests: at most ${MAX_IN_FLIGHT_SERVER} at once per token. Retry in 1 second.`,
        undefined,
        undefined,
        { 'retry-after': '1' },
      );
    }
    this.#counts.set(key, count + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = (this.#counts.get(key) ?? 1) - 1;
      if (next <= 0) this.#counts.delete(key);
      else this.#counts.set(key, next);
    };
  }
}
