import { z } from 'zod';
import {
  component,
  Currency,
  InvoiceCode,
  Money,
  openEnum,
  Pagination,
  PaginationQuery,
  sharedFields,
  Timestamp,
  TokenMode,
  tolerant,
} from './common.js';
import { GUARANTEED } from './guaranteed.js';
import { OrderStatus, PaymentStatus } from './lifecycle.js';
import { ORDER_TYPES } from './values.js';

export const OrderType = component('OrderType', z.enum(ORDER_TYPES));
export type OrderType = z.infer<typeof OrderType>;

export const PlatformUsername = z
  .string()
  .regex(/^[A-Za-z0-9_]{3,20}$/)
  .meta({
    description: '3 to 20 letters, digits or underscores.',
  });
export const PlatformId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** The names a client may send in an order body; everything else is FORBIDDEN_FIELDS. */
export const ORDER_BODY_FIELDS = [
  'order_type',
  'platform_username',
  'place_id',
  'platform_pass_id',
  'gamepass_id',
  'payment_method',
  'client_reference',
] as const;

/** Fields the document names as never client-settable (listed in docs/sandbox.md, Pricing, and error messages). */
export const FORBIDDEN_ORDER_FIELDS = [
  'user_id',
  'email',
  'price',
  'amount',
  'total_amount',
  'status',
  'payment_status',
  'paid_at',
  'role',
  'balance',
  'order_id',
  'invoice_id',
] as const;

/**
 * The pass id's two names: a body carries exactly one of them (the document's "the alias `gamepass_id` is also
 * accepted"). Neither is 422 `platform_pass_id is required`, both is 422 too (mocks/rules/order-request.ts).
 */
export const PASS_ID_FIELDS = ['platform_pass_id', 'gamepass_id'] as const;

export const CreateOrderRequest = component(
  'CreateOrderRequest',
  z
    .object({
      order_type: OrderType.default('gamepass').meta({ description: 'Defaults to `gamepass`; sending it is always valid.' }),
      platform_username: PlatformUsername,
      place_id: PlatformId,
      platform_pass_id: PlatformId.optional().meta({
        description: 'Required (or its alias `gamepass_id`). For `vip_server` orders, the id of the VIP server of the place.',
      }),
      gamepass_id: PlatformId.optional().meta({ description: 'Alias of `platform_pass_id`; send one of the two.' }),
      payment_method: z.string().min(1).max(32).optional().meta({ description: 'Defaults to `invoice`. Sandbox tokens: `invoice` only.' }),
      client_reference: z.string().min(1).max(64).optional().meta({ description: 'Your own reference, echoed back.' }),
    })
    .strict()
    // Zod's object cannot say "exactly one of these two optional keys"; the JSON Schema (openapi.json) says it here.
    .meta({ oneOf: PASS_ID_FIELDS.map((name) => ({ properties: { [name]: {} }, required: [name] })) }),
  'Only user input. The server computes price, discount, total, invoice and status; any other property gets 422 FORBIDDEN_FIELDS.',
);
/** Payment methods the document names. A server may offer others (gateway codes), which stay allowed. */
export type PaymentMethodCode = 'invoice' | 'balance' | (string & {});

/** The pass, by `platform_pass_id` or its alias `gamepass_id`: at least one of the two. */
type PassId =
  { platform_pass_id: number; gamepass_id?: number | undefined } | { platform_pass_id?: number | undefined; gamepass_id: number };

/** An order body as the schema reads it, with what the schema checks at run time made part of the type. */
export type CreateOrderRequest = Omit<z.input<typeof CreateOrderRequest>, 'platform_pass_id' | 'gamepass_id' | 'payment_method'> &
  PassId & { payment_method?: PaymentMethodCode | undefined };

/** What the order-creation answer shows of the order (the document's four fields plus the server's pricing). */
export const CreatedOrder = component(
  'CreatedOrder',
  tolerant(
    () => ({
      status: openEnum(OrderStatus),
      order_type: openEnum(OrderType),
      platform_username: z.string(),
      credit_amount: z.int().min(1),
      price: Money,
      discount: Money,
      total_amount: Money,
    }),
    GUARANTEED.CreatedOrder,
  ),
);

export const Gateway = component(
  'Gateway',
  tolerant(() => ({
    code: z.string(),
    name: z.string(),
    payment_url: z.url(),
    expires_at: Timestamp,
  })),
  'Present when the order is paid through a payment gateway.',
);

export const CreatedInvoice = component(
  'CreatedInvoice',
  tolerant(
    () => ({
      invoice_code: InvoiceCode,
      type: openEnum(z.enum(['order'])).meta({ description: '`order` for invoices of orders.' }),
      payment_status: openEnum(PaymentStatus).meta({ description: '`pending` right after creation.' }),
      amount: Money,
      formatted_amount: z.string(),
      currency: Currency,
      payment_method: z
        .string()
        .meta({ description: 'The chosen method; may be an empty string right after creation with the default method (`invoice`).' }),
      payment_url: z.string().meta({ description: 'Payment link; may be an empty string (for `invoice` and `balance`).' }),
      invoice_url: z
        .string()
        .regex(/^https?:\/\/.+\/user\/invoice\/INV\d+$/)
        .meta({ description: '`{base_url}/user/invoice/<invoice_code>`.' }),
      expires_at: Timestamp,
      order: CreatedOrder,
    }),
    GUARANTEED.CreatedInvoice,
  ),
);

export const CreateOrderResult = component(
  'CreateOrderResult',
  tolerant(
    () => ({
      invoice: CreatedInvoice,
      idempotent: z.boolean().meta({ description: 'True when an earlier order was returned for a repeated Idempotency-Key.' }),
      gateway: Gateway.nullable(),
      environment: openEnum(TokenMode),
    }),
    GUARANTEED.CreateOrderResult,
  ),
);
export type CreateOrderResult = z.infer<typeof CreateOrderResult>;

const orderSummaryFields = sharedFields(() => ({
  invoice_code: InvoiceCode,
  status: openEnum(OrderStatus),
  payment_status: openEnum(PaymentStatus),
  order_type: openEnum(OrderType),
  platform_username: z.string(),
  credit_amount: z.int().min(1),
  total_amount: Money,
  formatted_total_amount: z.string(),
  currency: Currency,
  created_at: Timestamp,
}));

export const OrderSummary = component('OrderSummary', tolerant(orderSummaryFields));
export type OrderSummary = z.infer<typeof OrderSummary>;

export const Order = component(
  'Order',
  tolerant(() => ({
    ...orderSummaryFields(),
    place_id: PlatformId,
    platform_pass_id: PlatformId,
    price: Money,
    formatted_price: z.string(),
    discount: Money,
    formatted_discount: z.string(),
    payment_method: z.string(),
    client_reference: z.string().nullable(),
    environment: openEnum(TokenMode),
    invoice_url: z.url(),
    updated_at: Timestamp,
    paid_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
  })),
);
export type Order = z.infer<typeof Order>;

export const OrderListQuery = PaginationQuery.extend({
  status: OrderStatus.optional(),
  payment_status: PaymentStatus.optional(),
  order_type: OrderType.optional(),
  client_reference: z.string().min(1).max(64).optional(),
});
export type OrderListQuery = z.input<typeof OrderListQuery>;

export const OrderList = component(
  'OrderList',
  tolerant(() => ({ orders: z.array(OrderSummary), pagination: Pagination })),
  'Newest first.',
);
export type OrderList = z.infer<typeof OrderList>;

export const OrderData = component(
  'OrderData',
  tolerant(() => ({ order: Order })),
);
export type OrderData = z.infer<typeof OrderData>;
