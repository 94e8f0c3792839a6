import type { ErrorCode } from './contract/errors.js';
import type { InvoiceStatus } from './contract/invoices.js';

/**
 * Every error topup throws, and how to tell them apart. Dependency-free, so the client, the sandbox and the CLI
 * share it.
 *
 * Each error carries a stable `kind`. Use `kind` (or `isTopupError(error, 'auth')`) where one process may hold two
 * copies of this module: the CLI's start-up bundle and its lazily loaded chunks each have one, and a bot's
 * dependencies may install topup twice. `instanceof` works within one copy, the usual case for library users.
 */
export type ErrorKind =
  /** The library or the CLI was used wrongly (base URL, token, flag, argument); nothing was sent. */
  | 'usage'
  /** 400: the request was malformed. */
  | 'bad_request'
  /** 401: the token is missing, invalid, revoked or regenerated. */
  | 'auth'
  /** 403: the token may not do this. */
  | 'permission'
  /** 404: no such resource for this account. */
  | 'not_found'
  /** 409: for example an Idempotency-Key reused with a different body. */
  | 'conflict'
  /** 422: the request failed validation. */
  | 'validation'
  /** 429: too many requests. */
  | 'rate_limited'
  /** 5xx: the server failed. */
  | 'server'
  /** No answer arrived. */
  | 'connection'
  /** An attempt took longer than the timeout. */
  | 'timeout'
  /** `invoices.wait` reached its timeout before the invoice became final. */
  | 'wait_timeout'
  /** Any other answer the server refused with (an unexpected status). */
  | 'api'
  /** The CLI refused a move that a business rule outside the API forbids. */
  | 'rejected'
  /** Ctrl-C, SIGTERM or an aborted signal. */
  | 'interrupted'
  /** Anything else the CLI refuses to do. */
  | 'failed';

/** An error code the interface documents, or one it does not (a newer server's, or the sandbox's own). */
// `string & {}` keeps the documented codes in editors' completion lists while accepting any other string.
export type TopupErrorCode = ErrorCode | (string & {});

/** What every error of the library may carry. The token is never part of it. */
export interface TopupErrorDetails {
  status?: number | undefined;
  code?: TopupErrorCode | undefined;
  fields?: readonly string[] | undefined;
  retryAfter?: number | undefined;
  idempotencyKey?: string | undefined;
  cause?: unknown;
}

/** Marks an error as topup's in every copy of this module (Symbol.for is one symbol per process). */
const BRAND = Symbol.for('topup.error');

/** Base of every error the library throws. `message` is one plain sentence, the server's own when it sent one. */
export class TopupError extends Error {
  override name = 'TopupError';
  /** What went wrong, stable across versions and bundle copies: decide on this, not on `name`. */
  readonly kind: ErrorKind = 'api';
  /** HTTP status of the answer; undefined when no answer arrived. */
  readonly status: number | undefined;
  /** The envelope's `error.code` (401 and 429 are uncoded). */
  readonly code: TopupErrorCode | undefined;
  /** The envelope's `error.fields`: the request fields at fault. */
  readonly fields: readonly string[] | undefined;
  /** Seconds the server asked us to wait (Retry-After), when it said so. */
  readonly retryAfter: number | undefined;
  /** The Idempotency-Key of the order creation that failed; set by `orders.create`. */
  idempotencyKey: string | undefined;

  constructor(message: string, details: TopupErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    Object.defineProperty(this, BRAND, { value: true });
    this.status = details.status;
    this.code = details.code;
    this.fields = details.fields;
    this.retryAfter = details.retryAfter;
    this.idempotencyKey = details.idempotencyKey;
  }

