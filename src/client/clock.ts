import { abortableSleep } from '../abort.js';

/** Time as the client sees it; injected so tests run on a fake clock. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(): number;
}

/** Reads the globals at call time, so vi.useFakeTimers() also governs the default clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
  random: () => Math.random(),
};
