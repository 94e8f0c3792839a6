import type { z } from 'zod';
import { CreateOrderRequest, FORBIDDEN_ORDER_FIELDS, ORDER_BODY_FIELDS, PASS_ID_FIELDS, type OrderType } from '../../src/contract/index.js';
import { ApiError } from '../core/exchange.js';

/** An order request after the defaults and the `gamepass_id` alias are applied. */
export interface OrderInput {
  order_type: OrderType;
  platform_username: string;
  place_id: number;
  platform_pass_id: number;
  payment_method: string;
  client_reference: string | null;
}

const allowed = new Set<string>(ORDER_BODY_FIELDS);

export function parseOrderInput(body: Record<string, unknown>): OrderInput {
  const rejected = Object.keys(body).filter((name) => !allowed.has(name));
  if (rejected.length > 0) throw new ApiError(422, rejectedFieldsMessage(rejected), 'FORBIDDEN_FIELDS', rejected);
  const result = CreateOrderRequest.safeParse(body);
  // The pass id is required through either of its names, which the schema cannot say; report it with the rest.
  const passIds = PASS_ID_FIELDS.filter((name) => body[name] !== undefined);
  const passMissing = passIds.length === 0;
  if (!result.success) throw validationError(result.error, body, passMissing ? ['platform_pass_id'] : []);
  const input = result.data;
  const passId = input.platform_pass_id ?? input.gamepass_id;
  // Exactly one of the two names, as CreateOrderRequest's `oneOf` in openapi.json says.
  if (passIds.length > 1) {
    throw new ApiError(422, 'Send platform_pass_id or its alias gamepass_id, not both.', 'VALIDATION_FAILED', [...PASS_ID_FIELDS]);
  }
  if (passId === undefined) {
    throw new ApiError(422, 'platform_pass_id is required.', 'VALIDATION_FAILED', ['platform_pass_id']);
  }
  return {
    order_type: input.order_type ?? 'gamepass',
    platform_username: input.platform_username,
    place_id: input.place_id,
    platform_pass_id: passId,
    payment_method: input.payment_method ?? 'invoice',
    client_reference: input.client_reference ?? null,
  };
}

const serverSet = new Set<string>(FORBIDDEN_ORDER_FIELDS);

/** Why each refused field is refused: the server sets some itself; the rest are simply not part of an order. */
export function rejectedFieldsMessage(rejected: readonly string[]): string {
  const setByServer = rejected.filter((name) => serverSet.has(name));
  const unknown = rejected.filter((name) => !serverSet.has(name));
  const parts = [];
  if (setByServer.length > 0)
    parts.push(`These fields may not be sent: ${setByServer.join(', ')}. The server sets prices, amounts and statuses itself.`);
  if (unknown.length > 0)
    parts.push(
      `Unknown ${unknown.length === 1 ? 'field' : 'fields'}: ${unknown.join(', ')}. An order takes only ${ORDER_BODY_FIELDS.join(', ')}.`,
    );
  return parts.join(' ');
}

/** One sentence naming every field at fault, and the fields themselves. */
export function validationError(error: z.ZodError, input: Record<string, unknown>, alsoMissing: readonly string[] = []): ApiError {
  const fields = [...new Set([...error.issues.map((issue) => String(issue.path[0] ?? 'body')), ...alsoMissing])];
  const missing = fields.filter((f) => input[f] === undefined);
  const invalid = fields.filter((f) => !missing.includes(f));
  const parts = [];
  if (missing.length > 0) parts.push(`missing ${missing.join(', ')}`);
  if (invalid.length > 0) parts.push(`invalid ${invalid.join(', ')}`);
  return new ApiError(422, `Validation failed: ${parts.join('; ')}.`, 'VALIDATION_FAILED', fields);
}
