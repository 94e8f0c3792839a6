import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSandbox, type Sandbox } from '../../mocks/sandbox.js';
import { SnapshotError } from '../../mocks/snapshot.js';
import { openStateFile, StateLockedError, type StateFile } from '../../mocks/state.js';
import { CliError } from './errors.js';

/**
 * The embedded sandbox: seeded on first use, then loaded from its state file, to which each command appends
 * what it changed (mocks/state.ts). `fresh` ignores the file (for `topup mock reset`, which must work even when
 * the file is damaged).
 */
export interface OfflineSandbox {
  sandbox: Sandbox;
  /** Lets other topup processes at the state file again. */
  release(): Promise<void>;
}

/**
 * Holds the state file's lock from load to exit, so two topup processes on the offline sandbox take turns
 * and neither overwrites the other's changes.
 */
export async function openOfflineSandbox(file: string, options: { fresh?: boolean } = {}): Promise<OfflineSandbox> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  let state: StateFile;
  try {
    state = await openStateFile(file, { fresh: options.fresh ?? false });
  } catch (error) {
    if (error instanceof StateLockedError) throw new CliError('The offline sandbox is busy: another topup command has been using it for over 15 seconds.');
    throw unreadable(error);
  }
  try {
    const snapshot = state.takeSnapshot();
    const sandbox = await createSandbox({ ...(snapshot === undefined ? {} : { snapshot }), stateWriter: state.writer });
    // Saved at once: loading the state is three times quicker than seeding (BENCHMARKS.md), so every later command
    // starts sooner. Likewise a state file without a journal, or with one grown past the snapshot, is written anew.
    if (state.writer.wantsSnapshot) await state.writer.write({ snapshot: sandbox.snapshot() });
    return { sandbox, release: () => state.close() };
  } catch (error) {
    await state.close();
    throw unreadable(error);
  }
}

function unreadable(error: unknown): unknown {
  if (error instanceof SnapshotError) return new CliError(`The offline sandbox's state is unreadable (${error.message.replace(/\.$/, '')}); run \`topup mock reset\` to start over.`);
  return error;
}
