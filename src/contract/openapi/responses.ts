import { type ErrorCode, errorCodeCatalog } from '../errors.js';
import { MAX_IN_FLIGHT_SERVER, RATE_LIMIT_HEADERS } from '../rate-limits.js';
import { errorExample } from './examples.js';
import { JSON_MEDIA_TYPE, schemaRef } from './schemas.js';
import type { OpenApiHeader, OpenApiReference, OpenApiResponse } from './types.js';

/**
 * components.headers and components.responses: the rate-limit headers and Retry-After, which answers carry them,
 * and the shared error answers (the error envelope) every operation refers to.
 */

/** Statuses every operation may answer with, besides its own. 405 is left out: it belongs to no operation. */
const STATUSES_OF_EVERY_OPERATION = [429, 500, 502, 503, 504] as const;
const STATUSES_WITH_RETRY_AFTER: ReadonlySet<number> = new Set([429, 503]);

/** The rate-limit headers, under their component names. */
export const rateLimitHeaders = {
  XRateLimitLimit: {
    name: RATE_LIMIT_HEADERS.limit,
    minimum: 1,
    description: 'Requests allowed per window in the rate class of the operation.',
  },
  XRateLimitRemaining: { name: RATE_LIMIT_HEADERS.remaining, minimum: 0, description: 'Requests left in the current window.' },
  XRateLimitReset: { name: RATE_LIMIT_HEADERS.reset, minimum: 0, description: 'Unix time, in seconds, at which the current window ends.' },
  RetryAfter: { name: RATE_LIMIT_HEADERS.retryAfter, minimum: 0, description: 'Seconds to wait before retrying.' },
} as const;

export function rateLimitHeaderComponents(): Record<string, OpenApiHeader> {
  return Object.fromEntries(
    Object.entries(rateLimitHeaders).map(([id, { minimum, description }]) => [id, { description, schema: { type: 'integer', minimum } }]),
  );
}

/** The headers an answer with this status carries, as references to the header components. */
export function responseHeaders(status: number): Record<string, OpenApiHeader | OpenApiReference> {
  const ids: Array<keyof typeof rateLimitHeaders> = ['XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset'];
  if (STATUSES_WITH_RETRY_AFTER.has(status)) ids.push('RetryAfter');
  return Object.fromEntries(ids.map((id) => [rateLimitHeaders[id].name, { $ref: `#/components/headers/${id}` }]));
}

/** Shared error answers, by status: the component name and what the status means. */
const errorStatuses: Readonly<Record<number, { name: string; meaning: string }>> = {
  400: { name: 'BadRequest', meaning: 'The request is malformed.' },
  401: { name: 'Unauthorized', meaning: 'The token is missing, invalid or revoked. No `error.code`.' },
  404: { name: 'NotFound', meaning: 'No such resource for this account, or no such path.' },
  409: { name: 'Conflict', meaning: 'The request conflicts with an earlier one.' },
  413: { name: 'PayloadTooLarge', meaning: 'The body is too large.' },
  415: { name: 'UnsupportedMediaType', meaning: 'The body is not sent as application/json.' },
  422: { name: 'UnprocessableEntity', meaning: 'The request was understood but refused.' },
  429: {
    name: 'TooManyRequests',
    meaning: `The rate class limit is used up, or ${MAX_IN_FLIGHT_SERVER} requests of this token are already in flight. No \`error.code\`; retry after Retry-After seconds.`,
  },
  500: { name: 'InternalServerError', meaning: 'Unexpected server error.' },
  502: { name: 'BadGateway', meaning: 'A gateway in front of the service got no valid answer from it.' },
  503: { name: 'ServiceUnavailable', meaning: 'The service is briefly unavailable; retry after Retry-After seconds.' },
  504: { name: 'GatewayTimeout', meaning: 'A gateway in front of the service gave up waiting for it.' },
  507: { name: 'InsufficientStorage', meaning: 'The sandbox only (not the interface document): it holds as many invoices as it keeps.' },
};

function errorResponseName(status: number): string {
  const entry = errorStatuses[status];
  if (entry === undefined)
    throw new Error(`No shared error response for status ${status}; add it to errorStatuses in openapi/responses.ts.`);
  return entry.name;
}

export function errorResponses(): Record<string, OpenApiResponse> {
  return Object.fromEntries(Object.entries(errorStatuses).map(([key, { name, meaning }]) => [name, errorResponse(Number(key), meaning)]));
}

function errorResponse(status: number, meaning: string): OpenApiResponse {
  const codes = codesOfStatus(status).map((code) => `\`${code}\``);
  const headers = responseHeaders(status);
  return {
    description: codes.length === 0 ? meaning : `${meaning} error.code: ${codes.join(', ')}.`,
    headers,
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef('ErrorEnvelope'), example: errorExample(status) } },
  };
}

function codesOfStatus(status: number): ErrorCode[] {
  return (Object.keys(errorCodeCatalog) as ErrorCode[]).filter((code) => errorCodeCatalog[code].status === status);
}

/** The error answers of one operation: its own statuses and those of every operation, as references. */
export function operationErrorResponses(errors: readonly number[]): Record<string, OpenApiReference> {
  const statuses = [...new Set([...errors, ...STATUSES_OF_EVERY_OPERATION])].sort((a, b) => a - b);
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
}
