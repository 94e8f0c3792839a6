import {
  droppedFetchError,
  inProcessRequest,
  isDropped,
  type SandboxRequest,
  type SandboxResponse,
} from '../../../mocks/facade/exchange.js';
import { raceAbort } from '../../abort.js';
import { FetchAnswer, plainInit } from '../fetch-answer.js';

/**
 * The embedded sandbox as a fetch, for the offline CLI: like `sandbox.fetch` (mocks/adapters/fetch.ts), but it
 * takes the URL and init as the CLI's callers give them and answers with a FetchAnswer, so that an offline command
 * never loads node's undici for WHATWG Request and Response objects (BENCHMARKS.md).
 */
export function sandboxFetch(sandbox: { handle(request: SandboxRequest): Promise<SandboxResponse> }): typeof globalThis.fetch {
  return async (input, init) => {
    // The CLI's callers pass a URL and an init; a Request object would need undici, which an offline run never loads.
    if (typeof input !== 'string' && !(input instanceof URL))
      throw new TypeError('The embedded sandbox takes a URL and an init, not a Request.');
    const request = plainInit(init);
    request.signal?.throwIfAborted();
    const body = request.body === undefined ? null : request.body.toString('utf8');
    const reply = await raceAbort(
      sandbox.handle(inProcessRequest(request.method, new URL(input).href, request.headers, body)),
      request.signal,
    );
    if (isDropped(reply)) throw droppedFetchError();
    const content = request.method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(reply.body);
    return new FetchAnswer(reply.status, '', Object.entries(reply.headers), content).asResponse();
  };
}
