/** What the CLI's in-process fetch (src/cli/sandbox/fetch.ts) needs of the sandbox's request and answer. */
export { ApiError, droppedFetchError, inProcessRequest, isDropped, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';
