import { z } from 'zod';
import { component } from './common.js';
import { groupThousands } from './money.js';
import { MAX_SANDBOX_INVOICES } from './sandbox-control.js';

const MAX_SANDBOX_INVOICES_TEXT = groupThousands(MAX_SANDBOX_INVOICES);

/**
 * Every machine-readable `error.code`. 401 and 429 stay uncoded, as the interface document publishes them;
 * clients tell them apart by status.
 */
export const ErrorCode = component(
  'ErrorCode',
  z.enum([
    'FORBIDDEN_FIELDS',
    'VALIDATION_FAILED',
    'PLATFORM_VALIDATION_FAILED',
    'CHAT_LINK_REQUIRED',
    'INSUFFICIENT_BALANCE',
    'PAYMENT_METHOD_UNAVAILABLE',
    'PAYMENT_METHOD_NOT_ALLOWED',
    'INVALID_IDEMPOTENCY_KEY',
    'IDEMPOTENCY_KEY_MISMATCH',
    'INVALID_JSON',
    'INVALID_BODY',
    'UNSUPPORTED_MEDIA_TYPE',
    'PAYLOAD_TOO_LARGE',
    'TOKEN_IN_URL',
    'INVALID_HEADER',
    'NOT_FOUND',
    'ROUTE_NOT_FOUND',
    'METHOD_NOT_ALLOWED',
    'INTERNAL_ERROR',
    'BAD_GATEWAY',
    'SERVICE_UNAVAILABLE',
    'GATEWAY_TIMEOUT',
    'SANDBOX_FULL',
  ]),
);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorEnvelope = component(
  'ErrorEnvelope',
  z.object({
    success: z.literal(false),
    message: z.string(),
    error: z
      .object({
        code: ErrorCode.optional(),
        fields: z.array(z.string()).optional(),
      })
      .optional(),
  }),
  'Every error answer. `error` is present for coded errors; `error.fields` names the request fields at fault.',
);
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** What each code means, for the OpenAPI document and the guides (docs/library.md, Errors). */
export const errorCodeCatalog: Record<ErrorCode, { status: number; meaning: string }> = {
  FORBIDDEN_FIELDS: {
    status: 422,
    meaning: 'The body holds fields a client must not send, or properties that are not allowed; `fields` lists all of them.',
  },
  VALIDATION_FAILED: {
    status: 422,
    meaning: 'A field or query parameter is missing, of the wrong type or out of range; `fields` lists them.',
  },
  PLATFORM_VALIDATION_FAILED: { status: 422, meaning: 'The game platform rejected the username, place or pass; the message says which.' },
  CHAT_LINK_REQUIRED: {
    status: 422,
    meaning: '`payment_method` is `balance` but X-Chat-User-ID is missing or not the chat id linked to the account.',
  },
  INSUFFICIENT_BALANCE: { status: 422, meaning: '`payment_method` is `balance` and the balance is lower than the total.' },
  PAYMENT_METHOD_UNAVAILABLE: { status: 422, meaning: '`payment_method` names no active payment method.' },
  PAYMENT_METHOD_NOT_ALLOWED: { status: 422, meaning: 'Sandbox tokens may only use `invoice`.' },
  INVALID_IDEMPOTENCY_KEY: { status: 422, meaning: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' },
  IDEMPOTENCY_KEY_MISMATCH: { status: 409, meaning: 'The Idempotency-Key was already used by this account with a different request.' },
  INVALID_JSON: { status: 400, meaning: 'The body is not valid JSON.' },
  INVALID_BODY: { status: 400, meaning: 'The body is JSON but not an object.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'A body was sent with a Content-Type other than application/json.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is larger than 64 KiB.' },
  TOKEN_IN_URL: { status: 400, meaning: 'A token was put in the URL. Tokens go only in the Authorization header.' },
  INVALID_HEADER: { status: 400, meaning: 'A header is malformed or sent more than once.' },
  NOT_FOUND: { status: 404, meaning: "No such resource for this account (another account's resources are not found either)." },
  ROUTE_NOT_FOUND: { status: 404, meaning: 'No endpoint has this path.' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The path exists but not with this method; see the Allow header.' },
  INTERNAL_ERROR: { status: 500, meaning: 'Unexpected server error.' },
  BAD_GATEWAY: { status: 502, meaning: 'A gateway in front of the service got no valid answer from it; retry shortly.' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'The service is briefly unavailable; retry after Retry-After.' },
  GATEWAY_TIMEOUT: {
    status: 504,
    meaning:
      'A gateway in front of the service gave up waiting for it; retry shortly (an order may have been made: repeat it with the same Idempotency-Key).',
  },
  SANDBOX_FULL: {
    status: 507,
    meaning: `The sandbox only (its design, not the interface document's): it keeps at most ${MAX_SANDBOX_INVOICES_TEXT} invoices, orders and deposits together, or fewer as started (\`--max-invoices\`), and makes no new one past that; nothing was changed. Reset the sandbox to go on.`,
  },
};
