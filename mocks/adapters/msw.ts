import { createRequire } from 'node:module';
import type { HttpHandler } from 'msw';
import { fromFetchRequest, isDropped } from '../core/exchange.js';
import { inProcessInstance, instanceHeaders } from '../core/fetch.js';
import type { Sandbox } from '../assembly/sandbox.js';
import { SANDBOX_PATHS } from '../routes/paths.js';

export interface HandlerOptions {
  /** Only intercept requests to this origin (e.g. the base URL your bot is configured with). Default: any origin. */
  baseUrl?: string;
}

/**
 * msw request handlers backed by the sandbox, for `setupServer(...createHandlers(sandbox))` in your own tests: one for
 * each of the sandbox's own paths (routes/paths.ts), so every link it writes under that origin is answered too.
 */
export function createHandlers(sandbox: Sandbox, options: HandlerOptions = {}): HttpHandler[] {
  const { http } = loadMsw();
  const origin = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  // Every answer names its sandbox, as sandbox.fetch's and the served sandbox's do (X-Topup-Sandbox-Instance).
  const instance = inProcessInstance('msw');
  // Plain Fetch API responses, which msw takes from a resolver as they are (its HttpResponse adds what a browser's
  // Response would refuse, such as Set-Cookie; node's keeps them). A response of type "error" is msw's network error.
  const serve = async ({ request }: { request: Request }) => {
    const response = await sandbox.handle(await fromFetchRequest(request));
    if (isDropped(response)) return Response.error();
    return new Response(response.body, { status: response.status, headers: instanceHeaders(response.headers, instance) });
  };
  // Every path the sandbox answers, from the list it routes by: the API, its pages (the invoice_url and payment_url it
  // hands out), the OpenAPI document and the control API. Any method: the sandbox answers a wrong one itself (404, 405).
  return Object.values(SANDBOX_PATHS).map((path) => http.all(`${origin}${path}${path.endsWith('/') ? '*' : ''}`, serve));
}

type Msw = Pick<typeof import('msw'), 'http'>;
let msw: Msw | undefined;

/**
 * msw is an optional peer dependency: only these handlers need it, so installing topup pulls none. Loaded on the
 * first call, synchronously (createHandlers stays synchronous for `setupServer(...createHandlers(sandbox))`), and
 * from the user's own install: node ≥ 20.19 requires msw's ES module build (its `module-sync` export), the very copy
 * that `import { setupServer } from 'msw/node'` gets.
 *
 * Only msw's `http` namespace, from its own export `msw/core/http`: msw's index also loads its GraphQL and WebSocket
 * handlers with the graphql package, about 100 ms of every test file that calls this, beyond what `msw/node` loads
 * (BENCHMARKS.md). An msw without that export gets its index.
 */
function loadMsw(): Msw {
  if (msw !== undefined) return msw;
  const require = createRequire(import.meta.url);
  try {
    msw = require('msw/core/http') as Msw;
  } catch (error) {
    if (!isMissing(error, 'msw/core/http') && (error as NodeJS.ErrnoException).code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    msw = requireIndex(require);
  }
  return msw;
}

function requireIndex(require: NodeJS.Require): Msw {
  try {
    return require('msw') as Msw;
  } catch (error) {
    if (isMissing(error, 'msw'))
      throw new Error(
        'createHandlers needs msw, an optional peer dependency of topup: install msw (npm i -D msw) to use the msw handlers.',
        { cause: error },
      );
    throw error;
  }
}

/** Whether `error` says that `id` itself is not installed (not a module it imports). */
function isMissing(error: unknown, id: string): boolean {
  return (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (error as Error).message.includes(`'${id}'`);
}
