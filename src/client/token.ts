import type { TokenValidation } from '../contract/account.js';
import { AuthError } from '../errors.js';
import type { Requester, RequestOptions } from './request.js';

export interface TokenApi {
  /**
   * Checks the token and reports its mode; an invalid token throws AuthError (a 401, or an answer that says `valid:
   * false`). Never retried: it is a POST without a key.
   */
  validate(options?: RequestOptions): Promise<TokenValidation>;
}

export function tokenApi(request: Requester): TokenApi {
  return {
    async validate(options) {
      const validation = await request('validateToken', { ...options });
      // The document shows no answer here; a server that answers yet says `valid: false` has refused the token, as a
      // 401 would, and its answer must not read as a valid token's.
      if ((validation as { valid?: unknown }).valid === false)
        throw new AuthError('The server says the token is not valid (its check answered valid: false).', { code: 'TOKEN_NOT_VALID' });
      return validation;
    },
  };
}
