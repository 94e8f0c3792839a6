import { http, HttpResponse, type HttpHandler } from 'msw';
import { isDropped } from '../core/exchange.js';
import type { Sandbox } from '../core/sandbox.js';

export interface HandlerOptions {
  /** Only intercept requests to this origin (e.g. the base URL your bot is configured with). Default: any origin. */
  baseUrl?: string;
}

/** msw request handlers backed by the sandbox, for `setupServer(...createHandlers(sandbox))` in your own tests. */
export function createHandlers(sandbox: Sandbox, options: HandlerOptions = {}): HttpHandler[] {
  const origin = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const serve = async ({ request }: { request: Request }) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.text();
    const response = await sandbox.handle({ method: request.method, url: request.url, headers, body, clientAddress: '127.0.0.1' });
    if (isDropped(response)) return HttpResponse.error();
    return new HttpResponse(response.body, { status: response.status, headers: response.headers });
  };
  return [http.all(`${origin}/api/*`, serve), http.all(`${origin}/__sandbox/*`, serve), http.get(`${origin}/openapi.json`, serve)];
}
