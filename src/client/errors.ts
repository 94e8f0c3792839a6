import type { InvoiceStatus } from '../contract/invoices.js';

/** What every error of the library may carry. The token is never part of it. */
export interface TopupErrorDetails {
  status?: number | undefined;
  code?: string | undefined;
  fields?: readonly string[] | undefined;
  retryAfter?: number | undefined;
  idempotencyKey?: string | undefined;
  cause?: unknown;
}

/** Base of every error the library throws. `message` is one plain sentence, the server's own when it sent one. */
export class TopupError extends Error {
  override name = 'TopupError';
  /** HTTP status of the answer; undefined when no answer arrived. */
  readonly status: number | undefined;
  /** The envelope's `error.code` (401 and 429 are uncoded). */
  readonly code: string | undefined;
  /** The envelope's `error.fields`: the request fields at fault. */
  readonly fields: readonly string[] | undefined;
  /** Seconds the server asked us to wait (Retry-After), when it said so. */
  readonly retryAfter: number | undefined;
  /** The Idempotency-Key of the order creation that failed; set by `orders.create`. */
  idempotencyKey: string | undefined;

  constructor(message: string, details: TopupErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
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
      message: this.message,
      status: this.status,
      code: this.code,
      fields: this.fields,
      retryAfter: this.retryAfter,
      idempotencyKey: this.idempotencyKey,
    };
  }
}

/** The library was used wrongly (base URL, token, header value, wait interval); nothing was sent. */
export class UsageError extends TopupError {
  override name = 'UsageError';
}

/** 400: the request was malformed (bad JSON, bad header, token in the URL). */
export class BadRequestError extends TopupError {
  override name = 'BadRequestError';
}

/** 401: the token is missing, invalid, revoked or regenerated. */
export class AuthError extends TopupError {
  override name = 'AuthError';
}

/** 403: the token may not do this. */
export class PermissionError extends TopupError {
  override name = 'PermissionError';
}

/** 404: no such resource for this account (another account's resources are not found either). */
export class NotFoundError extends TopupError {
  override name = 'NotFoundError';
}

/** 409: for example an Idempotency-Key reused with a different body. */
export class ConflictError extends TopupError {
  override name = 'ConflictError';
}

/** 422: the request failed validation; `code` says why and `fields` names the fields. */
export class ValidationError extends TopupError {
  override name = 'ValidationError';
}

/** 429: too many requests; `retryAfter` holds the seconds the server asked for. */
export class RateLimitError extends TopupError {
  override name = 'RateLimitError';
}

/** 5xx: the server failed. */
export class ServerError extends TopupError {
  override name = 'ServerError';
}

/** No answer arrived: DNS, refused or reset connection, or a dropped response. */
export class ConnectionError extends TopupError {
  override name = 'ConnectionError';
}

/** One attempt took longer than the `timeout` option. */
export class TimeoutError extends TopupError {
  override name = 'TimeoutError';
}

/** `invoices.wait` reached its timeout before the invoice became final. */
export class WaitTimeoutError extends TopupError {
  override name = 'WaitTimeoutError';
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