  /** A plain object for `--json` output and logs. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      code: this.code,
      fields: this.fields,
      retryAfter: this.retryAfter,
      idempotencyKey: this.idempotencyKey,
    };
  }
}

/** The library was used wrongly (base URL, token, header value, wait interval, a CLI flag); nothing was sent. */
export class UsageError extends TopupError {
  override name = 'UsageError';
  override readonly kind = 'usage';
}

/** 400: the request was malformed (bad JSON, bad header, token in the URL). */
export class BadRequestError extends TopupError {
  override name = 'BadRequestError';
  override readonly kind = 'bad_request';
}

/** 401: the token is missing, invalid, revoked or regenerated. */
export class AuthError extends TopupError {
  override name = 'AuthError';
  override readonly kind = 'auth';
}

/** 403: the token may not do this. */
export class PermissionError extends TopupError {
  override name = 'PermissionError';
  override readonly kind = 'permission';
}

/** 404: no such resource for this account (another account's resources are not found either). */
export class NotFoundError extends TopupError {
  override name = 'NotFoundError';
  override readonly kind = 'not_found';
}

/** 409: for example an Idempotency-Key reused with a different body. */
export class ConflictError extends TopupError {
  override name = 'ConflictError';
  override readonly kind = 'conflict';
}

/** 422: the request failed validation; `code` says why and `fields` names the fields. */
export class ValidationError extends TopupError {
  override name = 'ValidationError';
  override readonly kind = 'validation';
}

/** 429: too many requests; `retryAfter` holds the seconds the server asked for. */
export class RateLimitError extends TopupError {
  override name = 'RateLimitError';
  override readonly kind = 'rate_limited';
}

/** 5xx: the server failed. */
export class ServerError extends TopupError {
  override name = 'ServerError';
  override readonly kind = 'server';
}

/** No answer arrived: DNS, refused or reset connection, or a dropped response. */
export class ConnectionError extends TopupError {
  override name = 'ConnectionError';
  override readonly kind = 'connection';
}

/** One attempt took longer than the `timeout` option. */
export class TimeoutError extends TopupError {
  override name = 'TimeoutError';
  override readonly kind = 'timeout';
}

/** `invoices.wait` reached its timeout before the invoice became final. */
export class WaitTimeoutError extends TopupError {
  override name = 'WaitTimeoutError';
  override readonly kind = 'wait_timeout';
  /** The status seen at the last poll. */
  readonly lastStatus: InvoiceStatus;

  constructor(message: string, lastStatus: InvoiceStatus) {
    super(message);
    this.lastStatus = lastStatus;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), lastStatus: this.lastStatus };
  }
}

/**
 * An answer's body grew past the client's `maxResponseBytes` (counted after decompression) and was dropped unread:
 * a server sending that much is broken or hostile. Never retried: the same request would get the same answer.
 */
export class ResponseTooLargeError extends TopupError {
  override name = 'ResponseTooLargeError';
  override readonly kind = 'api';
  /** The limit, in bytes, that the body went past. */
  readonly maxBytes: number;

  constructor(message: string, maxBytes: number, details: TopupErrorDetails = {}) {
    super(message, { code: 'RESPONSE_TOO_LARGE', ...details });
    this.maxBytes = maxBytes;
  }
}

type StatusErrorClass = new (message: string, details: TopupErrorDetails) => TopupError;

const classByStatus: Readonly<Record<number, StatusErrorClass>> = {
  400: BadRequestError,
  401: AuthError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
};

/** The error for a refusal with this HTTP status: 5xx are ServerError, an unexpected status a plain TopupError. */
export function errorForStatus(status: number, message: string, details: Omit<TopupErrorDetails, 'status'> = {}): TopupError {
  const ErrorType = classByStatus[status] ?? (status >= 500 ? ServerError : TopupError);
  return new ErrorType(message, { ...details, status });
}

/** True for any topup error, from any copy of this module; with `kind`, only for errors of that kind. */
export function isTopupError(value: unknown, kind?: ErrorKind): value is TopupError {
  if (typeof value !== 'object' || value === null || (value as { [BRAND]?: unknown })[BRAND] !== true) return false;
  return kind === undefined || (value as TopupError).kind === kind;
}

/**
 * Errors that other libraries throw, by the name each documents: an aborted fetch or signal (a DOMException),
 * commander's parse errors and @inquirer's Ctrl-C. Matched by name because their classes may not be loaded.
 */
const foreignKinds: Readonly<Record<string, ErrorKind>> = {
  AbortError: 'interrupted',
  TimeoutError: 'timeout',
  CommanderError: 'usage',
  ExitPromptError: 'interrupted',
};

/** The kind of any thrown value: a topup error's own, a known foreign error's, or undefined for anything else. */
export function errorKind(error: unknown): ErrorKind | undefined {
  if (isTopupError(error)) return error.kind;
  if (!(error instanceof Error)) return undefined;
  return Object.hasOwn(foreignKinds, error.name) ? foreignKinds[error.name] : undefined;
}
