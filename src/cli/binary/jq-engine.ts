import { getAsset } from 'node:sea';
import type { JqEngine } from '../io/jq-engine.js';

/**
 * io/jq-engine.ts in the single-file executable (its build puts this module in that one's place): jq-web's code and
 * WebAssembly are assets of the executable, since there is no node_modules beside it to load them from.
 */
export function jqEngine(): JqEngine {
  return { source: getAsset('jq-web.js', 'utf8'), wasm: new Uint8Array(getAsset('jq.wasm')) };
}
