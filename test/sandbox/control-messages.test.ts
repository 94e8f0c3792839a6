import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../mocks/index.js';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import {
  accounts,
  CLOCK_START,
  dataOf,
  expectError,
  SIMPLE_ORDER,
  transports,
  useSandboxes,
  type TestSandbox,
} from '../support/sandbox-harness.js';

const { rich } = await accounts();
type Move = 'pay' | 'expire' | 'fail' | 'complete' | 'failOrder';
type Step = Move | 'time runs out';

const paths: Record<Move, string> = {
  pay: 'invoices/{code}/pay',
  expire: 'invoices/{code}/expire',
  fail: 'invoices/{code}/fail',
  complete: 'orders/{code}/complete',
  failOrder: 'orders/{code}/fail',
};

/** When the setup ran: every refusal below says when the state it names was reached, not when it was asked. */
const T = new Date(CLOCK_START).toISOString();
const EXPIRY = new Date(CLOCK_START + INVOICE_TTL_SECONDS * 1000).toISOString();

/**
 * Every move on an order's invoice in every state it can reach: the refusal (409 INVALID_STATE), word for word, or
 * 'moves' where the move applies. C is the invoice code.
 */
const orderStates: { state: string; setup: Step[]; expect: Record<Move, string> }[] = [
  {
    state: 'pending',
    setup: [],
    expect: {
      pay: 'moves',
      expire: 'moves',
      fail: 'moves',
      complete: 'Order C is not paid yet, so it cannot be completed (pay its invoice first).',
      failOrder: 'Order C is not paid yet, so it cannot fail (fail its invoice instead).',
    },
  },
  {
    state: 'paid, processing',
    setup: ['pay'],
    expect: {
      pay: 'Invoice C is already paid.',
      expire: 'Invoice C is already paid, so it can no longer expire.',
      fail: 'Invoice C is already paid, so its payment can no longer fail.',
      complete: 'moves',
      failOrder: 'moves',
    },
  },
  {
    state: 'paid, completed',
    setup: ['pay', 'complete'],
    expect: {
      pay: 'Invoice C is already paid.',
      expire: 'Invoice C is already paid, so it can no longer expire.',
      fail: 'Invoice C is already paid, so its payment can no longer fail.',
      complete: 'Order C is already completed.',
      failOrder: 'Order C is already completed, so it can no longer fail.',
    },
  },
  {
    state: 'refunded, failed',
    setup: ['pay', 'failOrder'],
    expect: {
      pay: `Invoice C was refunded at ${T} when its order failed, and cannot be paid again.`,
      expire: `Invoice C was paid and then refunded at ${T}, so it can no longer expire.`,
      fail: `Invoice C was paid and then refunded at ${T}, so its payment can no longer fail.`,
      complete: `Order C failed at ${T} and was refunded, so it can no longer be completed.`,
      failOrder: `Order C already failed at ${T} and was refunded.`,
    },
  },
  {
    state: 'expired, cancelled',
    setup: ['expire'],
    expect: {
      pay: `Invoice C expired at ${T} and can no longer be paid.`,
      expire: `Invoice C already expired at ${T}.`,
      fail: `Invoice C expired at ${T}, so its payment can no longer fail.`,
      complete: `Order C was cancelled at ${T} when its invoice expired, so it can no longer be completed.`,
      failOrder: `Order C was cancelled at ${T} when its invoice expired, so it can no longer fail.`,
    },
  },
  {
    state: 'expired by itself',
    setup: ['time runs out'],
    expect: {
      pay: `Invoice C expired at ${EXPIRY} and can no longer be paid.`,
      expire: `Invoice C already expired at ${EXPIRY}.`,
      fail: `Invoice C expired at ${EXPIRY}, so its payment can no longer fail.`,
      complete: `Order C was cancelled at ${EXPIRY} when its invoice expired, so it can no longer be completed.`,
      failOrder: `Order C was cancelled at ${EXPIRY} when its invoice expired, so it can no longer fail.`,
    },
  },
  {
    state: 'payment failed, cancelled',
    setup: ['fail'],
    expect: {
      pay: `The payment of invoice C failed at ${T}; it can no longer be paid.`,
      expire: `The payment of invoice C failed at ${T}; it can no longer expire.`,
      fail: `The payment of invoice C already failed at ${T}.`,
      complete: `Order C was cancelled at ${T} when its payment failed, so it can no longer be completed.`,
      failOrder: `Order C was cancelled at ${T} when its payment failed, so it can no longer fail.`,
    },
  },
];

