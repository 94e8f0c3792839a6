/** A route table compiled once: static paths by map lookup, templated paths by segment comparison. */
export interface RouteMatch<H> {
  handler: H;
  params: Record<string, string>;
}

export type RouteLookup<H> = { found: RouteMatch<H> } | { allow: string[] } | null;

interface Compiled<H> {
  method: string;
  segments: string[];
  handler: H;
}

export class Router<H> {
  readonly #static = new Map<string, Map<string, H>>();
  readonly #templated: Compiled<H>[] = [];
  readonly #listed: { method: string; path: string }[] = [];

  /** Every route as it was added: method and path template. */
  get routes(): readonly { method: string; path: string }[] {
    return this.#listed;
  }

  add(method: string, path: string, handler: H): this {
    this.#listed.push({ method, path });
    if (path.includes('{')) {
      this.#templated.push({ method, segments: path.split('/'), handler });
    } else {
      const byMethod = this.#static.get(path) ?? new Map<string, H>();
      byMethod.set(method, handler);
      this.#static.set(path, byMethod);
    }
    return this;
  }

  lookup(method: string, path: string): RouteLookup<H> {
    const byMethod = this.#static.get(path);
    const handler = byMethod?.get(method);
    if (handler !== undefined) return { found: { handler, params: {} } };
    const allow = byMethod ? [...byMethod.keys()] : [];
    const segments = path.split('/');
    for (const route of this.#templated) {
      const params = matchSegments(route.segments, segments);
      if (params === null) continue;
      if (route.method === method) return { found: { handler: route.handler, params } };
      allow.push(route.method);
    }
    return allow.length > 0 ? { allow: [...new Set(allow)] } : null;
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const segment = actual[i]!;
    if (expected.startsWith('{')) {
      if (segment === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return null;
      }
      params[expected.slice(1, -1)] = decoded;
    } else if (expected !== segment) {
      return null;
    }
  }
  return params;
}
