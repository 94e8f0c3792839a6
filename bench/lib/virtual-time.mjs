// @ts-check
/**
 * Time that moves only when everything is waiting on it: each sleep is a timer on a virtual clock, and when the
 * work has gone quiet the clock jumps to the next timer. Client and sandbox share it, so a minute of rate
 * limiting passes in moments while both see exactly the times they would on a wall clock.
 */
export class VirtualTime {
  #now = Date.UTC(2026, 10, 21, 12);
  /** @type {{ at: number, resolve: () => void }[]} */
  #timers = [];

  clock = {
    now: () => this.#now,
    random: () => Math.random(),
    /** @type {(ms: number, signal?: AbortSignal) => Promise<void>} */
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = { at: this.#now + Math.max(0, ms), resolve };
        this.#timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            this.#timers = this.#timers.filter((t) => t !== timer);
            reject(signal.reason);
          },
          { once: true },
        );
      }),
  };

  /**
   * Runs `work` to its end, advancing the clock whenever nothing else can happen.
   * @template T
   * @param {() => Promise<T>} work
   * @returns {Promise<T>}
   */
  async run(work) {
    let done = false;
    const result = work().finally(() => {
      done = true;
    });
    for (let quiet = 0; !done;) {
      await settle();
      if (done) break;
      if (this.#timers.length === 0) {
        if (++quiet > 100) throw new Error('virtual time: the work waits on something other than the clock');
        continue;
      }
      quiet = 0;
      this.#timers.sort((a, b) => a.at - b.at);
      const next = /** @type {{ at: number, resolve: () => void }} */ (this.#timers.shift());
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
    }
    return result;
  }
}

/** Lets pending promise chains and I/O callbacks run. */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}
