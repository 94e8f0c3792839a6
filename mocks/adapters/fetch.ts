import { raceAbort } from '../../src/abort.js';
import { droppedFetchError, fromFetchRequest, isDropped, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';

/**
 * A WHATWG fetch served by the sandbox core: what the client and the offline CLI inject.
 * A dropped connection surfaces as fetch's own network error, a TypeError.
 */
export function createFetch(handle: (request: SandboxRequest) => Promise<SandboxResponse>): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await raceAbort(handle(await fromFetchRequest(request)), request.signal);
    if (isDropped(response)) throw droppedFetchError();
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: response.headers });
  };
}
