import { CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import { INVOICE_PAGE_PREFIX } from '../inspect/state-views.js';

/** Where a gateway order's `payment_url` points: `/pay/{method}/{code}`, answered with its invoice page. */
export const PAYMENT_PAGE_PREFIX = '/pay/';

/**
 * The sandbox's own URL spaces under its origin, the one list of them. The sandbox routes a request by the space its
 * path is in (assembly/dispatch.ts, which must serve every one of them) and the msw handlers intercept exactly these
 * (adapters/msw.ts), so every link the sandbox writes (`invoice_url`, `payment_url`) is answered the same way in
 * process, behind msw and over HTTP. A path that ends in `/` is a prefix (everything under it); any other is exact.
 */
export const SANDBOX_PATHS = {
  api: '/api/',
  invoicePage: INVOICE_PAGE_PREFIX,
  paymentPage: PAYMENT_PAGE_PREFIX,
  openApi: '/openapi.json',
  control: `${CONTROL_PREFIX}/`,
} as const;

export type SandboxSpace = keyof typeof SANDBOX_PATHS;

/** The spaces in the order they are tried (the API, by far the busiest, first); they do not overlap. */
const SPACES = (Object.keys(SANDBOX_PATHS) as SandboxSpace[]).map((space) => {
  const path = SANDBOX_PATHS[space];
  return { space, path, prefix: path.endsWith('/') };
});

/** The space a request path belongs to, or undefined for a path the sandbox does not answer (a 404). */
export function spaceOf(pathname: string): SandboxSpace | undefined {
  for (const { space, path, prefix } of SPACES) if (prefix ? pathname.startsWith(path) : pathname === path) return space;
  return undefined;
}
