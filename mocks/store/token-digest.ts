import { nodeCrypto } from '../core/builtins.js';

/** The key a token is stored under: its digest, so that a copy of the state file holds no usable token. */
export function tokenDigest(token: string): string {
  // One-shot: a quarter of createHash().update().digest()'s time, and every authenticated request makes one.
  return nodeCrypto().hash('sha256', token, 'hex');
}
