/** What the sandbox reads of a request's URL: parsed once, and read as plain fields (URL's getters slice anew). */
export interface RequestUrl {
  readonly origin: string;
  readonly pathname: string;
  /** `?a=1`, or empty. */
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/**
 * A request's URL, parsed. A bot asks for the same few URLs again and again, and parsing one (and reading its parts
 * through URL's getters) cost about as much as answering the catalog: the parsed ones are kept, in a bounded table.
 * Nothing changes a request's URL.
 */
export function requestUrl(href: string): RequestUrl {
  let url = parsedUrls.get(href);
  if (url === undefined) {
    const parsed = new URL(href);
    url = Object.freeze({ origin: parsed.origin, pathname: parsed.pathname, search: parsed.search, searchParams: parsed.searchParams });
    if (parsedUrls.size >= MAX_PARSED_URLS) parsedUrls.clear();
    parsedUrls.set(href, url);
  }
  return url;
}
const parsedUrls = new Map<string, RequestUrl>();
const MAX_PARSED_URLS = 256;
