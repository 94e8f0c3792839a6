/**
 * What `make` made for a key, remembered in a table of at most `max` entries, which forgets everything when it is
 * full. For the sandbox's hot paths: a bot asks with the same few keys (URLs, tokens, bodies) again and again, so a
 * small table holds them all; a stranger's endless stream of new keys only ever costs a table of `max` and a make()
 * each, never more memory. `make` must be a pure function of the key.
 */
export class BoundedMemo<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly max: number) {}

  get(key: K, make: (key: K) => V): V {
    let value = this.#entries.get(key);
    if (value === undefined) {
      value = make(key);
      if (this.#entries.size >= this.max) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }

  /** How many entries it holds now (at most `max`). */
  get size(): number {
    return this.#entries.size;
  }
}
