/**
 * Waiting that an AbortSignal can cut short. Dependency-free, like errors.ts, so the client, the sandbox (which
 * may not import the client) and the CLI share one copy.
 */

/**
 * Calls `callback` once when `signal` aborts; returns what stops that. However many callers watch one signal (thousands
 * of calls sharing a script's signal, each waiting its turn or its retry), the signal gets one listener: node warns of a
 * leak past ten. A signal-like object that is not an EventTarget is never watched, nor is one that already aborted: check
 * `signal.aborted` first.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  if (typeof signal.addEventListener !== 'function') return () => undefined;
  let watchers = watchersOf.get(signal);
  if (watchers === undefined) {
    const callbacks = new Set<() => void>();
    const onAbort = (): void => {
      watchersOf.delete(signal);
      for (const each of callbacks) each();
    };
    watchers = { callbacks, onAbort };
    watchersOf.set(signal, watchers);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  // A Set holds a callback once: each watch gets its own function, so the same callback may be watched twice.
  const entry = (): void => callback();
  const { callbacks, onAbort } = watchers;
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0 || watchersOf.get(signal)?.callbacks !== callbacks) return;
    watchersOf.delete(signal);
    signal.removeEventListener('abort', onAbort);
  };
}

const watchersOf = new WeakMap<AbortSignal, { callbacks: Set<() => void>; onAbort: () => void }>();

/** Rejects with the signal's reason the moment it aborts, even if `promise` ignores the signal. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The work already started; its own failure must not surface later as an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  // A signal-like object from another fetch implementation may not be an EventTarget: then only `promise` decides.
  if (typeof signal.addEventListener !== 'function') return promise;
  return new Promise<T>((resolve, reject) => {
    const stopWatching = whenAborted(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        stopWatching();
        resolve(value);
      },
      (error: unknown) => {
        stopWatching();
        reject(error);
      },
    );
  });
}

/** An abort its holder makes itself, and the waits it cuts short: see abortableWaits. */
export interface AbortableWaits {
  /** Aborted by `abort` only: given to fetch, which then stops sending and reading. */
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  /** `promise`, or the abort's reason as soon as `abort` is called, even if `promise` ignores the signal. */
  race<T>(promise: Promise<T>): Promise<T>;
}

/**
 * An AbortController whose aborts also reject the wait in progress. raceAbort would listen to the signal for every
 * wait; here the one who aborts is known (a timeout, a caller's signal forwarded), so `abort` rejects the wait itself.
 * A request's transport takes one of these per attempt, and the listeners were a measurable part of each call.
 */
export function abortableWaits(): AbortableWaits {
  const controller = new AbortController();
  const { signal } = controller;
  let rejectWait: ((reason: unknown) => void) | undefined;
  return {
    signal,
    abort(reason) {
      controller.abort(reason);
      rejectWait?.(signal.reason);
    },
    race<T>(promise: Promise<T>): Promise<T> {
      if (signal.aborted) {
        // The work already started; its own failure must not surface later as an unhandled rejection.
        promise.catch(() => undefined);
        return Promise.reject(signal.reason as Error);
      }
      return new Promise<T>((resolve, reject) => {
        rejectWait = reject;
        promise.then(resolve, reject);
      });
    },
  };
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. Reads setTimeout at call time, so fake timers govern it. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  // setTimeout fires a longer delay at once (with a TimeoutOverflowWarning): a server's poll_after_seconds of 30 days
  // polled hundreds of times a second. So a long sleep is slept in parts.
  let left = Math.max(0, ms);
  do {
    const part = Math.min(left, MAX_TIMER_MS);
    await sleepOnce(part, signal);
    left -= part;
  } while (left > 0);
}

/** setTimeout's longest delay: 2^31 - 1 ms, about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function sleepOnce(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(
      () => {
        stopWatching?.();
        resolve();
      },
      Math.max(0, ms),
    );
    const stopWatching =
      signal &&
      whenAborted(signal, () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
  });
}
