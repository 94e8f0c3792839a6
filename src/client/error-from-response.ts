import { redactText } from '../contract/redact.js';
import { errorForStatus, type TopupError } from '../errors.js';

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
 * Maps a non-2xx answer to the error class of its status, keeping the envelope's message, code and fields.
 * Every string is redacted (src/contract/redact.ts) with `secrets` known word for word, so a server that echoes the
 * token cannot leak it into an error.
 */
export function errorFromResponse(answer: FailedAnswer, secrets: readonly string[] = []): TopupError {
  const envelope = readErrorEnvelope(answer.body);
  const message = envelope.message ?? fallbackMessages[answer.status] ?? `The server answered with status ${answer.status}.`;
  return errorForStatus(answer.status, redactText(message, secrets), {
    code: envelope.code === undefined ? undefined : redactText(envelope.code, secrets),
    fields: envelope.fields?.map((field) => redactText(field, secrets)),
    retryAfter: answer.retryAfter,
  });
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
