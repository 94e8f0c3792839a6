import { raceAbort } from '../../src/abort.js';
import { NO_RATE_LIMITS } from '../../src/contract/sandbox-control.js';
import { droppedFetchError, fromFetchRequest, isDropped, type SandboxRequest, type SandboxResponse } from './exchange.js';

/**
 * A WHATWG fetch served by the sandbox core: what the client and the offline CLI inject.
 * A dropped connection surfaces as fetch's own network error, a TypeError.
 */
export function createFetch(
  handle: (request: SandboxRequest) => Promise<SandboxResponse>,
  options: { rateLimits?: boolean } = {},
): typeof globalThis.fetch {
  const fetchFunction: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await raceAbort(handle(await fromFetchRequest(request)), request.signal);
    if (isDropped(response)) throw droppedFetchError();
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: response.headers });
  };
  // A sandbox without limits says so to the client, which then does not pace itself (tests never stall on it).
  if (options.rateLimits === false) Object.defineProperty(fetchFunction, NO_RATE_LIMITS, { value: true });
  return fetchFunction;
}
