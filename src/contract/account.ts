import { z } from 'zod';
import { component, Currency, Money, openEnum, Timestamp, TokenMode, tolerant } from './common.js';
import { OrderSummary } from './orders.js';

export const Health = component(
  'Health',
  tolerant(() => ({
    status: openEnum(z.enum(['ok', 'degraded'])),
    version: z.string().meta({ description: 'Version of the interface description.' }),
    api: z.literal('v1'),
    time: Timestamp,
  })),
);
export type Health = z.infer<typeof Health>;

export const TokenValidation = component(
  'TokenValidation',
  tolerant(() => ({
    valid: z.literal(true),
    mode: openEnum(TokenMode),
    user: tolerant(() => ({ id: z.int(), username: z.string() })),
    token_name: z.string(),
    last_used_at: Timestamp.nullable(),
  })),
  'Answer of a valid token check. An invalid token gets 401 instead.',
);
export type TokenValidation = z.infer<typeof TokenValidation>;

export const Profile = component(
  'Profile',
  tolerant(() => ({
    id: z.int(),
    username: z.string(),
    name: z.string(),
    email: z.email(),
    chat_linked: z.boolean(),
    chat_user_id: z.string().nullable(),
    token_mode: openEnum(TokenMode),
    created_at: Timestamp,
  })),
);
export type Profile = z.infer<typeof Profile>;

export const ProfileData = component(
  'ProfileData',
  tolerant(() => ({ user: Profile })),
);
export type ProfileData = z.infer<typeof ProfileData>;

export const OrderCounts = tolerant(() => ({
  total: z.int().min(0),
  pending: z.int().min(0),
  processing: z.int().min(0),
  completed: z.int().min(0),
  failed: z.int().min(0),
  cancelled: z.int().min(0),
}));

export const DashboardSummary = component(
  'DashboardSummary',
  tolerant(() => ({
    balance: Money,
    formatted_balance: z.string(),
    currency: Currency,
    orders: OrderCounts,
    pending_invoices: z.int().min(0),
    total_spent: Money.meta({ description: 'Sum of the totals of paid orders.' }),
    formatted_total_spent: z.string(),
    recent_orders: z.array(OrderSummary).meta({ description: 'The five newest orders.' }),
    refresh_after_seconds: z.int().min(15).meta({ description: 'Refresh no sooner than this.' }),
  })),
);
export type DashboardSummary = z.infer<typeof DashboardSummary>;
