import type { CreateOrderRequest } from '../contract/orders.js';
import { errorKind, UsageError, type ErrorKind } from '../errors.js';
import { BatchKeys } from './batch-key.js';
import type { Clock } from './clock.js';
import type { CreateOrderResponse } from './orders.js';
import type { Pacer } from './pacing.js';

/** One order of a batch. Without `key`, createMany derives one from `batch` and the row (see batch-key.ts). */
export interface BatchRow {
  body: CreateOrderRequest;
  key?: string | undefined;
  /** Anything that names the row for the caller (a line number); passed back in its outcome. */
  line?: number | undefined;
}

/**
 * What became of one row. `existed`: the server returned an earlier order for the key (`idempotent: true`) to the
 * row's first sending. When an attempt's answer was lost and the row was sent again, such an answer returns the order
 * that attempt made: `created`.
 */
export type BatchOutcome =
  | {
      status: 'created' | 'existed';
      line: number | undefined;
      key: string;
      /** Epoch milliseconds when the row was sent. */
      sentAt: number;
      invoiceCode: string;
      amount: number | undefined;
      currency: string | undefined;
      paymentStatus: string | undefined;
    }
  | {
      status: 'rejected';
      line: number | undefined;
      key: string;
      sentAt: number;
      error: { kind: ErrorKind | undefined; code: string | undefined; status: number | undefined; message: string };
    };

export interface CreateManyOptions {
  /** Names the batch: part of every derived key, so the same rows under another name are other orders. */
  batch?: string | undefined;
  /** Sent as X-Chat-User-ID with every row (needed by rows that pay by balance). */
  chatUserId?: string | undefined;
  /** Ends the batch after the row in flight (that row is finished and reported, never cut off); waits stop at once. */
  signal?: AbortSignal | undefined;
  /** Epoch milliseconds of this batch's earlier sends (from its ledger): pacing continues from them, not from zero. */
  sentBefore?: Iterable<number> | undefined;
  /** Awaited just before a row is sent, with the time it goes: record it, so a crash leaves the row known as in flight. */
  onSending?: ((row: { key: string; line: number | undefined }, sentAt: number) => void | Promise<void>) | undefined;
  /** Awaited with each outcome before the next row is sent: record it durably here. */
  onOutcome?: ((outcome: BatchOutcome) => void | Promise<void>) | undefined;
  /** Told of each pause before a row to keep under the limit (ms); default: the client's onWait (or its long-wait warning). */
  onWait?: ((ms: number) => void) | undefined;
  /**
   * Stop sending once the created orders (with `totalBefore`) add up to this amount. A cap is kept or the batch stops:
   * an order whose answer has no amount it can count (not a whole number of at least 0), or another currency than the
   * orders before it, stops the batch after that row (`uncounted`).
   */
  maxTotal?: number | undefined;
  /** The amount of orders this batch created before (in earlier runs). Default 0. */
  totalBefore?: number | undefined;
  /** The currency of `totalBefore`, when there was one: a later order in another currency stops a capped batch. */
  currencyBefore?: string | undefined;
}

/** Why a batch ended before its last row. */
export type BatchStop =
  | { reason: 'interrupted' }
  | { reason: 'max-total'; total: number }
  /**
   * `maxTotal` could not be kept: the order of `line` was made (and reported), but `cause` says why it cannot be added
   * up: its answer's amount (`amount`, as it came), or its currency (`currency`: none, or another than `counted`, the
   * currency of the orders before it).
   */
  | {
      reason: 'uncounted';
      cause: 'amount' | 'currency';
      key: string;
      line: number | undefined;
      amount: unknown;
      currency: string | undefined;
      counted: string | undefined;
    }
  /** Nothing more could succeed (a 401, a server that stopped answering, 429s past every retry); `key` is in doubt. */
  | { reason: 'error'; error: unknown; key: string; line: number | undefined }
  /**
   * A row that streamed in without a key, and no `batch` option to derive one: it and the rows after it were not sent.
   * (Rows given as an array are checked before any is sent, and throw the UsageError instead.)
   */
  | { reason: 'unkeyed'; error: UsageError; line: number | undefined };

export interface BatchResult {
  outcomes: { created: number; existed: number; rejected: number };
  /** Amount of the orders created or returned in this run (all currencies added; the shop has one). */
  total: number;
  stopped: BatchStop | undefined;
}

/** Refusals of one row: the row is recorded as rejected and the batch goes on. Anything else may hit every row. */
const ROW_REFUSALS: ReadonlySet<ErrorKind> = new Set(['validation', 'conflict', 'permission', 'rejected', 'bad_request', 'not_found']);

export function isRowRefusal(error: unknown): boolean {
  const kind = errorKind(error);
  return kind !== undefined && ROW_REFUSALS.has(kind);
}

