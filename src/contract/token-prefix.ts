import type { TokenMode } from './common.js';

/** How each mode's tokens begin (the interface document, Authentication). Dependency-free: the CLI's start-up code reads it. */
export const TOKEN_PREFIXES: Readonly<Record<TokenMode, string>> = { sandbox: 'topup_test_', production: 'topup_live_' };
