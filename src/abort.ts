/**
 * Waiting that an AbortSignal can cut short. Dependency-free, like errors.ts, so the client, the sandbox (which
 * may not import the client) and the CLI share one copy.
 */

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
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
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
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
