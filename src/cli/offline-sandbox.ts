import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSandbox, type Sandbox } from '../../mocks/sandbox.js';
import { SnapshotError } from '../../mocks/snapshot.js';
import { lockStateFile, readStateFile, StateLockedError, writeStateFile } from '../../mocks/state.js';
import { CliError } from './errors.js';

/**
 * The embedded sandbox: seeded on first use, then loaded from and saved to its state file.
 * `fresh` ignores the file (for `topup mock reset`, which must work even when the file is damaged).
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
  let release: () => Promise<void>;
  try {
    release = await lockStateFile(file);
  } catch (error) {
    if (error instanceof StateLockedError) throw new CliError('The offline sandbox is busy: another topup command has been using it for over 15 seconds.');
    throw error;
  }
  const persist = (s: Parameters<typeof writeStateFile>[1]) => writeStateFile(file, s);
  try {
    if (options.fresh) return { sandbox: await createSandbox({ persist }), release };
    const snapshot = await readStateFile(file);
    const sandbox = await createSandbox({ ...(snapshot === undefined ? {} : { snapshot }), persist });
    // Saved at once: loading the state is three times quicker than seeding (BENCHMARKS.md), so every later command starts sooner.
    if (snapshot === undefined) await persist(sandbox.snapshot());
    return { sandbox, release };
  } catch (error) {
    await release();
    if (error instanceof SnapshotError) throw new CliError(`The offline sandbox's state is unreadable (${error.message.replace(/\.$/, '')}); run \`topup mock reset\` to start over.`);
    throw error;
  }
}
