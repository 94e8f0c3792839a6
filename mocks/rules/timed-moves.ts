import { INVOICE_TTL_SECONDS } from '../../src/contract/timing.js';
import type { InvoiceRecord, OrderRecord } from '../store/records.js';
import type { InvoiceDelays, Store } from '../store/store.js';
import { closeUnpaidInvoice, completeOrder, failOrder, payInvoice } from './lifecycle.js';
import {
  DELIVERY_TAKES_MS,
  INVOICE_EXPIRES_AFTER_MS,
  INVOICE_FAILS_AFTER_MS,
  magicOutcomeOf,
  type MagicOutcome,
} from '../store/magic-values.js';
import { TIME_MAX } from '../store/time-range.js';

/*
 * Moves the sandbox makes by itself when the clock reaches them: expiry, auto-pay, and the magic values' endings.
 * Nothing runs on a timer. Each request first settles what is due by its time (settleDue), each move stamped with
 * the moment it was due, so the injected clock, fake timers and the clock advance all work, and no observer can
 * tell the difference: every observation is a request.
 */

/** createSandbox's autoPay and autoExpire options as the store keeps them; a bad delay is a programming error. */
export function invoiceDelays(options: { autoPay?: { after: number }; autoExpire?: { after: number } }): InvoiceDelays {
  const delay = (name: string, option: { after: number } | undefined): number | null => {
    if (option === undefined) return null;
    if (!Number.isSafeInteger(option.after) || option.after < 0)
      throw new RangeError(`createSandbox: ${name}.after is a whole number of milliseconds, 0 or more.`);
    return option.after;
  };
  return { autoPayMs: delay('autoPay', options.autoPay), autoExpireMs: delay('autoExpire', options.autoExpire) };
}

/** When a new invoice expires: a magic `invoice_expires` one soon, else after auto-expire's delay, else the TTL. */
export function expiryOf(store: Store, createdAt: number, outcome?: MagicOutcome): number {
  // Never past the last time a record may hold: a long --auto-expire near year 9999 must not make an order a 500.
  if (outcome === 'invoice_expires') return Math.min(TIME_MAX, createdAt + INVOICE_EXPIRES_AFTER_MS);
  return Math.min(TIME_MAX, createdAt + (store.delays.autoExpireMs ?? INVOICE_TTL_SECONDS * 1000));
}

/** Magic invoices that end unpaid by themselves are left to their ending: auto-pay would take it from them. */
function autoPays(store: Store, invoice: InvoiceRecord, outcome: MagicOutcome | undefined): boolean {
  return (
    store.delays.autoPayMs !== null && invoice.payment_status === 'pending' && outcome !== 'invoice_fails' && outcome !== 'invoice_expires'
  );
}

/** Puts a new invoice (and its order, for an order) on the queues of what waits for the clock. */
export function scheduleInvoice(store: Store, invoice: InvoiceRecord, order?: OrderRecord): void {
  const outcome = order === undefined ? undefined : magicOutcomeOf(order);
  if (invoice.payment_status === 'pending') store.expiryQueue.add(invoice);
  if (autoPays(store, invoice, outcome)) store.autoPayQueue.add(invoice);
  if (outcome !== undefined && outcome !== 'invoice_expires' && outcome !== 'platform_rejects')
    store.watchedOutcomes.add(invoice.invoice_code);
}

/** The queues again from the records, after a restore: they are derived state, never written to a state file. */
export function rebuildSchedule(store: Store): void {
  const pending = store.db.invoices.all().filter((invoice) => invoice.payment_status === 'pending');
  store.expiryQueue.reset(pending);
  const outcomeOf = (code: string) => {
    const order = store.db.orders.get(code);
    return order === undefined ? undefined : magicOutcomeOf(order);
  };
  store.autoPayQueue.reset(pending.filter((invoice) => autoPays(store, invoice, outcomeOf(invoice.invoice_code))));
  store.watchedOutcomes.clear();
  for (const order of store.db.orders.all()) {
    const outcome = magicOutcomeOf(order);
    if (outcome !== undefined && (order.status === 'pending' || order.status === 'processing'))
      store.watchedOutcomes.add(order.invoice_code);
  }
}

interface DueMove {
  at: number;
  apply(): Promise<void> | void;
}

/** The earliest move due by `now`, if any. Cheap when nothing is due: two queue heads and the few watched magic orders. */
export function nextDueMove(store: Store, now: number): DueMove | undefined {
  let next: DueMove | undefined;
  const consider = (at: number, apply: (at: number) => Promise<void> | void) => {
    if (at <= now && (next === undefined || at < next.at)) next = { at, apply: () => apply(at) };
  };
  const expiring = store.expiryQueue.peek();
  if (expiring !== undefined) {
    consider(expiring.expires_at, (at) => {
      store.expiryQueue.take();
      if (expiring.payment_status === 'pending') closeUnpaidInvoice(store, expiring.invoice_code, 'expired', at);
    });
  }
  const { autoPayMs } = store.delays;
  const paying = store.autoPayQueue.peek();
  if (paying !== undefined && autoPayMs !== null) {
    consider(paying.created_at + autoPayMs, async (at) => {
      store.autoPayQueue.take();
      // A control call, the bot's own payment or expiry may have decided first.
      if (paying.payment_status === 'pending') await payInvoice(store, paying.invoice_code, at);
    });
  }
  for (const code of store.watchedOutcomes) {
    const move = outcomeMove(store, code);
    if (move === 'done') store.watchedOutcomes.delete(code);
    else if (move !== 'waiting') consider(move.at, move.apply);
  }
  return next;
}

