/**
 * Serialises changes to the store. Inserting a record is async, so without this two requests could
 * both pass a balance or idempotency check before either commits.
 */
export class WriteLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(change: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(change);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
