import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import {
  accounts,
  CLOCK_START,
  dataOf,
  expectError,
  fakeClock,
  SIMPLE_ORDER,
  transports,
  useSandboxes,
  type TestSandbox,
} from '../support/sandbox-harness.js';

/**
 * Reset means a clean slate (issue 22): the seed or seed state with its clock, the faults the sandbox started with and
 * none added since, an empty journal; `keep` leaves named parts alone. In every transport, full and lean.
 */
const { rich } = await accounts();

const balance = (t: TestSandbox) => t.request('GET', '/api/v1/me/balance', { token: rich.token });
const newOrder = async (t: TestSandbox) =>
  dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER }), 201).invoice.invoice_code as string;
const faultsOf = async (t: TestSandbox) => dataOf(await t.request('GET', '/__sandbox/faults'));
const journalOf = async (t: TestSandbox) => dataOf(await t.request('GET', '/__sandbox/requests')).requests as { path: string }[];
const offsetOf = async (t: TestSandbox) => t.sandbox.now() - t.clock.now();

/** Every rule on getBalance fails; the sandbox has answered requests, made an order and moved its clock. */
async function dirty(t: TestSandbox): Promise<void> {
  await newOrder(t);
  dataOf(
    await t.request('PUT', '/__sandbox/faults', { body: { rules: [{ kind: 'error', status: 500, rate: 1, routes: ['getBalance'] }] } }),
  );
  expectError(await balance(t), 500, 'INTERNAL_ERROR');
  dataOf(await t.request('POST', '/__sandbox/clock', { body: { advance_seconds: 3600 } }));
  expect((await journalOf(t)).length).toBeGreaterThan(0);
}

describe.each(transports.flatMap((transport) => [false, true].map((lean) => ({ transport, lean }))))(
  'reset ($transport, lean: $lean)',
  ({ transport, lean }) => {
    const sandbox = useSandboxes();

    it('after faults and requests leaves none of either, with the seed and its clock back', async () => {
      const t = await sandbox(transport, { lean });
      const seeded = t.state();
      await dirty(t);
      expect(dataOf(await t.request('POST', '/__sandbox/reset'))).toEqual({ kept: [] });
      const faults = await faultsOf(t);
      expect(faults.rules).toEqual([]);
      expect(faults.stats).toMatchObject({ requests: 0, error: 0, rules: [] });
      // The reset itself is not kept either: the journal starts empty.
      expect(await journalOf(t)).toEqual([]);
      expect(t.state()).toEqual(seeded);
      expect(await offsetOf(t)).toBe(0);
      dataOf(await balance(t));
      expect(t.sandbox.account('rich').balance).toBe(rich.balance);
      expect(await newOrder(t)).toBe('INV20260302000001');
    });

    it('goes back to the faults and the seed state the sandbox started with, counts and all', async () => {
      const start = await createSandbox({ now: fakeClock().now });
      await start.control.deposit({ account: 'rich', amount: 50_000, paid: true });
      const seed = start.snapshot();
      const t = await sandbox(transport, {
        lean,
        seed,
        faults: { rules: [{ kind: 'error', status: 503, times: 1, routes: ['getBalance'] }] },
      });
      const started = t.state();
      expect(started.tables).toEqual(seed.tables);
      expectError(await balance(t), 503, 'SERVICE_UNAVAILABLE');
      dataOf(await balance(t));
      dataOf(await t.request('POST', '/__sandbox/faults', { body: { spec: '429/times=1@getBalance' } }));
      await newOrder(t);
      dataOf(await t.request('POST', '/__sandbox/reset'));
      expect(t.state()).toEqual(started);
      const faults = await faultsOf(t);
      expect(faults.rules).toEqual([{ kind: 'error', status: 503, times: 1, routes: ['getBalance'] }]);
      expect(faults.stats.rules).toEqual([{ matched: 0, fired: 0 }]);
      // The starting rule is fresh again: it fails the first request once more.
      expectError(await balance(t), 503, 'SERVICE_UNAVAILABLE');
      dataOf(await balance(t));
      expect(t.sandbox.account('rich').balance).toBe(rich.balance + 50_000);
    });

    it('?keep=faults,requests keeps both, and the reset is then in the journal', async () => {
      const t = await sandbox(transport, { lean });
      const seeded = t.state();
      await dirty(t);
      const before = await journalOf(t);
      expect(dataOf(await t.request('POST', '/__sandbox/reset?keep=faults,requests'))).toEqual({ kept: ['faults', 'requests'] });
      expect(t.state()).toEqual(seeded);
      expect((await faultsOf(t)).rules).toHaveLength(1);
      expectError(await balance(t), 500, 'INTERNAL_ERROR');
      const after = await journalOf(t);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length).map((e) => e.path)).toEqual(['/__sandbox/reset', '/api/v1/me/balance']);
    });

    it('?keep=state keeps the orders and the clock, and clears the faults and the journal', async () => {
      const t = await sandbox(transport, { lean });
      await dirty(t);
      const kept = t.state();
      dataOf(await t.request('POST', '/__sandbox/reset?keep=state'));
      expect(t.state()).toEqual(kept);
      expect(await offsetOf(t)).toBe(3_600_000);
      expect((await faultsOf(t)).rules).toEqual([]);
      expect(await journalOf(t)).toEqual([]);
      dataOf(await balance(t));
    });

    it('refuses a part it cannot keep with a 422 that names it, and changes nothing', async () => {
      const t = await sandbox(transport, { lean });
      await dirty(t);
      const state = t.state();
      const answer = await t.request('POST', '/__sandbox/reset?keep=faults,clock');
      expectError(answer, 422, 'VALIDATION_FAILED', ['keep']);
      expect(answer.json.message).toBe("A reset can keep state, faults, requests; not 'clock'.");
      expect(t.state()).toEqual(state);
      expect((await faultsOf(t)).rules).toHaveLength(1);
    });

    it('takes keep from a JSON body too, as the other control calls take theirs', async () => {
      const t = await sandbox(transport, { lean });
      await dirty(t);
      const kept = t.state();
      expect(dataOf(await t.request('POST', '/__sandbox/reset', { body: { keep: ['state', 'requests'] } }))).toEqual({
        kept: ['state', 'requests'],
      });
      expect(t.state()).toEqual(kept);
      expect((await faultsOf(t)).rules).toEqual([]);
      // The query and the body together keep what either names.
      expect(dataOf(await t.request('POST', '/__sandbox/reset?keep=faults', { body: { keep: 'state' } }))).toEqual({
        kept: ['faults', 'state'],
      });
    });

    it.each([
      ['another key', { body: { kep: ['state'] } }, 422, 'VALIDATION_FAILED', ['kep']],
      ['a part it cannot keep', { body: { keep: ['state', 'clock'] } }, 422, 'VALIDATION_FAILED', ['keep']],
      ['keep that is not a list of names', { body: { keep: [1] } }, 422, 'VALIDATION_FAILED', ['keep']],
      [
        'a body that is not JSON',
        { rawBody: 'keep=state', headers: { 'content-type': 'application/json' } },
        400,
        'INVALID_JSON',
        undefined,
      ],
    ])('refuses %s in the body, and resets nothing', async (_name, options, status, code, fields) => {
      const t = await sandbox(transport, { lean });
      await dirty(t);
      const state = t.state();
      const answer = await t.request('POST', '/__sandbox/reset', options);
      expectError(answer, status, code, fields);
      expect(t.state()).toEqual(state);
      expect((await faultsOf(t)).rules).toHaveLength(1);
    });
  },
);

