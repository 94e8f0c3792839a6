/**
 * The origin of a public URL: http(s), no credentials, path, query or fragment (links are built as origin + path).
 * Throws a TypeError naming the URL otherwise.
 */
export function publicOrigin(publicUrl: string): string {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new TypeError(`The public URL '${publicUrl}' is not a valid URL.`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    url.pathname !== '/' ||
    url.search ||
    url.hash
  )
    throw new TypeError(
      `The public URL '${publicUrl}' must be an http(s) origin such as http://sandbox:4010, with no path, query or credentials.`,
    );
  return url.origin;
}
