import { MAX_IN_FLIGHT_CLIENT, rateClasses, type RateClass } from '../contract/rate-limits.js';
import type { Clock } from './clock.js';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface PacerOptions {
  clock: Clock;
  limits?: Readonly<Record<RateClass, RateLimit>>;
  maxInFlight?: number;
  /** Extra wait past a window's edge, for latency between our clock and the server's. */
  marginMs?: number;
}

/** What a response says about the limits; all optional because the server sends them only when available. */
export interface RateLimitReport {
  /** X-RateLimit-Remaining. */
  remaining?: number | undefined;
  /** X-RateLimit-Reset, as epoch milliseconds. */
  resetAt?: number | undefined;
  /** Retry-After of a 429, in seconds. */
  retryAfter?: number | undefined;
}

/** Gives back the in-flight slot; calling it twice is harmless. */
export type Release = () => void;

/**
 * Spaces requests so that no rate class ever exceeds its published limit and at most `maxInFlight` requests
 * are open at once. Each class keeps a log of its send times over the last window (a sliding-window log:
 * exact, and simple to reason about); the server's own counters, when it reports them, can only make us wait longer.
 */
export class Pacer {
  readonly #clock: Clock;
  readonly #limits: Readonly<Record<RateClass, RateLimit>>;
  readonly #maxInFlight: number;
  readonly #marginMs: number;
  readonly #sent = new Map<RateClass, number[]>();
  readonly #blockedUntil = new Map<RateClass, number>();
  readonly #serverBudget = new Map<RateClass, { remaining: number; resetAt: number }>();
  readonly #inFlightByClass = new Map<RateClass, number>();
  #inFlight = 0;
  #slotWaiters = new Set<() => void>();

  constructor(options: PacerOptions) {
    this.#clock = options.clock;
    this.#limits = options.limits ?? rateClasses;
    this.#maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT_CLIENT;
    this.#marginMs = options.marginMs ?? 50;
  }

  /** Waits until a request of `rateClass` may be sent, then counts it as sent and in flight. */
  async acquire(rateClass: RateClass, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<Release> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.#clock.now();
      const wait = this.#timeUntilAllowed(rateClass, now);
      if (wait > 0) {
        onWait?.(wait);
        await this.#clock.sleep(wait, signal);
        continue;
      }
      if (this.#inFlight >= this.#maxInFlight) {
        await this.#slotFreed(signal);
        continue;
      }
      return this.#take(rateClass, now);
    }
  }

  /**
   * Counts sends made before this pacer existed: a batch resumed after a crash keeps to the limit from the send
   * times its ledger recorded, instead of starting from zero.
   */
  recordSent(rateClass: RateClass, sentAt: Iterable<number>): void {
    const sent = this.#sentLog(rateClass);
    sent.push(...sentAt);
    sent.sort((a, b) => a - b);
    const { limit } = this.#limits[rateClass];
    if (sent.length > limit) sent.splice(0, sent.length - limit);
  }

  /**
   * Waits until a request of `rateClass` could be sent, without taking the slot: a caller that must record the send
   * time before sending (a batch's ledger) records the time it will really go.
   */
  async whenAllowed(rateClass: RateClass, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.#timeUntilAllowed(rateClass, this.#clock.now());
      if (wait <= 0) return;
      onWait?.(wait);
      await this.#clock.sleep(wait, signal);
    }
  }

  /** Resynchronises from what the server reported in an answer of `rateClass`. */
  observe(rateClass: RateClass, report: RateLimitReport): void {
    const now = this.#clock.now();
    const windowMs = this.#windowMs(rateClass);
    if (report.retryAfter !== undefined) {
      const until = now + Math.min(report.retryAfter * 1000, windowMs);
      this.#blockedUntil.set(rateClass, Math.max(this.#blockedUntil.get(rateClass) ?? 0, until));
    }
    if (report.remaining === undefined || report.resetAt === undefined || report.resetAt <= now) return;
    // Requests still in flight besides the answered one may not be in the server's count yet.
    const othersInFlight = Math.max(0, (this.#inFlightByClass.get(rateClass) ?? 0) - 1);
    this.#serverBudget.set(rateClass, {
      remaining: report.remaining - othersInFlight,
      // A reset beyond one window would be a broken header; never let it stall us longer than a window.
      resetAt: Math.min(report.resetAt, now + windowMs),
    });
  }

  /** Requests open right now (for tests and diagnostics). */
  get inFlight(): number {
    return this.#inFlight;
  }

  #timeUntilAllowed(rateClass: RateClass, now: number): number {
    const { limit } = this.#limits[rateClass];
    const windowMs = this.#windowMs(rateClass) + this.#marginMs;
    const sent = this.#sentLog(rateClass);
    while (sent.length > 0 && now - (sent[0] as number) >= windowMs) sent.shift();
    let wait = 0;
    if (sent.length >= limit) wait = (sent[sent.length - limit] as number) + windowMs - now;

    const blockedUntil = this.#blockedUntil.get(rateClass);
    if (blockedUntil !== undefined) {
      if (blockedUntil <= now) this.#blockedUntil.delete(rateClass);
      else wait = Math.max(wait, blockedUntil - now);
    }

    const budget = this.#serverBudget.get(rateClass);
    if (budget !== undefined) {
      if (budget.resetAt + this.#marginMs <= now) this.#serverBudget.delete(rateClass);
      else if (budget.remaining <= 0) wait = Math.max(wait, budget.resetAt + this.#marginMs - now);
    }
    return wait;
  }

  #take(rateClass: RateClass, now: number): Release {
    this.#sentLog(rateClass).push(now);
    const budget = this.#serverBudget.get(rateClass);
    if (budget !== undefined) budget.remaining -= 1;
    this.#inFlight += 1;
    this.#inFlightByClass.set(rateClass, (this.#inFlightByClass.get(rateClass) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      this.#inFlightByClass.set(rateClass, (this.#inFlightByClass.get(rateClass) ?? 1) - 1);
      const waiters = this.#slotWaiters;
      this.#slotWaiters = new Set();
      for (const wake of waiters) wake();
    };
  }

  #slotFreed(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#slotWaiters.delete(wake);
        reject(signal?.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#slotWaiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #sentLog(rateClass: RateClass): number[] {
    let sent = this.#sent.get(rateClass);
    if (sent === undefined) {
      sent = [];
      this.#sent.set(rateClass, sent);
    }
    return sent;
  }

  #windowMs(rateClass: RateClass): number {
    return this.#limits[rateClass].windowSeconds * 1000;
  }
}
