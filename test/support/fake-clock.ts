import type { Clock } from '../../src/client/clock.js';

/** 2026-03-02 10:00:00 UTC: a fixed start, so invoice codes, expiry and rate windows are the same on every run. */
export const CLOCK_START = Date.UTC(2026, 2, 2, 10, 0, 0);

/**
 * Fake time for the sandbox (`now`), the client (a full Clock) and the CLI (a CliClock) alike: sleeps return at
 * once and move time forward, so waits, watches and retries cost no real time.
 */
export interface FakeClock extends Clock {
  now(this: void): number;
  /** Moves time forward without a sleep: what passes between two steps of a test. */
  advance(this: void, ms: number): void;
  /** Rejects at once when the signal is aborted, before or after the hook; otherwise records `ms` and moves time on. */
  sleep(this: void, ms: number, signal?: AbortSignal): Promise<void>;
  /** Every sleep asked for, in ms. */
  readonly slept: number[];
  /** Called after each sleep moved time on (before the sleeper resumes): pay an invoice, abort, … */
  onSleep: ((count: number) => void | Promise<void>) | undefined;
}

export interface FakeClockOptions {
  /** Epoch milliseconds to start at. Default CLOCK_START. */
  start?: number;
  /** What `random()` returns, for jitter. Default 0.5. */
  random?: number;
}

export function fakeClock(options: FakeClockOptions = {}): FakeClock {
  let current = options.start ?? CLOCK_START;
  const random = options.random ?? 0.5;
  const clock: FakeClock = {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      clock.slept.push(ms);
      current += ms;
      await clock.onSleep?.(clock.slept.length);
      signal?.throwIfAborted();
    },
    random: () => random,
    slept: [],
    onSleep: undefined,
  };
  return clock;
}
