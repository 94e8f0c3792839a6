/**
 * Ways to serve a sandbox: msw handlers (msw.ts), a WHATWG fetch (fetch.ts), a node:http server (http.ts) with its
 * stream of the request journal (journal-stream.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
