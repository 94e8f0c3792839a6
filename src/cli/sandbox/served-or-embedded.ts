import type { SandboxHome } from './served.js';

export interface ServedOrEmbeddedOptions {
  /** Where `topup mock serve` served the config folder's sandbox when the run began: the client's base URL. */
  servedUrl: string;
  /** The CLI's fetch for servers. */
  remote: typeof globalThis.fetch;
  /** Where the config folder's sandbox answers now (locateSandbox, looked at again). */
  relocate(): Promise<SandboxHome>;
  /** The embedded sandbox as a fetch, and the origin its URLs have. */
  embedded(): Promise<{ fetch: typeof globalThis.fetch; origin: string }>;
  /** Told once per move, in one sentence. */
  onMove(text: string): void;
}

/**
 * The fetch of a run on the config folder's sandbox while `topup mock serve` serves it. That server may stop while
 * the run goes on (`invoices status --wait`, `orders batch`, `--watch`): the run would then ask a dead URL until it
 * gave up, though the same state is still there. A request that could not reach the server at all (the connection
 * refused: nothing of it was sent) looks again where the config folder's sandbox answers, and goes there from then on:
 * the embedded sandbox, from the state the server left, or a `topup mock serve` started again. Said once each time.
 * Any other failure (an answer cut off, a timeout) is the client's to retry, as against any server.
 */
export function servedOrEmbeddedFetch(options: ServedOrEmbeddedOptions): typeof globalThis.fetch {
  const first = { fetch: options.remote, origin: new URL(options.servedUrl).origin };
  let current = first;
  /** A look that is under way: requests refused meanwhile wait for it, and the move is said once. */
  let moving: Promise<typeof current | undefined> | undefined;
  const move = async (from: typeof current): Promise<typeof current | undefined> => {
    const home = await options.relocate();
    if (home.kind === 'served') {
      const origin = new URL(home.url).origin;
      if (origin === from.origin) return undefined;
      options.onMove(`The sandbox served at ${from.origin} stopped; the one served at ${origin} answers from here on.`);
      return { fetch: options.remote, origin };
    }
    const embedded = await options.embedded();
    options.onMove(`The sandbox served at ${from.origin} stopped; the embedded sandbox answers from here on, from the same state.`);
    return embedded;
  };
  return async (input, init) => {
    const at = current;
    try {
      return await at.fetch(rebased(input, first.origin, at.origin), init);
    } catch (error) {
      if (!connectionRefused(error) || init?.signal?.aborted === true) throw error;
      if (current === at) {
        moving ??= move(at).finally(() => (moving = undefined));
        const next = await moving;
        if (next === undefined) throw error;
        current = next;
      }
      return current.fetch(rebased(input, first.origin, current.origin), init);
    }
  };
}

/** The request's URL with the served origin the client built it on put back to where the sandbox answers now. */
function rebased(input: Parameters<typeof globalThis.fetch>[0], from: string, to: string): Parameters<typeof globalThis.fetch>[0] {
  // The client sends a URL and an init; a Request (its method and body inside it) is left as it is.
  if (from === to || (typeof input !== 'string' && !(input instanceof URL))) return input;
  const url = new URL(input);
  if (url.origin !== from) return input;
  return `${to}${url.pathname}${url.search}`;
}

/** A fetch failure of a connection refused (ECONNREFUSED): the server was never reached. */
function connectionRefused(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error as { cause?: unknown }).cause : undefined;
  return typeof cause === 'object' && cause !== null && (cause as { code?: unknown }).code === 'ECONNREFUSED';
}
