import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSandbox, type Sandbox } from '../../mocks/sandbox.js';
import { readStateFile, writeStateFile } from '../../mocks/state.js';

/** The embedded sandbox: seeded on first use, then loaded from and saved to its state file. */
export async function openOfflineSandbox(file: string): Promise<Sandbox> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const snapshot = await readStateFile(file);
  return createSandbox({
    ...(snapshot === undefined ? {} : { snapshot }),
    persist: (s) => writeStateFile(file, s),
  });
}
