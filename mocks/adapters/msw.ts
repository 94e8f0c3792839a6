import { http, HttpResponse, type HttpHandler } from 'msw';
import { fromFetchRequest, isDropped } from '../core/exchange.js';
import type { Sandbox } from '../core/sandbox.js';

export interface HandlerOptions {
  /** Only intercept requests to this origin (e.g. the base URL your bot is configured with). Default: any origin. */
  baseUrl?: string;
}

/** msw request handlers backed by the sandbox, for `setupServer(...createHandlers(sandbox))` in your own tests. */
export function createHandlers(sandbox: Sandbox, options: HandlerOptions = {}): HttpHandler[] {
  const origin = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const serve = async ({ request }: { request: Request }) => {
    const response = await sandbox.handle(await fromFetchRequest(request));
    if (isDropped(response)) return HttpResponse.error();
    return new HttpResponse(response.body, { status: response.status, headers: response.headers });
  };
  return [http.all(`${origin}/api/*`, serve), http.all(`${origin}/__sandbox/*`, serve), http.get(`${origin}/openapi.json`, serve)];
}
