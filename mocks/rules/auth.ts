import { ApiError, type QueryView } from '../core/exchange.js';
import type { Db } from '../store/db.js';
import { tokenDigest } from '../store/token-digest.js';
import { BoundedMemo } from '../core/bounded-memo.js';
import type { AccountRecord, TokenRecord } from '../store/records.js';

/** Query parameters that would carry a token in a URL; the document forbids it. */
const TOKEN_PARAMS = new Set(['token', 'api_token', 'access_token', 'apikey', 'api_key', 'key', 'bearer']);

export function refuseTokenInUrl(query: QueryView): void {
  for (const name of query.keys()) {
    if (TOKEN_PARAMS.has(name.toLowerCase())) {
      throw new ApiError(400, 'Tokens are not accepted in the URL; send them only in the Authorization header.', 'TOKEN_IN_URL', [name]);
    }
  }
}

/** The token of `Authorization: Bearer <token>`, or null when the header is absent or of another scheme. */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match ? match[1]! : null;
}

export interface Principal {
  account: AccountRecord;
  token: TokenRecord;
}

export function authenticate(db: Db, token: string | null): Principal | null {
  if (token === null) return null;
  const record = db.tokens.get(digestOf(token));
  if (record === undefined || record.revoked) return null;
  const account = db.accounts.get(String(record.account_id));
  return account === undefined ? null : { account, token: record };
}

export const unauthorized = () => new ApiError(401, 'Unauthorized: the API token is missing or invalid.');

/**
 * A bot sends the same token with every request, and hashing it cost more than the rest of a balance read: the
 * digests of the last few tokens are kept, in memory only (the state, the journal and the logs never see this table).
 */
const digests = new BoundedMemo<string, string>(256);

function digestOf(token: string): string {
  return digests.get(token, tokenDigest);
}
