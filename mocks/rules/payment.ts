import { formatMoney } from '../../src/contract/money.js';
import { ApiError } from '../core/exchange.js';
import type { Db } from '../store/db.js';
import type { PaymentMethodRecord } from '../store/records.js';
import type { Principal } from './auth.js';

/** The method must exist, be active, and be open to the token's mode. */
export function resolvePaymentMethod(db: Db, code: string, principal: Principal): PaymentMethodRecord {
  const method = db.paymentMethods.get(code);
  if (method === undefined || !method.active) {
    throw new ApiError(422, `Payment method '${code}' is not available.`, 'PAYMENT_METHOD_UNAVAILABLE', ['payment_method']);
  }
  if (principal.token.mode === 'sandbox' && method.type !== 'invoice') {
    throw new ApiError(422, `Sandbox tokens can only pay by invoice, not by '${code}'.`, 'PAYMENT_METHOD_NOT_ALLOWED', ['payment_method']);
  }
  return method;
}

/** `balance` is for chat bots: the X-Chat-User-ID header must name the chat account linked to this web account. */
export function requireChatLink(db: Db, principal: Principal, chatUserId: string | undefined): void {
  const link = db.chatLinks.get(String(principal.account.id));
  if (link === undefined) {
    throw new ApiError(422, 'Paying by balance needs a chat account linked to this web account.', 'CHAT_LINK_REQUIRED');
  }
  if (chatUserId === undefined || chatUserId.trim() !== link.chat_user_id) {
    throw new ApiError(
      422,
      'Paying by balance needs the X-Chat-User-ID header of the chat account linked to this web account.',
      'CHAT_LINK_REQUIRED',
    );
  }
}

export function checkAmountRange(method: PaymentMethodRecord, total: number, currency: string): void {
  if (total < method.min_amount || total > method.max_amount) {
    throw new ApiError(
      422,
      `${method.name} accepts totals from ${formatMoney(method.min_amount, currency)} to ${formatMoney(method.max_amount, currency)}; this order totals ${formatMoney(total, currency)}.`,
      'PAYMENT_METHOD_UNAVAILABLE',
      ['payment_method'],
    );
  }
}

export function checkBalance(principal: Principal, total: number, currency: string): void {
  if (principal.account.balance < total) {
    throw new ApiError(
      422,
      `The balance of ${formatMoney(principal.account.balance, currency)} is lower than the total of ${formatMoney(total, currency)}.`,
      'INSUFFICIENT_BALANCE',
    );
  }
}
