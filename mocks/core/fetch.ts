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
  const instance = inProcessInstance('in-process');
  const fetchFunction: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await raceAbort(handle(await fromFetchRequest(request)), request.signal);
    if (isDropped(response)) throw droppedFetchError();
    const headers = instanceHeaders(response.headers, instance);
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers });
  };
  // A sandbox without limits says so to the client, which then does not pace itself (tests never stall on it).
  if (options.rateLimits === false) Object.defineProperty(fetchFunction, NO_RATE_LIMITS, { value: true });
  return fetchFunction;
}

/** An id for the answers of one in-process way into a sandbox (`in-process-…`, `msw-…`): X-Topup-Sandbox-Instance. */
export function inProcessInstance(way: 'in-process' | 'msw'): string {
  return `${way}-${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`;
}

/** An answer's headers naming its sandbox (`instance`), unless the sandbox named one itself. */
export function instanceHeaders(headers: Readonly<Record<string, string>> | Headers, instance: string): Headers {
  const named = new Headers(headers);
  if (!named.has(INSTANCE_HEADER)) named.set(INSTANCE_HEADER, instance);
  return named;
}
