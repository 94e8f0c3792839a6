const FINAL = Symbol.for('topup.finalFetchError');

/**
 * Marks an error a custom fetch rejects with as the end of the call: not a network failure to retry, but a problem the
 * caller must see as it is (the CLI's embedded sandbox uses it when its state file cannot be read, the CLI's
 * sanitising fetch for an answer it cannot walk). A module of its own: the CLI's eager code marks errors with it
 * without loading the client's transport.
 */
export function finalFetchError<E extends Error>(error: E): E {
  return Object.assign(error, { [FINAL]: true });
}

export function isFinalFetchError(error: unknown): boolean {
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[FINAL] === true;
}
