import { createRequire } from 'node:module';

/**
 * Where the jq worker gets jq-web from: its file, resolved where this code knows its node_modules (jq-web finds its
 * .wasm beside its own script); or, in the single-file executable, which has no node_modules, jq-web's code and its
 * WebAssembly themselves, carried inside the executable (src/cli/binary/jq-engine.ts stands in for this module there).
 */
export type JqEngine = { path: string } | { source: string; wasm: Uint8Array };

export function jqEngine(): JqEngine {
  return { path: createRequire(import.meta.url).resolve('jq-web') };
}
