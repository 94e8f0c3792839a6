/** The published limits, per minute. Public reads count per client address; the rest per token. */
export const rateClasses = {
  'public-read': { limit: 60, windowSeconds: 60, scope: 'address' },
  'user-read': { limit: 60, windowSeconds: 60, scope: 'token' },
  'create-order': { limit: 10, windowSeconds: 60, scope: 'token' },
  'token-validate': { limit: 30, windowSeconds: 60, scope: 'token' },
} as const;

export type RateClass = keyof typeof rateClasses;

/** The server refuses a token's 4th simultaneous request; clients keep to 2. */
export const MAX_IN_FLIGHT_SERVER = 3;
export const MAX_IN_FLIGHT_CLIENT = 2;

export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;
