import { errorForStatus } from '../../src/errors.js';
import { RESET_PARTS, unknownResetPart, type ResetPart } from '../../src/contract/sandbox-control.js';
import { ApiError } from '../core/exchange.js';
import type { AccountRecord } from '../store/records.js';
import { authenticate } from '../rules/auth.js';
import { accountsNamed, worldMode } from '../rules/worlds.js';
import { closeUnpaidInvoice, completeOrder, failOrder, payInvoice } from '../rules/lifecycle.js';
import { invoiceView, type InvoiceView } from '../inspect/state-views.js';
import { CURRENCY } from '../rules/pricing.js';
import { expiryOf, scheduleInvoice, settleDue } from '../rules/timed-moves.js';
import { assertRoomForInvoice } from '../rules/capacity.js';
import type { Store } from '../store/store.js';
import { CLOCK_MAX } from '../store/time-range.js';
import type { WriteLock } from '../core/write-lock.js';

export interface DepositRequest {
  amount: number;
  /** The account by fixture name (`demo`, `rich`, …) … */
  account?: string;
  /** … or by one of its tokens. Defaults to the demo account. */
  token?: string;
  /** Which world of an account with both keys gets it: its live data (the default) or its test data. */
  mode?: 'sandbox' | 'production';
  payment_method?: string;
  /** Pay it at once, crediting the balance. */
  paid?: boolean;
}

export const MIN_DEPOSIT = 10_000;
export const MAX_DEPOSIT = 50_000_000;

/**
 * The sandbox's control operations: move invoices, orders and deposits through their lifecycle on demand.
 * A deposit resolves to the new invoice as `GET /__sandbox/invoices/{code}` shows it. A move that does not apply
 * rejects with the error class of its HTTP status, as `topup`'s client would (`NotFoundError` for an unknown invoice,
 * `ConflictError` for a move its state forbids, `ValidationError`), in one sentence saying what already happened
 * (`Invoice INV… is already paid.`).
 */
export interface SandboxControl {
  pay(this: void, invoiceCode: string): Promise<void>;
  expire(this: void, invoiceCode: string): Promise<void>;
  fail(this: void, invoiceCode: string): Promise<void>;
  complete(this: void, invoiceCode: string): Promise<void>;
  failOrder(this: void, invoiceCode: string): Promise<void>;
  deposit(this: void, request: DepositRequest): Promise<InvoiceView>;
  /** Moves the sandbox clock forward, e.g. past an invoice's expiry. */
  advanceClock(this: void, seconds: number): Promise<void>;
  /**
   * Back to how the sandbox started: its seed (or seed state) and clock, its starting faults, an empty request
   * journal; `keep` names what stays as it is (`sandbox.reset()` is the same call).
   */
  reset(this: void, options?: ResetOptions): Promise<void>;
  /**
   * Replaces the whole state with a snapshot (`sandbox.snapshot()`, `GET /__sandbox/state`): a named starting state.
   * The snapshot is checked whole before anything changes; a bad one rejects with `ValidationError` and leaves the
   * state as it was.
   */
  loadState(this: void, snapshot: unknown): Promise<void>;
}

export interface ResetOptions {
  /** What stays as it is: `state` (records and clock), `faults`, `requests` (the journal). */
  keep?: readonly ResetPart[];
}

export interface ControlEnv {
  store: Store;
  writeLock: WriteLock;
  now(): number;
  advance(ms: number): void;
  commit(): Promise<void>;
  reset(keep: readonly ResetPart[]): Promise<void>;
  load(snapshot: unknown): Promise<void>;
}

export type ControlMove = 'pay' | 'expire' | 'fail' | 'complete' | 'failOrder';

/**
 * The moves as the HTTP control API makes them: each resolves to the invoice as the move left it, read under the
 * same lock. `SandboxControl`'s moves stay `Promise<void>`, so callers typed for that keep compiling.
 */
export type ControlMoves = Record<ControlMove, (this: void, invoiceCode: string) => Promise<InvoiceView>>;