describe('sandbox.reset() in-process', () => {
  it('is the same clean slate, for a suite’s beforeEach', async () => {
    const clock = fakeClock();
    const sandbox = await createSandbox({ now: clock.now, faults: { rules: [{ kind: 'latency', latency_ms: 0, rate: 1 }] } });
    const seeded = sandbox.snapshot();
    sandbox.faults.add([{ kind: 'error', status: 500, rate: 1 }]);
    const answer = await sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/balance`, { headers: { authorization: `Bearer ${rich.token}` } });
    expect(answer.status).toBe(500);
    await sandbox.control.advanceClock(60);
    expect(sandbox.requests.count()).toBe(1);
    await sandbox.reset();
    expect(sandbox.requests.count()).toBe(0);
    expect(sandbox.faults.config.rules).toEqual([{ kind: 'latency', latency_ms: 0, rate: 1 }]);
    expect(sandbox.snapshot()).toEqual(seeded);
    expect(sandbox.now()).toBe(CLOCK_START);
    // control.reset is the same call.
    expect(sandbox.control.reset).toBe(sandbox.reset);
  });

  it('keeps what it is told to, and refuses a part it does not know', async () => {
    const sandbox = await createSandbox({ now: fakeClock().now });
    sandbox.faults.add([{ kind: 'error', status: 500, rate: 1, routes: ['getBalance'] }]);
    await sandbox.reset({ keep: ['faults'] });
    expect(sandbox.faults.config.rules).toHaveLength(1);
    await expect(sandbox.reset({ keep: ['clock' as 'state'] })).rejects.toMatchObject({
      status: 422,
      fields: ['keep'],
      message: "A reset can keep state, faults, requests; not 'clock'.",
    });
    expect(sandbox.faults.config.rules).toHaveLength(1);
  });

  it('keeps auto-pay: a new invoice still pays itself after a reset', async () => {
    const clock = fakeClock();
    const sandbox = await createSandbox({ now: clock.now, autoPay: { after: 5_000 } });
    await sandbox.reset();
    const deposit = await sandbox.control.deposit({ account: 'demo', amount: 50_000 });
    clock.advance(5_000);
    const status = await sandbox.fetch(`${sandbox.baseUrl}/__sandbox/invoices/${deposit.invoice_code}`);
    expect(((await status.json()) as { data: { invoice: { payment_status: string } } }).data.invoice.payment_status).toBe('paid');
  });

  it('refuses a bad seed state at creation, named as the seed', async () => {
    await expect(createSandbox({ seed: { version: 1, tables: {} } })).rejects.toMatchObject({
      name: 'SnapshotError',
      message: expect.stringMatching(/^The seed state cannot be loaded: /),
    });
  });
});
