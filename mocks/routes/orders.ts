import type { CreateOrderResult } from '../../src/contract/index.js';
import { formatMoney, formatTimestamp } from '../../src/contract/money.js';
import { ApiError } from '../core/exchange.js';
import { onDemand } from '../core/on-demand.js';
import * as present from './present.js';
import type { InvoiceRecord, OrderRecord, PaymentMethodRecord } from '../store/records.js';
import { assertSameRequest, findIdempotencyRecord, fingerprintOf, IDEMPOTENCY_TTL_MS, readIdempotencyKey } from '../rules/idempotency.js';
import { parseJsonObject } from '../rules/json-body.js';
import { postTransaction } from '../rules/ledger.js';
import { checkAmountRange, checkBalance, requireChatLink, resolvePaymentMethod } from '../rules/payment.js';
import { magicOutcomeOf } from '../store/magic-values.js';
import { checkAgainstPlatform } from '../rules/platform.js';
import { assertRoomForInvoice } from '../rules/capacity.js';
import { expiryOf, scheduleInvoice } from '../rules/timed-moves.js';
import { CURRENCY, quote } from '../rules/pricing.js';
import { isClockInRange } from '../store/time-range.js';
import { principalOf, type RouteContext, type RouteHandler, type RouteResult } from './context.js';
import { pageNewestFirst } from './paging.js';
import { SANDBOX_PATHS } from './paths.js';

/**
 * The order body's parser (mocks/rules/order-request.ts), with the contract's zod schema of an order request: a
 * sandbox made by `createSandbox()` has it before its first request (mocks/assembly/sandbox.ts); the offline CLI's
 * embedded sandbox, which may only read, loads it with its first order.
 */
export const orderRequest = onDemand(() => import('../rules/order-request.js'));

export const createOrder: RouteHandler = async (ctx) => {
  const principal = principalOf(ctx);
  const { headers } = ctx.request;
  const body = parseJsonObject(ctx.request.body, headers['content-type']);
  const parser = orderRequest.current ?? (await orderRequest.load());
  const input = parser.parseOrderInput(body);
  const chatUserId = headers['x-chat-user-id'];
  const key = readIdempotencyKey(headers['idempotency-key']);
  // Only a keyed request is compared with an earlier one.
  const keyed = key === null ? null : { key, fingerprint: fingerprintOf(input, chatUserId) };

  const result = await ctx.writeLock.run(async (): Promise<RouteResult> => {
    const { store, now } = ctx;
    const { account } = principal;
    if (keyed !== null) {
      const earlier = findIdempotencyRecord(store.db, account.id, keyed.key, now);
      if (earlier !== undefined) {
        assertSameRequest(earlier, keyed.fingerprint);
        const code = earlier.invoice_code;
        const invoice = store.db.invoices.get(code)!;
        return {
          status: 200,
          message: 'An order for this Idempotency-Key already exists.',
          data: creationResult(ctx, invoice, store.db.orders.get(code)!, store.db.paymentMethods.get(invoice.payment_method), true),
          notes: { idempotentReplay: true },
        };
      }
    }

    const method = resolvePaymentMethod(store.db, input.payment_method, principal);
    if (method.type === 'balance') requireChatLink(store.db, principal, chatUserId);
    const platform = checkAgainstPlatform(store.db, input);
    const price = quote(platform.credit_amount);
    checkAmountRange(method, price.total_amount, CURRENCY);
    if (method.type === 'balance') checkBalance(principal, price.total_amount, CURRENCY);
    assertRoomForInvoice(store);

    // A clock no record can hold (only an injected one reads so: the sandbox's own moves stop at CLOCK_MAX) fails the
    // order here, before the first write, rather than half way through it.
    if (!isClockInRange(now)) throw new RangeError(`The sandbox clock reads ${now}: records need whole milliseconds from 1970 to 9999.`);
    // Everything below commits; nothing below may refuse. The records are built from the checked body, the checked
    // records above and the clock, so they are stored unparsed (Table.insertChecked): route-records.test.ts checks
    // every kind against the state schema.
    const code = store.nextInvoiceCode(now);
    const paidNow = method.type === 'balance';
    const invoice = await store.db.invoices.insertChecked({
      invoice_code: code,
      account_id: account.id,
      type: 'order',
      amount: price.total_amount,
      currency: CURRENCY,
      payment_method: method.code,
      payment_url: method.type === 'gateway' ? paymentUrl(ctx.base, method, code) : '',
      payment_status: paidNow ? 'paid' : 'pending',
      environment: principal.token.mode,
      created_at: now,
      expires_at: expiryOf(store, now, magicOutcomeOf(input)),
      paid_at: paidNow ? now : null,
      updated_at: now,
    });
    const order = await store.db.orders.insertChecked({
      invoice_code: code,
      account_id: account.id,
      status: paidNow ? 'processing' : 'pending',
      order_type: input.order_type,
      platform_username: platform.username,
      place_id: input.place_id,
      platform_pass_id: input.platform_pass_id,
      ...price,
      payment_method: method.code,
      client_reference: input.client_reference,
      environment: principal.token.mode,
      created_at: now,
      updated_at: now,
      paid_at: paidNow ? now : null,
      completed_at: null,
    });
    if (paidNow) await postTransaction(store, account, 'debit', price.total_amount, `Payment of order ${code}`, code, now);
    scheduleInvoice(store, invoice, order);
    if (keyed !== null) {
      await store.db.idempotency.insertChecked({
        account_id: account.id,
        key: keyed.key,
        fingerprint: keyed.fingerprint,
        invoice_code: code,
        created_at: now,
        expires_at: now + IDEMPOTENCY_TTL_MS,
      });
    }
    return {
      status: 201,
      message: 'Order created.',
      data: creationResult(ctx, invoice, order, method, false),
      notes: { idempotentReplay: false },
    };
  });
  // Durable before it is acknowledged; outside the lock so that concurrent orders share one write.
  if (result.status === 201) await ctx.commit();
  return result;
};

