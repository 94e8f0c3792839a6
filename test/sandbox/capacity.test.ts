import { constants } from 'node:buffer';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/index.js';
import { ServerError } from '../../src/errors.js';
import { openStateFile } from '../../mocks/state/file.js';
import { magicOrders } from '../../mocks/store/magic-values.js';
import { MAX_SANDBOX_INVOICES } from '../../src/contract/sandbox-control.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../src/contract/visible-word.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

const fullMessage = (max: number, held: number) =>
  `The sandbox is full: it keeps at most ${max} ${max === 1 ? 'invoice' : 'invoices'} (orders and deposits together) and holds ${held}. Reset it to go on (topup mock reset, POST /__sandbox/reset).`;

const order = (t: TestSandbox, headers: Record<string, string> = {}, body: object = SIMPLE_ORDER) =>
  t.request('POST', '/api/v1/me/orders', { token: rich.token, body, headers });

/** What a refused request must leave as it was: every record and counter (the clock does not move in these tests). */
const stateOf = (t: TestSandbox) => {
  const { counters, tables } = t.state();
  return { counters, tables };
};

describe.each(transports.flatMap((transport) => [false, true].map((lean) => [transport, lean] as const)))(
  'a sandbox keeps at most maxInvoices invoices (%s, lean %s)',
  (transport, lean) => {
    const sandboxes = useSandboxes();

    it('refuses one more order with 507 SANDBOX_FULL and changes nothing, a paid one included', async () => {
      const t = await sandboxes(transport, { lean, maxInvoices: 2 });
      dataOf(await order(t), 201);
      dataOf(await order(t), 201);
      const before = stateOf(t);
      const balanceBefore = dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance;

      const refused = await order(t, { 'x-chat-user-id': rich.chat_user_id! }, { ...SIMPLE_ORDER, payment_method: 'balance' });
      expectError(refused, 507, 'SANDBOX_FULL');
      expect(refused.json.message).toBe(fullMessage(2, 2));
      // As every answer: where the rate limit stands.
      expect(refused.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);

      expect(stateOf(t)).toEqual(before);
      expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance).toBe(balanceBefore);
      // The invoice counter did not move either: the next order after a reset is numbered as it would have been.
      expect(t.state().counters.invoice).toBe(2);
    });

    it('still answers the replay of an order it holds, refuses a new key, and takes orders again after a reset', async () => {
      const t = await sandboxes(transport, { lean, maxInvoices: 1 });
      const first = dataOf(await order(t, { 'idempotency-key': 'order-a' }), 201).invoice.invoice_code;

      const replay = dataOf(await order(t, { 'idempotency-key': 'order-a' }), 200);
      expect(replay.invoice.invoice_code).toBe(first);
      const refused = await order(t, { 'idempotency-key': 'order-b' });
      expectError(refused, 507, 'SANDBOX_FULL');
      expect(refused.json.message).toBe(fullMessage(1, 1));

      // The key of the refused order was not taken: once there is room, it makes its order.
      await t.sandbox.reset();
      dataOf(await order(t, { 'idempotency-key': 'order-b' }), 201);
    });

    it('refuses a deposit the same way, in-process and through the control API', async () => {
      const t = await sandboxes(transport, { lean, maxInvoices: 1 });
      await t.sandbox.control.deposit({ account: 'demo', amount: 50_000 });
      const before = stateOf(t);

      const inProcess = await t.sandbox.control.deposit({ account: 'demo', amount: 50_000 }).catch((error: unknown) => error);
      expect(inProcess).toBeInstanceOf(ServerError);
      expect(inProcess).toMatchObject({ status: 507, code: 'SANDBOX_FULL', message: fullMessage(1, 1) });

      const overHttp = await t.request('POST', '/__sandbox/deposits', { body: { account: 'demo', amount: 50_000 } });
      expectError(overHttp, 507, 'SANDBOX_FULL');
      // An order is refused too: the deposit's invoice counts.
      expectError(await order(t), 507, 'SANDBOX_FULL');
      expect(stateOf(t)).toEqual(before);
      expect(dataOf(await t.request('GET', '/api/v1/me/deposits', { token: demo.token })).deposits).toHaveLength(1);
    });

    it('loads a state that holds more invoices than it keeps, whole, and refuses only new ones', async () => {
      const source = await sandboxes(transport, { lean });
      for (let i = 0; i < 3; i++) dataOf(await order(source), 201);

      const t = await sandboxes(transport, { lean, maxInvoices: 1, snapshot: source.sandbox.snapshot() });
      const listed = dataOf(await t.request('GET', '/api/v1/me/orders', { token: rich.token }));
      expect(listed.orders).toHaveLength(3);
      const refused = await order(t);
      expectError(refused, 507, 'SANDBOX_FULL');
      expect(refused.json.message).toBe(fullMessage(1, 3));
    });
  },
);

