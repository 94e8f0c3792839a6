import { createRequire } from 'node:module';
import type { HttpHandler } from 'msw';
import { fromFetchRequest, isDropped } from '../core/exchange.js';
import type { Sandbox } from '../assembly/sandbox.js';

export interface HandlerOptions {
  /** Only intercept requests to this origin (e.g. the base URL your bot is configured with). Default: any origin. */
  baseUrl?: string;
}

/** msw request handlers backed by the sandbox, for `setupServer(...createHandlers(sandbox))` in your own tests. */
export function createHandlers(sandbox: Sandbox, options: HandlerOptions = {}): HttpHandler[] {
  const { http, HttpResponse } = loadMsw();
  const origin = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const serve = async ({ request }: { request: Request }) => {
    const response = await sandbox.handle(await fromFetchRequest(request));
    if (isDropped(response)) return HttpResponse.error();
    return new HttpResponse(response.body, { status: response.status, headers: response.headers });
  };
  return [http.all(`${origin}/api/*`, serve), http.all(`${origin}/__sandbox/*`, serve), http.get(`${origin}/openapi.json`, serve)];
}

type Msw = typeof import('msw');
let msw: Msw | undefined;

/**
 * msw is an optional peer dependency: only these handlers need it, so installing topup pulls none. Loaded on the
 * first call, synchronously (createHandlers stays synchronous for `setupServer(...createHandlers(sandbox))`), and
 * from the user's own install: node ≥ 20.19 requires msw's ES module build (its `module-sync` export), the very copy
 * that `import { setupServer } from 'msw/node'` gets.
 */
function loadMsw(): Msw {
  if (msw !== undefined) return msw;
  try {
    msw = createRequire(import.meta.url)('msw') as Msw;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && /'msw'/.test((error as Error).message))
      throw new Error(
        'createHandlers needs msw, an optional peer dependency of topup: install msw (npm i -D msw) to use the msw handlers.',
        {
          cause: error,
        },
      );
    throw error;
  }
  return msw;
}