/** A watched magic order's next move: due at a time, still waiting for its payment, or done (ended, or decided otherwise). */
function outcomeMove(store: Store, code: string): { at: number; apply: (at: number) => Promise<void> | void } | 'waiting' | 'done' {
  const order = store.db.orders.get(code);
  const invoice = store.db.invoices.get(code);
  if (order === undefined || invoice === undefined) return 'done';
  switch (magicOutcomeOf(order)) {
    case 'invoice_fails':
      if (invoice.payment_status !== 'pending') return 'done';
      return { at: invoice.created_at + INVOICE_FAILS_AFTER_MS, apply: (at) => closeUnpaidInvoice(store, code, 'failed', at) };
    case 'order_refunded':
      if (order.status === 'pending') return 'waiting';
      if (order.status !== 'processing') return 'done';
      return { at: order.paid_at ?? invoice.updated_at, apply: (at) => failOrder(store, code, at) };
    case 'delivery_slow':
      if (order.status === 'pending') return 'waiting';
      if (order.status !== 'processing') return 'done';
      return { at: (order.paid_at ?? invoice.updated_at) + DELIVERY_TAKES_MS, apply: (at) => completeOrder(store, code, at) };
    default:
      return 'done';
  }
}

/**
 * When the sandbox next moves this invoice or its order by itself, if it will: what a page showing it must look
 * again at, since a move made at a request nobody streams (a bot's GET) reaches an open page only so.
 */
export function nextMoveAt(store: Store, code: string): number | undefined {
  const invoice = store.db.invoices.get(code);
  if (invoice === undefined) return undefined;
  const order = store.db.orders.get(code);
  const outcome = order === undefined ? undefined : magicOutcomeOf(order);
  const times: number[] = [];
  if (invoice.payment_status === 'pending') {
    times.push(invoice.expires_at);
    if (autoPays(store, invoice, outcome)) times.push(invoice.created_at + store.delays.autoPayMs!);
  }
  if (store.watchedOutcomes.has(code)) {
    const move = outcomeMove(store, code);
    if (typeof move === 'object') times.push(move.at);
  }
  return times.length === 0 ? undefined : Math.min(...times);
}

/**
 * When the sandbox next moves anything by itself, if it will (an expiry, an auto-payment, a magic order's ending): what
 * the dashboard looks again at, as the invoice page does for its invoice (`nextMoveAt`). Only moves still to be made:
 * queue entries whose invoice was decided otherwise (paid, expired, failed) since are dropped here, as `nextDueMove`
 * would drop them, and ended magic orders stop being watched. Given `now`, a move already due but not yet made (the
 * clock moved on with no request since) is due now: the next request makes it, so never a time before `now`.
 */
export function nextMoveAtAll(store: Store, now?: number): number | undefined {
  let next: number | undefined;
  const consider = (at: number) => {
    if (next === undefined || at < next) next = at;
  };
  // Only a pending invoice expires or is auto-paid; none becomes pending again, so a dropped entry was a no-op.
  const decided = (invoice: InvoiceRecord) => invoice.payment_status !== 'pending';
  const expiring = store.expiryQueue.peekLive(decided);
  if (expiring !== undefined) consider(expiring.expires_at);
  const { autoPayMs } = store.delays;
  if (autoPayMs !== null) {
    const paying = store.autoPayQueue.peekLive(decided);
    if (paying !== undefined) consider(paying.created_at + autoPayMs);
  }
  for (const code of store.watchedOutcomes) {
    const move = outcomeMove(store, code);
    if (move === 'done') store.watchedOutcomes.delete(code);
    else if (move !== 'waiting') consider(move.at);
  }
  return next === undefined || now === undefined ? next : Math.max(next, now);
}

/**
 * Makes every move due by `now`, earliest first (a payment due before an expiry wins it), and says how many it made
 * (queue entries already decided otherwise count too: dropping them changes nothing). Call under the write lock.
 */
export async function settleDue(store: Store, now: number): Promise<number> {
  let moves = 0;
  for (let move = nextDueMove(store, now); move !== undefined; move = nextDueMove(store, now)) {
    await move.apply();
    moves += 1;
  }
  return moves;
}

/** Whether anything may be due by `now`, without allocating: the check every request makes. */
export function mayBeDue(store: Store, now: number): boolean {
  const expiring = store.expiryQueue.peek();
  if (expiring !== undefined && expiring.expires_at <= now) return true;
  const paying = store.autoPayQueue.peek();
  if (paying !== undefined && store.delays.autoPayMs !== null && paying.created_at + store.delays.autoPayMs <= now) return true;
  return store.watchedOutcomes.size > 0;
}
