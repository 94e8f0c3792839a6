import { raceAbort } from '../../src/abort.js';
import { INSTANCE_HEADER, NO_RATE_LIMITS } from '../../src/contract/sandbox-control.js';
import { droppedFetchError, fromFetchRequest, isDropped, type SandboxRequest, type SandboxResponse } from './exchange.js';

/**
 * A WHATWG fetch served by the sandbox core: what the client and the offline CLI inject.
 * A dropped connection surfaces as fetch's own network error, a TypeError. Every answer names its sandbox in the
 * X-Topup-Sandbox-Instance header, as the served one's do (an id of this fetch: `in-process-…`), so that a client
 * can tell it is answered by topup's sandbox (the CLI then reads times without a zone as UTC, as documented).
 */
export function createFetch(
  handle: (request: SandboxRequest) => Promise<SandboxResponse>,
  options: { rateLimits?: boolean } = {},
): typeof globalThis.fetch {
  const instance = `in-process-${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`;
  const fetchFunction: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await raceAbort(handle(await fromFetchRequest(request)), request.signal);
    if (isDropped(response)) throw droppedFetchError();
    const headers = new Headers(response.headers);
    if (!headers.has(INSTANCE_HEADER)) headers.set(INSTANCE_HEADER, instance);
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers });
  };
  // A sandbox without limits says so to the client, which then does not pace itself (tests never stall on it).
  if (options.rateLimits === false) Object.defineProperty(fetchFunction, NO_RATE_LIMITS, { value: true });
  return fetchFunction;
}
