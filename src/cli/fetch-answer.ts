/**
 * The part of a fetch Response that the client (src/client/http.ts `Answer`), `topup api` and the sandbox control
 * client read. The CLI's own fetch functions return this instead of a Response: the first Response of a process
 * loads node's undici, which takes longer than the rest of a command (BENCHMARKS.md).
 */
export class FetchAnswer {
  readonly headers: AnswerHeaders;

  constructor(
    readonly status: number,
    readonly statusText: string,
    headers: Iterable<readonly [string, string]>,
    readonly body: Buffer,
  ) {
    this.headers = new AnswerHeaders(headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  async text(): Promise<string> {
    return this.body.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.body.toString('utf8'));
  }

  /** Typed as what it stands in for, for functions declared to return a Response; see the class comment. */
  asResponse(): Response {
    return this as unknown as Response;
  }
}

/** Header lookup as fetch's Headers does it: names in any case, repeated headers joined by ", ". */
export class AnswerHeaders {
  readonly #values = new Map<string, string>();

  constructor(headers: Iterable<readonly [string, string]>) {
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      const earlier = this.#values.get(key);
      this.#values.set(key, earlier === undefined ? value : `${earlier}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name of [...this.#values.keys()].sort()) callback(this.#values.get(name)!, name);
  }
}

/** fetch's init as the CLI's callers give it: a method, a plain header record, a string body, a signal. */
export interface PlainInit {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
  redirect: RequestRedirect;
}

/** Reads the init of a fetch call without building a Request (which would load undici too). */
export function plainInit(init: RequestInit = {}): PlainInit {
  const headers: Record<string, string> = {};
  const source = init.headers ?? {};
  const pairs: Iterable<readonly [string, string]> = Array.isArray(source)
    ? source
    : isPlainRecord(source)
      ? Object.entries(source as Record<string, string>)
      : headerPairs(source as Headers);
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? String(value) : `${headers[key]}, ${value}`;
  }
  return {
    method: (init.method ?? 'GET').toUpperCase(),
    headers,
    body: bodyBytes(init.body),
    signal: init.signal ?? undefined,
    redirect: init.redirect ?? 'follow',
  };
}

function headerPairs(headers: Headers): [string, string][] {
  const pairs: [string, string][] = [];
  headers.forEach((value, name) => pairs.push([name, value]));
  return pairs;
}

/** Duck-typed: `instanceof Headers` would load undici. */
function isPlainRecord(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('The CLI sends only string or byte bodies.');
}