const cases = orderStates.flatMap(({ state, setup, expect: outcomes }) =>
  (Object.entries(outcomes) as [Move, string][]).map(([move, outcome]) => ({ state, setup, move, outcome })),
);

async function newOrder(t: TestSandbox): Promise<string> {
  return dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER }), 201).invoice.invoice_code;
}

async function reach(t: TestSandbox, code: string, setup: Step[]): Promise<void> {
  for (const step of setup) {
    if (step === 'time runs out') t.clock.advance(INVOICE_TTL_SECONDS * 1000);
    else await t.sandbox.control[step](code);
  }
  // Asked a while later, so a message stamped with the time of asking would show.
  t.clock.advance(5 * 60_000);
}

describe.each(transports)('every control move in every state (%s)', (transport) => {
  const sandbox = useSandboxes();

  it.each(cases)('$move on an order $state: $outcome', async ({ setup, move, outcome }) => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    await reach(t, code, setup);
    // Read first: a request settles what time has expired.
    const prior = dataOf(await t.request('GET', `/__sandbox/invoices/${code}`)).invoice;
    const before = t.state();
    const answer = await t.request('POST', `/__sandbox/${paths[move].replace('{code}', code)}`);
    if (outcome === 'moves') {
      // It answers with what it changed, as GET /__sandbox/invoices/{code} shows it now.
      const moved = dataOf(answer);
      const shown = dataOf(await t.request('GET', `/__sandbox/invoices/${code}`)).invoice;
      expect(moved).toEqual({ invoice_code: code, invoice: shown });
      expect(shown).not.toEqual(prior);
      return;
    }
    const message = outcome.replace(/\bC\b/g, code);
    expectError(answer, 409, 'INVALID_STATE');
    expect(answer.json.message).toBe(message);
    expect(t.state()).toEqual(before);
    // In-process, the same sentence, as the client's class for 409.
    const refused = t.sandbox.control[move](code);
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ message, status: 409, code: 'INVALID_STATE' });
    expect(t.state()).toEqual(before);
  });

  it.each([
    { name: 'pay a paid deposit', paid: true, move: 'pay', message: 'Invoice D is already paid.' },
    { name: 'complete a deposit', paid: false, move: 'complete', message: 'Invoice D is a deposit, not an order.' },
    { name: 'fail a deposit as an order', paid: false, move: 'failOrder', message: 'Invoice D is a deposit, not an order.' },
  ] as const)('$name: $message', async ({ paid, move, message }) => {
    const t = await sandbox(transport);
    const { invoice_code: code } = await t.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid });
    const answer = await t.request('POST', `/__sandbox/${paths[move].replace('{code}', code)}`);
    expect(answer.json.message).toBe(message.replace(/\bD\b/, code));
    expect(answer.status).toBe(move === 'pay' ? 409 : 404);
    await expect(t.sandbox.control[move](code)).rejects.toBeInstanceOf(move === 'pay' ? ConflictError : NotFoundError);
  });

  it('an in-process move sees an invoice expire by time as a request would, without a request first', async () => {
    const t = await sandbox(transport);
    const code = await newOrder(t);
    t.clock.advance(INVOICE_TTL_SECONDS * 1000);
    await expect(t.sandbox.control.pay(code)).rejects.toMatchObject({
      message: `Invoice ${code} expired at ${EXPIRY} and can no longer be paid.`,
    });
  });
});
