/** What a token's prefix tells: its mode, and the family `auth status` shows instead of the token. */
import type { TokenMode } from '../../../contract/index.js';
import { tokenFamily as familyOf } from '../../../contract/redact.js';
import { TOKEN_PREFIXES } from '../../../contract/token-prefix.js';

/** Each known token prefix and the mode it announces. */
const TOKEN_FAMILIES = Object.entries(TOKEN_PREFIXES).map(([mode, prefix]) => [prefix, mode as TokenMode] as const);

/** The mode a token's prefix announces, when it has a known one. */
export function tokenModeOf(token: string): TokenMode | undefined {
  return TOKEN_FAMILIES.find(([prefix]) => token.startsWith(prefix))?.[1];
}

/**
 * What `auth status` shows of a stored token: its family prefix and nothing of the secret part (less than the
 * redaction of an echoed token shows, src/contract/redact.ts: this one is printed on every status).
 */
export function tokenFamily(token: string): string {
  return `${familyOf(token) ?? ''}…`;
}
