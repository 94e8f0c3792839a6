import type { OrderType } from '../../src/contract/index.js';

/**
 * Magic test values, like a payment provider's test cards: orders for these passes end a chosen way by themselves,
 * with no control call, for every token mode. The one list: the seed, the platform check, the timed moves, the
 * fixtures, `topup mock fixtures` and the table in docs/sandbox.md are all built from it.
 */
export type MagicOutcome = 'invoice_fails' | 'invoice_expires' | 'order_refunded' | 'delivery_slow' | 'platform_rejects';

/** The platform user and place that own the magic passes: real platform records, so the usual checks apply. */
export const MAGIC_USER = { id: 1900, username: 'TestOutcomes' } as const;
export const MAGIC_PLACE = { id: 5900, owner_id: MAGIC_USER.id, name: 'Outcome Lab' } as const;

/** Every magic pass costs 100 credits (Rp 12.000): within every method's range and the demo balances. */
export const MAGIC_PASS_CREDITS = 100;

/** An unpaid `invoice_fails` invoice fails at once: the first request after its creation sees it failed. */
export const INVOICE_FAILS_AFTER_MS = 0;
/** An unpaid `invoice_expires` invoice expires after 30 s of sandbox time instead of the usual 60 minutes. */
export const INVOICE_EXPIRES_AFTER_MS = 30_000;
/** A paid `delivery_slow` order stays processing for 10 minutes of sandbox time, then completes. */
export const DELIVERY_TAKES_MS = 10 * 60_000;

export interface MagicValue {
  outcome: MagicOutcome;
  pass_id: number;
  pass_name: string;
  /** How the order ends, in one sentence. */
  ends: string;
}

export const magicValues: readonly MagicValue[] = [
  {
    outcome: 'invoice_fails',
    pass_id: 9901,
    pass_name: 'Declined Payment',
    ends: 'the unpaid invoice fails at once (seen by the next request); the order is cancelled',
  },
  {
    outcome: 'invoice_expires',
    pass_id: 9902,
    pass_name: 'Forgotten Invoice',
    ends: 'the unpaid invoice expires after 30 s of sandbox time; the order is cancelled',
  },
  {
    outcome: 'order_refunded',
    pass_id: 9903,
    pass_name: 'Undeliverable Item',
    ends: 'once paid (by balance: at once), the order fails and its total is refunded to the balance',
  },
  {
    outcome: 'delivery_slow',
    pass_id: 9904,
    pass_name: 'Slow Delivery',
    ends: 'once paid, the order stays processing for 10 minutes of sandbox time, then completes',
  },
  {
    outcome: 'platform_rejects',
    pass_id: 9905,
    pass_name: 'Rejected Pass',
    ends: 'the order is refused with 422 PLATFORM_VALIDATION_FAILED; nothing is created',
  },
];

export interface MagicOrderBody {
  order_type: 'gamepass';
  platform_username: string;
  place_id: number;
  platform_pass_id: number;
}

function bodyOf(value: MagicValue): MagicOrderBody {
  return { order_type: 'gamepass', platform_username: MAGIC_USER.username, place_id: MAGIC_PLACE.id, platform_pass_id: value.pass_id };
}

/** The order body for each outcome: `client.orders.create(magicOrders.order_refunded)`. */
export const magicOrders = Object.fromEntries(magicValues.map((value) => [value.outcome, bodyOf(value)])) as Record<
  MagicOutcome,
  MagicOrderBody
>;

/** The magic values as the fixtures list them: outcome, what happens, and the body to send. */
export function magicFixtures(): { outcome: MagicOutcome; ends: string; body: MagicOrderBody }[] {
  return magicValues.map((value) => ({ outcome: value.outcome, ends: value.ends, body: bodyOf(value) }));
}

const outcomeByPass = new Map(magicValues.map((value) => [value.pass_id, value.outcome]));

/** The outcome an order (or an order request) asked for, if it names a magic pass of the magic place. */
export function magicOutcomeOf(order: { order_type: OrderType; place_id: number; platform_pass_id: number }): MagicOutcome | undefined {
  if (order.order_type !== 'gamepass' || order.place_id !== MAGIC_PLACE.id) return undefined;
  return outcomeByPass.get(order.platform_pass_id);
}

/** The platform records behind the magic values, for the seed. */
export const magicPlatformSeed = {
  user: MAGIC_USER,
  place: MAGIC_PLACE,
  passes: magicValues.map((value) => ({
    id: value.pass_id,
    place_id: MAGIC_PLACE.id,
    name: value.pass_name,
    price: MAGIC_PASS_CREDITS,
    for_sale: true,
  })),
} as const;
