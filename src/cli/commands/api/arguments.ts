/**
 * What `topup api` is given: its flags, and its METHOD and PATH words, checked. Shared by the command (registered on
 * every run) and its lazily loaded run (run.ts); free of commander, so the run's chunk does not pull it in.
 */
import { UsageError } from '../../errors.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

export interface ApiFlags {
  method?: ApiMethod | undefined;
  rawField?: string[] | undefined;
  field?: string[] | undefined;
  input?: string | undefined;
  data?: string | undefined;
  header?: string[] | undefined;
  include?: boolean | undefined;
  silent?: boolean | undefined;
  verbose?: boolean | undefined;
  paginate?: boolean | undefined;
  slurp?: boolean | undefined;
}

/**
 * The path under /api/v1 that PATH names: relative to /api/v1 (`me/balance`, `/me/balance`) or starting with
 * /api/v1; it may carry a query. Absolute URLs and dot segments are refused, so a typed PATH can never send the
 * token to another host or to a path outside the API.
 */
export function apiPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
    throw new UsageError('PATH must be a path under /api/v1, not a URL; the server comes from the profile or --base-url.');
  if (/[\\#\s]/.test(path)) throw new UsageError('PATH must not contain backslashes, spaces or a #fragment.');
  const queryAt = path.indexOf('?');
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
  const query = queryAt === -1 ? '' : path.slice(queryAt);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new UsageError('PATH has a malformed %-escape.');
  }
  if (decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..'))
    throw new UsageError('PATH must stay under /api/v1: . and .. segments are refused.');
  const relative = pathname.replace(/^\/?api\/v1(?=\/|$)/, '').replace(/^\/+/, '');
  return `/api/v1/${relative}${query}`;
}

export function isMethod(value: string): boolean {
  return (API_METHODS as readonly string[]).includes(value.toUpperCase());
}

/**
 * `topup api [METHOD] PATH` → the method (undefined: chosen by what is sent) and the path. `topup api GET PATH`, the
 * older form, still works; so does gh's `topup api PATH -X GET`. A lone method is a path forgotten, not an endpoint.
 */
export function methodAndPath(
  first: string,
  second: string | undefined,
  flag: ApiMethod | undefined,
): { method?: ApiMethod; path: string } {
  if (second === undefined) {
    if (isMethod(first))
      throw new UsageError(`PATH is missing: give it after the method, e.g. topup api ${first.toUpperCase()} me/balance.`);
    return { ...(flag === undefined ? {} : { method: flag }), path: first };
  }
  // `topup api me/x extra` or `topup api FETCH me`: either way, two words where one PATH (after a method) goes.
  if (!isMethod(first))
    throw new UsageError(
      `'${first}' is no METHOD (${API_METHODS.join(', ')}), so '${second}' is one word too many: give one PATH, and a method before it or in -X.`,
    );
  const method = first.toUpperCase() as ApiMethod;
  if (flag !== undefined && flag !== method) throw new UsageError(`Two methods given: ${method} and -X ${flag}; give one.`);
  return { method, path: second };
}
