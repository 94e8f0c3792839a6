import { abortableSleep } from '../abort.js';

/** Time as the client sees it; injected so tests run on a fake clock. */
/** Its functions use no `this`, so they may be passed on alone (`now: clock.now`). */
export interface Clock {
  /** Epoch milliseconds. */
  now(this: void): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(this: void, ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(this: void): number;
}

/** Reads the globals at call time, so vi.useFakeTimers() also governs the default clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
  random: () => Math.random(),
};

/** A pause the client makes on its own that is long enough to be told about (the CLI's notice, the library's warning). */
export const LONG_WAIT_MS = 2_000;
