import { takeSnapshot, type StateWriter } from './snapshot.js';
import type { Store } from './store.js';

/**
 * A commit's write to a state writer: what changed since the last write, or the whole state when the writer
 * asks for it, after a reset, and after a failed write (whose changes are gone from the store's list).
 * Everything is taken synchronously, so a write describes one moment of the state.
 */
export function writerFlush(store: Store, writer: StateWriter, clockOffsetMs: () => number): () => Promise<void> {
  store.trackChanges();
  let wholeStateDue = false;
  return () => {
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
}
