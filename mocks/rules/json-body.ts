import { ApiError } from '../core/exchange.js';

export const MAX_BODY_BYTES = 64 * 1024;
/** The largest state `PUT /__sandbox/state` loads over HTTP: a store of about 50,000 orders. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

/** The request body as a JSON object, or a 4xx that says what is wrong with it. */
export function parseJsonObject(body: string | null, contentType: string | undefined): Record<string, unknown> {
  if (body === null || body.trim() === '') {
    throw new ApiError(400, 'The request body must be a JSON object.', 'INVALID_BODY');
  }
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most bodies are short enough not to need counting.
  if (body.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
    throw new ApiError(413, `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, 'PAYLOAD_TOO_LARGE');
  }
  if (contentType === undefined || !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    throw new ApiError(415, 'Send the body as JSON with Content-Type: application/json.', 'UNSUPPORTED_MEDIA_TYPE');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.', 'INVALID_JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'The request body must be a JSON object.', 'INVALID_BODY');
  }
  return parsed as Record<string, unknown>;
}
