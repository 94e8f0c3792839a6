import { ApiError } from '../core/exchange.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, isVisibleWord } from '../../src/contract/visible-word.js';
import { idempotencyKeyOf, type Db } from '../store/db.js';
import type { IdempotencyRecord } from '../store/records.js';
import type { OrderInput } from './order-request.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The Idempotency-Key header, checked; null when absent. */
export function readIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (!isVisibleWord(header, IDEMPOTENCY_KEY_MAX_LENGTH)) {
    throw new ApiError(
      422,
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
      'INVALID_IDEMPOTENCY_KEY',
      ['Idempotency-Key'],
    );
  }
  return header;
}

/** What makes two requests "the same": the normalised body and the chat user it pays as. */
export function fingerprintOf(input: OrderInput, chatUserId: string | undefined): string {
  return JSON.stringify([
    input.order_type,
    input.platform_username.toLowerCase(),
    input.place_id,
    input.platform_pass_id,
    input.payment_method,
    input.client_reference,
    input.payment_method === 'balance' ? (chatUserId ?? null) : null,
  ]);
}

/** The live record for this account's key; an expired one is forgotten, so the key can be used again. */
export function findIdempotencyRecord(db: Db, accountId: number, key: string, now: number): IdempotencyRecord | undefined {
  const id = idempotencyKeyOf(accountId, key);
  const record = db.idempotency.get(id);
  if (record !== undefined && record.expires_at <= now) {
    db.idempotency.remove(id);
    return undefined;
  }
  return record;
}

export function assertSameRequest(record: IdempotencyRecord, fingerprint: string): void {
  if (record.fingerprint !== fingerprint) {
    throw new ApiError(
      409,
      'This Idempotency-Key was already used with a different request. Use a new key for a new order.',
      'IDEMPOTENCY_KEY_MISMATCH',
      ['Idempotency-Key'],
    );
  }
}
