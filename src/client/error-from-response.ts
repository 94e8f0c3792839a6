import { redactText } from '../contract/redact.js';
import { errorForStatus, ValidationError, type TopupError, type TopupErrorDetails } from '../errors.js';

/** What the transport knows of a failed answer. */
export interface FailedAnswer {
  status: number;
  /** The parsed body, or undefined when it was not JSON. */
  body: unknown;
  /** Seconds from Retry-After, already parsed. */
  retryAfter?: number | undefined;
}

/** Used when the body has no message of its own (a proxy's HTML page, an empty body). */
const fallbackMessages: Record<number, string> = {
  400: 'The server rejected the request as malformed.',
  401: 'The token is missing or invalid.',
  403: 'The token is not allowed to do this.',
  404: 'Not found.',
  409: 'The request conflicts with an earlier one.',
  422: 'The request failed validation.',
  429: 'Too many requests; retry shortly.',
};

/**
 * The refusals the interface document names by `error.code` (FORBIDDEN_FIELDS and PLATFORM_VALIDATION_FAILED with
 * 422; CHAT_LINK_REQUIRED and INSUFFICIENT_BALANCE with a status it does not give). A server may send them with any
 * 4xx: with one that names no refusal of its own (400, 402, …), the code decides, and the error is a ValidationError
 * (a rejected request, exit 5 in the CLI), not a malformed one. 401, 403, 404, 409, 422 and 429 keep their status's
 * meaning.
 */
const DOCUMENTED_REFUSALS: ReadonlySet<string> = new Set([
  'FORBIDDEN_FIELDS',
  'PLATFORM_VALIDATION_FAILED',
  'CHAT_LINK_REQUIRED',
  'INSUFFICIENT_BALANCE',
]);
const STATUSES_OF_THEIR_OWN: ReadonlySet<number> = new Set([401, 403, 404, 409, 422, 429]);

/**
 * Maps a non-2xx answer to the error class of its status, keeping the envelope's message, code and fields; a
 * refusal the document names by code is a ValidationError whatever 4xx carries it (DOCUMENTED_REFUSALS).
 * Every string is redacted (src/contract/redact.ts) with `secrets` known word for word, so a server that echoes the
 * token cannot leak it into an error.
 */
export function errorFromResponse(answer: FailedAnswer, secrets: readonly string[] = []): TopupError {
  const envelope = readErrorEnvelope(answer.body);
  const message = envelope.message ?? fallbackMessages[answer.status] ?? `The server answered with status ${answer.status}.`;
  const refusal =
    envelope.code !== undefined &&
    DOCUMENTED_REFUSALS.has(envelope.code) &&
    answer.status >= 400 &&
    answer.status < 500 &&
    !STATUSES_OF_THEIR_OWN.has(answer.status);
  return (refusal ? refusalError : errorForStatus)(answer.status, redactText(message, secrets), {
    code: envelope.code === undefined ? undefined : redactText(envelope.code, secrets),
    fields: envelope.fields?.map((field) => redactText(field, secrets)),
    retryAfter: answer.retryAfter,
  });
}

function refusalError(status: number, message: string, details: Omit<TopupErrorDetails, 'status'>): TopupError {
  return new ValidationError(message, { ...details, status });
}

/** Reads the error envelope without trusting its shape: anything malformed is ignored, never thrown. */
function readErrorEnvelope(body: unknown): { message?: string; code?: string; fields?: string[] } {
  if (!isRecord(body)) return {};
  const result: { message?: string; code?: string; fields?: string[] } = {};
  if (typeof body.message === 'string' && body.message.trim() !== '') result.message = body.message;
  if (isRecord(body.error)) {
    if (typeof body.error.code === 'string') result.code = body.error.code;
    if (Array.isArray(body.error.fields)) result.fields = body.error.fields.filter((f): f is string => typeof f === 'string');
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
