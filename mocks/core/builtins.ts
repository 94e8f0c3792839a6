/**
 * Node's modules that many commands never need, loaded on first use rather than with the module that names them.
 * An `import … from 'node:crypto'` loads node's crypto when its importer loads, needed or not: crypto (~7 ms), zlib
 * (~5 ms) and perf_hooks (~2 ms, behind the global `performance`) were about a tenth of the offline catalog command's
 * own time, which uses none of them (issue 25).
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto');
}

export function nodeZlib(): typeof import('node:zlib') {
  return process.getBuiltinModule('node:zlib');
}

/** Milliseconds on a monotonic clock, with fractions, as `performance.now()` but without loading node's perf_hooks. */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}
