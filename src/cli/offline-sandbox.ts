import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSandbox, type Sandbox } from '../../mocks/sandbox.js';
import { SnapshotError } from '../../mocks/snapshot.js';
import { readStateFile, writeStateFile } from '../../mocks/state.js';
import { CliError } from './errors.js';

/**
 * The embedded sandbox: seeded on first use, then loaded from and saved to its state file.
 * `fresh` ignores the file (for `topup mock reset`, which must work even when the file is damaged).
 */
export async function openOfflineSandbox(file: string, options: { fresh?: boolean } = {}): Promise<Sandbox> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const persist = (s: Parameters<typeof writeStateFile>[1]) => writeStateFile(file, s);
  if (options.fresh) return createSandbox({ persist });
  try {
    const snapshot = await readStateFile(file);
    return await createSandbox({ ...(snapshot === undefined ? {} : { snapshot }), persist });
  } catch (error) {
    if (error instanceof SnapshotError) throw new CliError(`The offline sandbox's state is unreadable (${error.message.replace(/\.$/, '')}); run \`topup mock reset\` to start over.`);
    throw error;
  }
}
