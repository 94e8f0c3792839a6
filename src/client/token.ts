import type { TokenValidation } from '../contract/account.js';
import type { Requester, RequestOptions } from './request.js';

export interface TokenApi {
  /** Checks the token and reports its mode; an invalid token throws AuthError. Never retried: it is a POST without a key. */
  validate(options?: RequestOptions): Promise<TokenValidation>;
}

export function tokenApi(request: Requester): TokenApi {
  return {
    validate: (options) => request('validateToken', { ...options }),
  };
}
