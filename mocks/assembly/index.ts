/**
 * The sandbox composed from the layers below: createSandbox (sandbox.ts) with the API pipeline (pipeline.ts), the
 * dispatch over its four URL spaces (dispatch.ts) and the recording of each request (record.ts); and the sandbox kept
 * in a state file (persistent-sandbox.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
