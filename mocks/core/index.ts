/**
 * The sandbox's ground, which imports nothing else of the sandbox: the request and answer a sandbox exchanges and
 * the errors it answers with (exchange.ts), the router (router.ts), the write lock that serialises changes
 * (write-lock.ts), the fetch every sandbox offers (fetch.ts), the public origin of links (public-origin.ts), node modules loaded on first use and a monotonic clock (builtins.ts), the bounded tables of the hot paths (bounded-memo.ts), the control
 * views' one time format (iso-time.ts) and fault
 * injection (faults.ts, fault-config.ts, fault-spec.ts). Layers: see test/architecture/layers.test.ts.
 * This index only documents the folder: import the module you need.
 */
export {};