/** The gateway's link, which the sandbox answers with the invoice page (assembly/dispatch.ts). */
function paymentUrl(base: string, method: PaymentMethodRecord, code: string): string {
  return `${base}${SANDBOX_PATHS.paymentPage}${method.code}/${code}`;
}

function creationResult(
  ctx: RouteContext,
  invoice: InvoiceRecord,
  order: OrderRecord,
  method: PaymentMethodRecord | undefined,
  idempotent: boolean,
): CreateOrderResult {
  const gateway =
    method?.type === 'gateway'
      ? { code: method.code, name: method.name, payment_url: invoice.payment_url, expires_at: formatTimestamp(invoice.expires_at) }
      : null;
  return { invoice: createdInvoice(ctx.base, invoice, order), idempotent, gateway, environment: order.environment };
}

function createdInvoice(base: string, invoice: InvoiceRecord, order: OrderRecord): CreateOrderResult['invoice'] {
  return {
    invoice_code: invoice.invoice_code,
    type: 'order',
    payment_status: invoice.payment_status,
    amount: invoice.amount,
    formatted_amount: formatMoney(invoice.amount, invoice.currency),
    currency: invoice.currency,
    payment_method: invoice.payment_method,
    payment_url: invoice.payment_url,
    invoice_url: present.invoiceUrl(base, invoice.invoice_code),
    expires_at: formatTimestamp(invoice.expires_at),
    order: {
      status: order.status,
      order_type: order.order_type,
      platform_username: order.platform_username,
      credit_amount: order.credit_amount,
      price: order.price,
      discount: order.discount,
      total_amount: order.total_amount,
    },
  };
}

export const listOrders: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const { orders, invoices } = ctx.store.db;
  const q = ctx.query as {
    page: number;
    per_page: number;
    status?: string;
    payment_status?: string;
    order_type?: string;
    client_reference?: string;
  };
  const filtered =
    q.status !== undefined || q.payment_status !== undefined || q.order_type !== undefined || q.client_reference !== undefined;
  const keep = (o: OrderRecord) =>
    (q.status === undefined || o.status === q.status) &&
    (q.order_type === undefined || o.order_type === q.order_type) &&
    (q.client_reference === undefined || o.client_reference === q.client_reference) &&
    (q.payment_status === undefined || invoices.get(o.invoice_code)!.payment_status === q.payment_status);
  const { items, pagination } = pageNewestFirst(orders.ownedBy(account.id), q.page, q.per_page, filtered ? keep : undefined);
  return {
    message: 'Orders retrieved.',
    data: { orders: items.map((o) => present.orderSummary(o, invoices.get(o.invoice_code)!)), pagination },
  };
};

export const getOrder: RouteHandler = (ctx) => {
  const { account } = principalOf(ctx);
  const code = ctx.params.invoice!;
  const order = ctx.store.db.orders.get(code);
  if (order === undefined || order.account_id !== account.id) throw new ApiError(404, `Order ${code} was not found.`, 'NOT_FOUND');
  return { message: 'Order retrieved.', data: { order: present.order(order, ctx.store.db.invoices.get(code)!, ctx.base) } };
};
