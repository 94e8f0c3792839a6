/**
 * The sandbox as a WHATWG fetch. The function itself lives in the ground (core/fetch.ts) because every sandbox
 * offers it as `sandbox.fetch`; this adapter is the public door next to msw and http.
 */
export { createFetch } from '../core/fetch.js';
