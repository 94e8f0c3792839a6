import type { OpenApiDocument } from './types.js';

/** components.securitySchemes: the one way to send a token, and the name operations require it by. */

export const SECURITY_SCHEME = 'bearerAuth';

export function securitySchemes(): OpenApiDocument['components']['securitySchemes'] {
  return {
    [SECURITY_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description: 'A User API Token: `topup_test_…` (sandbox) or `topup_live_…` (production).',
    },
  };
}
