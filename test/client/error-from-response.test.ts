import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/client/error-from-response.js';
import {
  AuthError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TopupError,
  ValidationError,
} from '../../src/errors.js';

const envelope = (message: string, error?: object) =>
  error === undefined ? { success: false, message } : { success: false, message, error };

describe('errorFromResponse', () => {
  it.each([
    {
      status: 400,
      body: envelope('Bad JSON.', { code: 'INVALID_JSON' }),
      type: BadRequestError,
      name: 'BadRequestError',
      message: 'Bad JSON.',
      code: 'INVALID_JSON',
      fields: undefined,
    },
    {
      status: 401,
      body: envelope('Unauthorized token.'),
      type: AuthError,
      name: 'AuthError',
      message: 'Unauthorized token.',
      code: undefined,
      fields: undefined,
    },
    {
      status: 403,
      body: envelope('Forbidden.'),
      type: PermissionError,
      name: 'PermissionError',
      message: 'Forbidden.',
      code: undefined,
      fields: undefined,
    },
    {
      status: 404,
      body: envelope('Invoice not found.', { code: 'NOT_FOUND' }),
      type: NotFoundError,
      name: 'NotFoundError',
      message: 'Invoice not found.',
      code: 'NOT_FOUND',
      fields: undefined,
    },
    {
      status: 409,
      body: envelope('Key reused.', { code: 'IDEMPOTENCY_KEY_MISMATCH' }),
      type: ConflictError,
      name: 'ConflictError',
      message: 'Key reused.',
      code: 'IDEMPOTENCY_KEY_MISMATCH',
      fields: undefined,
    },
    {
      status: 422,
      body: envelope('Forbidden fields.', { code: 'FORBIDDEN_FIELDS', fields: ['price', 'status'] }),
      type: ValidationError,
      name: 'ValidationError',
      message: 'Forbidden fields.',
      code: 'FORBIDDEN_FIELDS',
      fields: ['price', 'status'],
    },
    {
      status: 429,
      body: envelope('Too many requests.'),
      type: RateLimitError,
      name: 'RateLimitError',
      message: 'Too many requests.',
      code: undefined,
      fields: undefined,
    },
    {
      status: 500,
      body: envelope('Oops.', { code: 'INTERNAL_ERROR' }),
      type: ServerError,
      name: 'ServerError',
      message: 'Oops.',
      code: 'INTERNAL_ERROR',
      fields: undefined,
    },
    {
      status: 503,
      body: undefined,
      type: ServerError,
      name: 'ServerError',
      message: 'The server answered with status 503.',
      code: undefined,
      fields: undefined,
    },
    {
      status: 401,
      body: undefined,
      type: AuthError,
      name: 'AuthError',
      message: 'The token is missing or invalid.',
      code: undefined,
      fields: undefined,
    },
    {
      status: 422,
      body: { message: '', error: { code: 7, fields: ['a', 3] } },
      type: ValidationError,
      name: 'ValidationError',
      message: 'The request failed validation.',
      code: undefined,
      fields: ['a'],
    },
    {
      status: 405,
      body: envelope('Use POST.', { code: 'METHOD_NOT_ALLOWED' }),
      type: TopupError,
      name: 'TopupError',
      message: 'Use POST.',
      code: 'METHOD_NOT_ALLOWED',
      fields: undefined,
    },
    {
      status: 418,
      body: ['not', 'an', 'object'],
      type: TopupError,
      name: 'TopupError',
      message: 'The server answered with status 418.',
      code: undefined,
      fields: undefined,
    },
  ])('$status $message → $name', ({ status, body, type, name, message, code, fields }) => {
    const error = errorFromResponse({ status, body });
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(TopupError);
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, status: error.status, message: error.message, code: error.code, fields: error.fields }).toEqual({
      name,
      status,
      message,
      code,
      fields,
    });
    expect(String(error)).toBe(`${name}: ${message}`);
  });

  it('keeps Retry-After seconds on a 429', () => {
    const error = errorFromResponse({ status: 429, body: envelope('Slow down.'), retryAfter: 12 });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(12);
  });

  it('scrubs secrets that a server echoes back', () => {
    const token = 'topup_live_echoed0123';
    const error = errorFromResponse(
      { status: 422, body: envelope(`Token ${token} is odd.`, { code: 'VALIDATION_FAILED', fields: [token] }) },
      [token],
    );
    // The one redaction (src/contract/redact.ts): a secret part this short shows only its family.
    expect(error.message).toBe('Token topup_live_… is odd.');
    expect(error.fields).toEqual(['topup_live_…']);
    expect(JSON.stringify(error)).not.toContain(token);
    expect(error.stack).not.toContain(token);
  });
});

// The document gives CHAT_LINK_REQUIRED and INSUFFICIENT_BALANCE no status: the code says it is a refusal.
describe('a refusal the document names by code is a ValidationError whatever 4xx carries it', () => {
  it.each([
    [400, 'INSUFFICIENT_BALANCE'],
    [402, 'INSUFFICIENT_BALANCE'],
    [400, 'CHAT_LINK_REQUIRED'],
    [418, 'PLATFORM_VALIDATION_FAILED'],
    [400, 'FORBIDDEN_FIELDS'],
  ])('%i %s', (status, code) => {
    const error = errorFromResponse({ status, body: envelope('Refused.', { code, fields: ['x'] }) });
    expect(error).toBeInstanceOf(ValidationError);
    expect([error.status, error.code, error.fields, error.message]).toEqual([status, code, ['x'], 'Refused.']);
  });

  it.each([
    [401, AuthError],
    [403, PermissionError],
    [404, NotFoundError],
    [409, ConflictError],
    [429, RateLimitError],
    [500, ServerError],
  ])('%i keeps its own meaning', (status, type) => {
    expect(errorFromResponse({ status, body: envelope('No.', { code: 'INSUFFICIENT_BALANCE' }) })).toBeInstanceOf(type);
  });

  it('a code of our own design on a 400 stays a BadRequestError', () => {
    expect(errorFromResponse({ status: 400, body: envelope('No.', { code: 'INVALID_BODY' }) })).toBeInstanceOf(BadRequestError);
  });
});

describe('a token without the sandbox prefixes, known to the client, is cut from every string', () => {
  it.each([
    ['abc s3cr3t-value-123 def s3cr3t-value-123', ['s3cr3t-value-123'], 'abc …-123 def …-123'],
    ['nothing here', ['s3cr3t-value-123'], 'nothing here'],
    ['empty secrets are ignored', [''], 'empty secrets are ignored'],
  ])('%j', (text, secrets, expected) => {
    const error = errorFromResponse({ status: 422, body: envelope(text, { code: text, fields: [text] }) }, secrets);
    expect([error.message, error.code, error.fields]).toEqual([expected, expected, [expected]]);
  });
});
