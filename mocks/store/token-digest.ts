import { createHash } from 'node:crypto';

/** The key a token is stored under: its digest, so that a copy of the state file holds no usable token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
