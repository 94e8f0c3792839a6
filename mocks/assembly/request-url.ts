import { BoundedMemo } from '../core/bounded-memo.js';
import type { QueryView } from '../core/exchange.js';

/** What the sandbox reads of a request's URL: parsed once, and read as plain fields (URL's getters slice anew). */
export interface RequestUrl {
  readonly origin: string;
  readonly pathname: string;
  /** `?a=1`, or empty. */
  readonly search: string;
  /** Shared by every request to the same URL: read-only, which the type keeps so. */
  readonly searchParams: QueryView;
}

/**
 * A request's URL, parsed. A bot asks for the same few URLs again and again, and parsing one (and reading its parts
 * through URL's getters) cost about as much as answering the catalog: the parsed ones are kept, in a bounded table.
 * Nothing changes a request's URL.
 */
export function requestUrl(href: string): RequestUrl {
  return parsedUrls.get(href, parse);
}
const parsedUrls = new BoundedMemo<string, RequestUrl>(256);

function parse(href: string): RequestUrl {
  const parsed = new URL(href);
  return Object.freeze({ origin: parsed.origin, pathname: parsed.pathname, search: parsed.search, searchParams: parsed.searchParams });
}