interface BatchDeps {
  create: (body: CreateOrderRequest, options: { idempotencyKey: string; chatUserId?: string | undefined }) => Promise<CreateOrderResponse>;
  pacer: Pacer | undefined;
  clock: Clock;
  /** Told of each pause for the limit, as every other pause of the client is (its onWait, or the long-wait warning). */
  onWait?: ((ms: number) => void) | undefined;
}

/**
 * Sends rows one at a time, in order: one in flight keeps the ledger's order exact and leaves at most one row in
 * doubt after a crash, and the published 10 order creations a minute, not the in-flight cap, bounds the speed.
 * The client's own pacer (seeded with `sentBefore`) spaces them; its retries honour Retry-After.
 */
export async function createMany(
  rows: Iterable<BatchRow> | AsyncIterable<BatchRow>,
  options: CreateManyOptions = {},
  deps: BatchDeps,
): Promise<BatchResult> {
  const { pacer, clock } = deps;
  const { signal } = options;
  // Rows given whole are checked before any is sent: a UsageError means nothing was. Rows that stream in are checked
  // as they come, and one without a key stops the batch (the rows before it may have been sent).
  if (options.batch === undefined && Array.isArray(rows) && (rows as BatchRow[]).some((row) => row.key === undefined)) throw unkeyed();
  if (options.sentBefore !== undefined) pacer?.recordSent('create-order', options.sentBefore);
  const keys = options.batch === undefined ? undefined : new BatchKeys(options.batch);
  const result: BatchResult = { outcomes: { created: 0, existed: 0, rejected: 0 }, total: 0, stopped: undefined };
  const totalBefore = options.totalBefore ?? 0;
  let countedCurrency = options.currencyBefore;

  for await (const row of rows) {
    if (options.maxTotal !== undefined && totalBefore + result.total >= options.maxTotal) {
      result.stopped = { reason: 'max-total', total: totalBefore + result.total };
      break;
    }
    if (signal?.aborted) {
      result.stopped = { reason: 'interrupted' };
      break;
    }
    if (row.key === undefined && keys === undefined) {
      result.stopped = { reason: 'unkeyed', error: unkeyed(), line: row.line };
      break;
    }
    const key = row.key ?? (await keys!.next(row.body)).key;
    try {
      await pacer?.whenAllowed('create-order', signal, options.onWait ?? deps.onWait);
    } catch (error) {
      if (signal?.aborted) {
        result.stopped = { reason: 'interrupted' };
        break;
      }
      throw error;
    }
    const sentAt = clock.now();
    await options.onSending?.({ key, line: row.line }, sentAt);
    let outcome: BatchOutcome;
    let uncounted: Extract<BatchStop, { reason: 'uncounted' }> | undefined;
    try {
      // No signal: Ctrl-C lets the row in flight finish, so that its answer reaches the ledger.
      const created = await deps.create(row.body, { idempotencyKey: key, chatUserId: options.chatUserId });
      const { invoice } = created;
      outcome = {
        status: created.idempotent === true && !created.resent ? 'existed' : 'created',
        line: row.line,
        key,
        sentAt,
        invoiceCode: invoice.invoice_code,
        amount: typeof invoice.amount === 'number' ? invoice.amount : undefined,
        currency: typeof invoice.currency === 'string' ? invoice.currency : undefined,
        paymentStatus: typeof invoice.payment_status === 'string' ? invoice.payment_status : undefined,
      };
      if (options.maxTotal === undefined) result.total += outcome.amount ?? 0;
      else {
        const { amount } = invoice as { amount: unknown };
        // An order that names no currency cannot be added to others either: the cap's currency would be a guess.
        const otherCurrency = outcome.currency === undefined || (countedCurrency !== undefined && outcome.currency !== countedCurrency);
        if (!isCountable(amount) || otherCurrency)
          uncounted = {
            reason: 'uncounted',
            cause: otherCurrency ? 'currency' : 'amount',
            key,
            line: row.line,
            amount,
            currency: outcome.currency,
            counted: countedCurrency,
          };
        else {
          result.total += amount;
          countedCurrency ??= outcome.currency;
        }
      }
    } catch (error) {
      if (!isRowRefusal(error)) {
        result.stopped = { reason: 'error', error, key, line: row.line };
        break;
      }
      const details = error as { code?: unknown; status?: unknown; message?: unknown };
      outcome = {
        status: 'rejected',
        line: row.line,
        key,
        sentAt,
        error: {
          kind: errorKind(error),
          code: typeof details.code === 'string' ? details.code : undefined,
          status: typeof details.status === 'number' ? details.status : undefined,
          message: typeof details.message === 'string' ? details.message : String(error),
        },
      };
    }
    result.outcomes[outcome.status] += 1;
    await options.onOutcome?.(outcome);
    if (uncounted !== undefined) {
      result.stopped = uncounted;
      break;
    }
  }
  return result;
}

/** An amount a cap can add up: a whole number, at least 0, that adds without rounding. */
export function isCountable(amount: unknown): amount is number {
  return typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0;
}

const unkeyed = () => new UsageError('createMany needs either a key on every row or the batch option.');
