import { ensureBuilt } from '../e2e/built-cli.js';

/**
 * Vitest's global setup: builds dist/ (tsup, then the code cache) once, before any test file runs, when it is missing
 * or older than a source. The files that run the built CLI check again in their own beforeAll, which is then only a
 * look at modification times: left to them, a stale dist was built by whichever file came first, while the other
 * worker's files ran, inside a hook's 20 s, and two files could build at once.
 */
export default function setup(): void {
  ensureBuilt();
}
