/**
 * Records waiting for a moment, earliest first. Taking from the front is O(1) (a head index, compacted now and then):
 * one request may settle tens of thousands at once after the clock moves.
 */
export class DueQueue<T> {
  #items: T[] = [];
  #head = 0;

  constructor(private readonly dueAt: (item: T) => number) {}

  get length(): number {
    return this.#items.length - this.#head;
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  /**
   * The first item `stale` does not hold for, after taking from the front every one it holds for: how a reader skips
   * entries decided otherwise since they were queued, lazily, each taken once.
   */
  peekLive(stale: (item: T) => boolean): T | undefined {
    for (let item = this.peek(); item !== undefined; item = this.peek()) {
      if (!stale(item)) return item;
      this.take();
    }
    return undefined;
  }

  take(): T | undefined {
    const item = this.#items[this.#head];
    if (item === undefined) return undefined;
    this.#head += 1;
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** After every item due at the same moment or earlier; most share one delay, so this is usually the end. */
  add(item: T): void {
    const at = this.dueAt(item);
    const last = this.#items.length - 1;
    // The usual case, without the search: due no earlier than the last item (or the queue is empty).
    if (last < this.#head || this.dueAt(this.#items[last]!) <= at) {
      this.#items.push(item);
      return;
    }
    let low = this.#head;
    let high = this.#items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.dueAt(this.#items[middle]!) <= at) low = middle + 1;
      else high = middle;
    }
    if (low === this.#items.length) this.#items.push(item);
    else this.#items.splice(low, 0, item);
  }

  /** Replaces the contents (a restored state), sorted by due time; equal times keep their order. */
  reset(items: T[] = []): void {
    this.#items = items.sort((a, b) => this.dueAt(a) - this.dueAt(b));
    this.#head = 0;
  }

  toArray(): T[] {
    return this.#items.slice(this.#head);
  }
}
