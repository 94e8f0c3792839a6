import { raceAbort } from '../../src/abort.js';
import { isDropped, type SandboxRequest, type SandboxResponse } from '../core/exchange.js';

/**
 * A WHATWG fetch served by the sandbox core: what the client and the offline CLI inject.
 * A dropped connection surfaces as fetch's own network error, a TypeError.
 */
export function createFetch(handle: (request: SandboxRequest) => Promise<SandboxResponse>): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.text();
    const response = await raceAbort(handle({ method: request.method, url: request.url, headers, body, clientAddress: '127.0.0.1' }), request.signal);
    if (isDropped(response)) throw new TypeError('fetch failed', { cause: new Error('the sandbox dropped the connection') });
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: response.headers });
  };
}
