import { takeSnapshot, type SandboxSnapshot, type StateWriter } from './snapshot.js';
import type { Store } from '../store/store.js';

/**
 * A commit's write to a state writer: what changed since the last write, or the whole state when the writer
 * asks for it, after a reset, and after a failed write (whose changes are gone from the store's list).
 * Everything is taken synchronously, so a write describes one moment of the state.
 */
export function writerFlush(store: Store, writer: StateWriter, clockOffsetMs: () => number): () => Promise<void> {
  store.trackChanges();
  let wholeStateDue = false;
  const flush = () => {
    const changes = store.takeChanges();
    const whole = wholeStateDue || changes.reset || writer.wantsSnapshot;
    wholeStateDue = false;
    const written = whole
      ? writer.write({ snapshot: takeSnapshot(store, clockOffsetMs()) })
      : writer.write({ changes: { clock_offset_ms: clockOffsetMs(), counters: { ...store.counters }, tables: changes.tables } });
    return written.catch((error: unknown) => {
      wholeStateDue = true;
      throw error;
    });
  };
  // The whole state includes the history a head-only open left to read (Store.deferLoad): read first.
  return () => (store.loadPending && (wholeStateDue || writer.wantsSnapshot) ? store.loadDeferred().then(flush) : flush());
}

/** A state writer handed the whole state after every commit: the simple way to keep a sandbox's state yourself. */
export function snapshotWriter(persist: (snapshot: SandboxSnapshot) => Promise<unknown>): StateWriter {
  return {
    wantsSnapshot: true,
    async write(state) {
      if (!('snapshot' in state)) throw new Error('snapshotWriter: handed changes, although it always asks for the whole state');
      await persist(state.snapshot);
    },
  };
}
