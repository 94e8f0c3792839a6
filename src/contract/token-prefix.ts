import type { TokenMode } from './common.js';

/** How each mode's tokens begin (the interface document, Authentication). Dependency-free: the CLI's start-up code reads it. */
export const TOKEN_PREFIXES: Readonly<Record<TokenMode, string>> = { sandbox: 'topup_test_', production: 'topup_live_' };

/** Token-shaped words in free text: group 1 is the prefix (a hint of the mode, safe to show), the rest is the secret. */
export function tokenShapePattern(): RegExp {
  return new RegExp(`\\b(${Object.values(TOKEN_PREFIXES).join('|')})[A-Za-z0-9_-]+`, 'g');
}
