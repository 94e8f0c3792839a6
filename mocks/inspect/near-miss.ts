import { editDistance } from '../core/edit-distance.js';

/**
 * The real route a wrong request probably meant, the way WireMock shows near misses: "you called
 * POST /api/v1/me/order; did you mean POST /api/v1/me/orders?". Template parameters take the request's own
 * segment, so `/api/v1/me/ordrs/INV1` is compared with `/api/v1/me/orders/INV1`.
 */
export function nearestRoute(method: string, path: string, routes: readonly { method: string; path: string }[]): string | undefined {
  // Comparing costs the product of the lengths, on the server's one thread: a 16,000-character path held every other
  // request for 20 s. No route of this API is near this long, so a longer path is no typo of one.
  if (path.length > MAX_COMPARED_PATH) return undefined;
  // Close enough to be a typo or a wrong method; a path from another API altogether suggests nothing.
  const nearEnough = Math.max(3, Math.floor(path.length / 5));
  const segments = path.split('/');
  let best: { text: string; score: number } | undefined;
  for (const route of routes) {
    const template = route.path.split('/');
    const filled = template.map((segment, index) => (segment.startsWith('{') ? (segments[index] ?? segment) : segment)).join('/');
    // Never fewer edits than the lengths differ by: such a route cannot be near enough.
    if (Math.abs(filled.length - path.length) > nearEnough) continue;
    // A wrong method on the right path is the nearest there is; otherwise the fewest edits, a method mismatch counting 1.
    const score = editDistance(path, filled) + (route.method === method ? 0 : 1);
    if (best === undefined || score < best.score) best = { text: `${route.method} ${route.path}`, score };
  }
  if (best === undefined || best.score === 0) return undefined;
  return best.score <= nearEnough ? best.text : undefined;
}

/** The longest path compared with the routes for a "did you mean": four times the longest route with an invoice code. */
export const MAX_COMPARED_PATH = 256;