export function createControl(env: ControlEnv): { control: SandboxControl; moves: ControlMoves } {
  const change = async <T>(fn: (now: number) => Promise<T> | T): Promise<T> => {
    let result: T;
    try {
      result = await env.writeLock.run(async () => {
        const now = env.now();
        // What was due before this call happens first: an auto-payment due earlier wins against a later expire.
        await settleDue(env.store, now);
        return fn(now);
      });
    } catch (error) {
      // Callers get the client's error classes (NotFoundError, ValidationError, …), the ones the HTTP control API's answers give them.
      throw error instanceof ApiError ? errorForStatus(error.status, error.message, { code: error.code, fields: error.fields }) : error;
    }
    await env.commit();
    return result;
  };
  // The record a move changed, as it now is.
  const move = (code: string, fn: (now: number) => Promise<void> | void) =>
    change(async (now) => {
      await fn(now);
      return invoiceView(env.store, code)!;
    });
  const moves: ControlMoves = {
    pay: (code) => move(code, (now) => payInvoice(env.store, code, now)),
    expire: (code) => move(code, (now) => closeUnpaidInvoice(env.store, code, 'expired', now)),
    fail: (code) => move(code, (now) => closeUnpaidInvoice(env.store, code, 'failed', now)),
    complete: (code) => move(code, (now) => completeOrder(env.store, code, now)),
    failOrder: (code) => move(code, (now) => failOrder(env.store, code, now)),
  };
  const settled = (verb: ControlMove) => async (code: string) => {
    await moves[verb](code);
  };
  const control: SandboxControl = {
    pay: settled('pay'),
    expire: settled('expire'),
    fail: settled('fail'),
    complete: settled('complete'),
    failOrder: settled('failOrder'),
    deposit: (request) =>
      change(async (now) => {
        const code = await createDeposit(env.store, request, now);
        return invoiceView(env.store, code)!;
      }),
    advanceClock: (seconds) =>
      change(async (now) => {
        checkClockAdvance(seconds, 'seconds', now);
        // Whole milliseconds: every time a record holds is one, and is dated from this clock.
        env.advance(Math.round(seconds * 1000));
        // What the move made due happens now, as the next request would make it: the answer (and a snapshot, a
        // listing read straight after) shows the sandbox as it is at the new time, not a move due "now" left unmade.
        await settleDue(env.store, env.now());
      }),
    reset: (options = {}) => {
      const keep = options.keep ?? [];
      const unknown = keep.find((part) => !(RESET_PARTS as readonly string[]).includes(part));
      if (unknown !== undefined)
        return Promise.reject(errorForStatus(422, unknownResetPart(String(unknown)), { code: 'VALIDATION_FAILED', fields: ['keep'] }));
      return change(() => env.reset(keep));
    },
    loadState: (snapshot) => change(() => env.load(snapshot)),
  };
  return { control, moves };
}

/**
 * How far the clock may move from `now`: seconds, 0 or more (it never moves back), and no further than CLOCK_MAX
 * (year 9999), past which no time can be stored or shown. `field` names it as the caller gave it.
 */
export function checkClockAdvance(seconds: unknown, field: string, now: number): asserts seconds is number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
    throw new ApiError(
      422,
      `${field} is how far to move the clock: a number of seconds, 0 or more (it never moves back).`,
      'VALIDATION_FAILED',
      [field],
    );
  const room = Math.max(0, Math.floor((CLOCK_MAX - now) / 1000));
  if (now + Math.round(seconds * 1000) > CLOCK_MAX)
    throw new ApiError(
      422,
      `${field} would move the clock past the start of year 9999; it may move at most ${room} seconds from now.`,
      'VALIDATION_FAILED',
      [field],
    );
}

function depositAccount(store: Store, request: DepositRequest): AccountRecord {
  if (request.token !== undefined) {
    const principal = authenticate(store.db, request.token);
    if (principal === null) throw new ApiError(401, 'Unauthorized: the API token is missing or invalid.');
    return principal.account;
  }
  const name = request.account ?? 'demo';
  const named = accountsNamed(store, name);
  if (named.length === 0) {
    const names = [...new Set(store.db.accounts.all().map((a) => a.name))].join(', ');
    throw new ApiError(404, `No sandbox account is named '${name}'; the accounts are ${names}.`, 'NOT_FOUND', ['account']);
  }
  // An account with both keys has two worlds: its live one, unless the test one is asked for.
  const mode = request.mode ?? (named.length > 1 ? 'production' : undefined);
  const account = mode === undefined ? named[0] : named.find((a) => worldMode(store, a) === mode);
  if (account === undefined)
    throw new ApiError(422, `The account '${name}' has no ${mode} key, so no ${mode} data.`, 'VALIDATION_FAILED', ['mode']);
  return account;
}

async function createDeposit(store: Store, request: DepositRequest, now: number): Promise<string> {
  const { amount } = request;
  if (!Number.isSafeInteger(amount) || amount < MIN_DEPOSIT || amount > MAX_DEPOSIT) {
    throw new ApiError(422, `A deposit is a whole amount from ${MIN_DEPOSIT} to ${MAX_DEPOSIT}.`, 'VALIDATION_FAILED', ['amount']);
  }
  const account = depositAccount(store, request);
  const methodCode = request.payment_method ?? 'bank_transfer';
  const method = store.db.paymentMethods.get(methodCode);
  if (method === undefined || method.type !== 'gateway' || !method.active) {
    throw new ApiError(422, `Deposits are paid through an active gateway method, not '${methodCode}'.`, 'PAYMENT_METHOD_UNAVAILABLE', [
      'payment_method',
    ]);
  }
  assertRoomForInvoice(store);
  const code = store.nextInvoiceCode(now);
  const invoice = await store.db.invoices.insert({
    invoice_code: code,
    account_id: account.id,
    type: 'deposit',
    amount,
    currency: CURRENCY,
    payment_method: method.code,
    payment_url: '',
    payment_status: 'pending',
    environment: worldMode(store, account),
    created_at: now,
    expires_at: expiryOf(store, now),
    paid_at: null,
    updated_at: now,
  });
  await store.db.deposits.insert({ invoice_code: code, account_id: account.id, created_at: now });
  if (request.paid === true) await payInvoice(store, code, now);
  else scheduleInvoice(store, invoice);
  return code;
}
