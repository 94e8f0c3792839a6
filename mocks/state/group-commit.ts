/**
 * Coalesces persistence: every change waits for a flush that started after it was made,
 * and changes that arrive during a flush share the next one.
 */
export class GroupCommit {
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;

  constructor(private readonly flush: () => Promise<unknown>) {}

  request(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (this.#running) {
      this.#queued = this.#running
        .catch(() => undefined)
        .then(() => {
          this.#queued = null;
          return this.#start();
        });
      return this.#queued;
    }
    return this.#start();
  }

  #start(): Promise<void> {
    const run: Promise<void> = this.flush()
      .then(() => undefined)
      .finally(() => {
        if (this.#running === run) this.#running = null;
      });
    this.#running = run;
    return run;
  }
}