describe('maxInvoices', () => {
  it.each([0, -1, 1.5, Number.NaN, MAX_SANDBOX_INVOICES + 1, Number.POSITIVE_INFINITY])('refuses %s at creation', async (maxInvoices) => {
    await expect(createSandbox({ maxInvoices })).rejects.toThrow(
      new RangeError('createSandbox: maxInvoices is a whole number from 1 to 200,000.'),
    );
  });

  it('is 200,000 by default and takes any whole number up to it', async () => {
    expect((await createSandbox()).store.maxInvoices).toBe(200_000);
    expect((await createSandbox({ maxInvoices: MAX_SANDBOX_INVOICES })).store.maxInvoices).toBe(MAX_SANDBOX_INVOICES);
    expect((await createSandbox({ maxInvoices: 1 })).store.maxInvoices).toBe(1);
  });

  it('writes nothing to a state file for a refused order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'topup-capacity-'));
    try {
      const file = join(dir, 'state.json');
      const state = await openStateFile(file);
      const sandbox = await createSandbox({ stateWriter: state.writer, maxInvoices: 1 });
      await state.writer.write({ snapshot: sandbox.snapshot() });
      const post = () =>
        sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${rich.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(SIMPLE_ORDER),
        });
      expect((await post()).status).toBe(201);
      const journal = await readFile(`${file}.journal`, 'utf8');
      expect(journal.split('\n').filter(Boolean)).toHaveLength(1);
      expect((await post()).status).toBe(507);
      expect(await readFile(`${file}.journal`, 'utf8')).toBe(journal);
      await state.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the state of a full sandbox, whatever its records hold, within one JSON text', async () => {
    // The largest records a request can make: a 64-character client_reference of characters JSON escapes, a
    // 255-character Idempotency-Key, paid from the balance and refunded (two ledger lines), and a deposit, paid.
    const sandbox = await createSandbox({ rateLimit: false });
    const emptyChars = JSON.stringify(sandbox.snapshot()).length;
    const orders = 20;
    for (let i = 0; i < orders; i++) {
      const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rich.token}`,
          'content-type': 'application/json',
          'idempotency-key': String(i).padStart(IDEMPOTENCY_KEY_MAX_LENGTH, 'k'),
          'x-chat-user-id': rich.chat_user_id!,
        },
        body: JSON.stringify({ ...magicOrders.order_refunded, payment_method: 'balance', client_reference: '\u0001'.repeat(64) }),
      });
      expect(answer.status).toBe(201);
    }
    await sandbox.control.advanceClock(60);
    await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/balance`, { headers: { authorization: `Bearer ${rich.token}` } });
    const snapshot = sandbox.snapshot();
    expect(snapshot.tables.transactions.length - 3).toBeGreaterThanOrEqual(2 * orders);
    const perOrder = (JSON.stringify(snapshot).length - emptyChars) / orders;
    expect(perOrder).toBeGreaterThan(2_000);
    expect(emptyChars + perOrder * MAX_SANDBOX_INVOICES).toBeLessThan(constants.MAX_STRING_LENGTH);
  });
});
