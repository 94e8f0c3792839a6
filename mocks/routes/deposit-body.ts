import { ApiError } from '../core/exchange.js';
import type { DepositRequest } from './control-moves.js';

const DEPOSIT_FIELDS = ['amount', 'account', 'mode', 'payment_method', 'paid'];

/** The body of POST /__sandbox/deposits, each refusal naming the body's own key. */
export function depositRequest(body: Record<string, unknown>, token: string | undefined): DepositRequest {
  const unknown = Object.keys(body).filter((key) => !DEPOSIT_FIELDS.includes(key));
  if (unknown.length > 0)
    throw new ApiError(422, `A deposit takes ${DEPOSIT_FIELDS.join(', ')}; not ${unknown.join(', ')}.`, 'VALIDATION_FAILED', unknown);
  const { amount, account, mode, payment_method: method, paid } = body;
  if (mode !== undefined && mode !== 'sandbox' && mode !== 'production')
    throw new ApiError(422, 'mode is "sandbox" or "production": which world of an account with both keys.', 'VALIDATION_FAILED', ['mode']);
  if (account !== undefined && typeof account !== 'string')
    throw new ApiError(422, 'account is the name of a sandbox account, e.g. "demo".', 'VALIDATION_FAILED', ['account']);
  if (method !== undefined && typeof method !== 'string')
    throw new ApiError(422, 'payment_method is the code of a gateway method, e.g. "bank_transfer".', 'VALIDATION_FAILED', [
      'payment_method',
    ]);
  if (paid !== undefined && typeof paid !== 'boolean') throw new ApiError(422, 'paid is true or false.', 'VALIDATION_FAILED', ['paid']);
  return {
    amount: amount as number,
    ...(account !== undefined ? { account } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(method !== undefined ? { payment_method: method } : {}),
    paid: paid === true,
  };
}
