import { vi } from 'vitest';
import type { FetchFunction } from '../../src/index.js';

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  status: number | 'failed';
  at: number;
}

/** Wraps a fetch and records every exchange (the real headers the server saw, and its status). */
export function recordingFetch(inner: FetchFunction): { fetch: FetchFunction; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const exchange: Exchange = { method: request.method, url: request.url, headers, status: 'failed', at: Date.now() };
    exchanges.push(exchange);
    const response = await inner(request);
    exchange.status = response.status;
    return response;
  };
  return { fetch, exchanges };
}

/**
 * Drives fake timers until `promise` settles: lets real macrotasks run (the in-process sandbox needs a few),
 * then jumps to the next fake timer. Each timer fires at its exact due time, so measured waits stay exact.
 */
export async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    for (let i = 0; i < 5 && !done; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    if (done) return promise;
    await vi.advanceTimersToNextTimerAsync();
  }
}

/** Every string reachable from `value` through own properties (enumerable or not), the cause chain and the stack. */
export function reachableStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  const strings: string[] = [];
  for (const key of Reflect.ownKeys(value)) {
    strings.push(String(key));
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    const child = descriptor && 'value' in descriptor ? descriptor.value : (value as Record<PropertyKey, unknown>)[key];
    strings.push(...reachableStrings(child, seen));
  }
  if (value instanceof Error) strings.push(String(value.stack), String(value.message));
  return strings;
}
