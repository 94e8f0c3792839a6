import { snapshotWriter } from '../../mocks/state/flush.js';
import { mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { SnapshotError, type SandboxSnapshot } from '../../mocks/state/snapshot.js';
import { readStateFile, writeStateFile } from '../../mocks/state/file.js';
import { MAX_STATE_FILE_BYTES, refusedBySize } from '../../mocks/state/limits.js';
import { FileTooLargeError } from '../../src/safe-file.js';
import { accounts, dataOf, fakeClock, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every table, empty: a state whose one problem is the record a case puts in. */
const emptyTables = Object.fromEntries(Object.keys((await createSandbox()).snapshot().tables).map((name) => [name, []]));

const copy = (snapshot: SandboxSnapshot): SandboxSnapshot => JSON.parse(JSON.stringify(snapshot)) as SandboxSnapshot;

async function balanceOf(t: TestSandbox, token: string): Promise<number> {
  return dataOf(await t.request('GET', '/api/v1/me/balance', { token })).balance;
}

describe.each(transports)('state file (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('a restart from the state file keeps orders, balances, transactions and counters', async () => {
    const file = join(dir, 'state.json');
    const first = await sandbox(transport, { stateWriter: snapshotWriter((s) => writeStateFile(file, s)) });
    const paid = dataOf(
      await first.request('POST', '/api/v1/me/orders', {
        token: rich.token,
        body: { ...SIMPLE_ORDER, payment_method: 'balance' },
        headers: { 'x-chat-user-id': rich.chat_user_id! },
      }),
      201,
    );
    const pending = dataOf(await first.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER }), 201);
    const { invoice_code: deposit } = await first.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true });
    const ordersBefore = dataOf(await first.request('GET', '/api/v1/me/orders', { token: rich.token }));
    const transactionsBefore = dataOf(await first.request('GET', '/api/v1/me/balance/transactions', { token: rich.token }));
    const stateBefore = first.state();

    const second = await sandbox(transport, { snapshot: await readStateFile(file) });
    expect(second.state()).toEqual(stateBefore);
    expect(dataOf(await second.request('GET', '/api/v1/me/orders', { token: rich.token }))).toEqual(ordersBefore);
    expect(dataOf(await second.request('GET', '/api/v1/me/balance/transactions', { token: rich.token }))).toEqual(transactionsBefore);
    expect(await balanceOf(second, rich.token)).toBe(rich.balance - 12_000);
    expect(await balanceOf(second, demo.token)).toBe(50_000);
    expect(
      dataOf(await second.request('GET', `/api/v1/me/orders/${pending.invoice.invoice_code}`, { token: demo.token })).order.status,
    ).toBe('pending');
    expect(dataOf(await second.request('GET', `/api/v1/me/deposits/${deposit}`, { token: demo.token })).deposit.payment_status).toBe(
      'paid',
    );

    // The invoice sequence continues where it stopped.
    const codes = [paid.invoice.invoice_code, pending.invoice.invoice_code, deposit];
    expect(codes).toEqual(['INV20260302000001', 'INV20260302000002', 'INV20260302000003']);
    const next = dataOf(await second.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER }), 201);
    expect(next.invoice.invoice_code).toBe('INV20260302000004');
    // So does the transaction sequence.
    await second.sandbox.control.deposit({ account: 'demo', amount: 10_000, paid: true });
    const ids = dataOf(await second.request('GET', '/api/v1/me/balance/transactions', { token: demo.token })).transactions.map(
      (x: { id: string }) => x.id,
    );
    // After the three opening balances of the seed (TRX00000001 to 3).
    expect(ids).toEqual(['TRX00000006', 'TRX00000005']);
  });

  it('an idempotency key survives a restart', async () => {
    const file = join(dir, 'state.json');
    const first = await sandbox(transport, { stateWriter: snapshotWriter((s) => writeStateFile(file, s)) });
    const created = dataOf(
      await first.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER, headers: { 'idempotency-key': 'k-1' } }),
      201,
    );
    const second = await sandbox(transport, { snapshot: await readStateFile(file) });
    const again = dataOf(
      await second.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER, headers: { 'idempotency-key': 'k-1' } }),
      200,
    );
    expect(again.invoice.invoice_code).toBe(created.invoice.invoice_code);
  });

  it('a pending invoice restored from the state file still expires on time', async () => {
    const file = join(dir, 'state.json');
    const first = await sandbox(transport, { stateWriter: snapshotWriter((s) => writeStateFile(file, s)) });
    const code = dataOf(await first.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER }), 201).invoice
      .invoice_code;
    const second = await sandbox(transport, { snapshot: await readStateFile(file) });
    second.clock.advance(INVOICE_TTL_SECONDS * 1000);
    expect(dataOf(await second.request('GET', `/api/v1/me/invoices/${code}/status`, { token: demo.token }))).toMatchObject({
      payment_status: 'expired',
      order_status: 'cancelled',
    });
  });

  it('an order is persisted before it is acknowledged', async () => {
    const persisted: string[] = [];
    const t = await sandbox(transport, {
      stateWriter: snapshotWriter(async (s) => {
        persisted.push(JSON.stringify(s));
      }),
    });
    const code = dataOf(await t.request('POST', '/api/v1/me/orders', { token: demo.token, body: SIMPLE_ORDER }), 201).invoice.invoice_code;
    expect(persisted.at(-1)).toContain(code);
    await t.sandbox.control.pay(code);
    const last = JSON.parse(persisted.at(-1)!) as SandboxSnapshot;
    expect(
      (last.tables.invoices as Array<{ invoice_code: string; payment_status: string }>).find((i) => i.invoice_code === code)
        ?.payment_status,
    ).toBe('paid');
  });
});

describe('state files and snapshots', () => {
  it('writes atomically: no temporary file is left beside the state file', async () => {
    const file = join(dir, 'state.json');
    const sandbox = await createSandbox({ now: fakeClock().now });
    await writeStateFile(file, sandbox.snapshot());
    await writeStateFile(file, sandbox.snapshot());
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(await readStateFile(file)).toEqual(copy(sandbox.snapshot()));
  });

  it('reads a missing state file as no state', async () => {
    expect(await readStateFile(join(dir, 'none.json'))).toBeUndefined();
  });

  it('refuses a state file that is not JSON with a SnapshotError naming the file', async () => {
    const file = join(dir, 'garbage.json');
    await writeFile(file, '{"version": 1, "tables": {');
    const error = await readStateFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(/garbage\.json.*not valid JSON/);
  });

  it('refuses a state file longer than node can parse, before reading any of it, and leaves it as it is', async () => {
    const file = join(dir, 'huge.json');
    // Sparse: 600 MiB long, none of it on disk. Read whole, it would have failed later as "not valid JSON".
    await writeFile(file, '');
    await truncate(file, 600 * 2 ** 20);
    const error = await readStateFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(`The state file ${file} is 600 MiB, more than the 512 MiB that node can parse as one text.`);
    expect((await stat(file)).size).toBe(600 * 2 ** 20);
  });

  it('a state file that passes its limit as it is read (it grew, or its size said nothing) is refused without a size', () => {
    const found = new FileTooLargeError('/state.json', MAX_STATE_FILE_BYTES + 1, MAX_STATE_FILE_BYTES, false);
    expect(refusedBySize('state file', found, 'that node can parse as one text').message).toBe(
      'The state file /state.json holds more than the 512 MiB that node can parse as one text.',
    );
  });

  it.each([
    { name: 'null', snapshot: null, message: /not a sandbox state file/i },
    { name: 'an array', snapshot: [], message: /not a sandbox state file/i },
    { name: 'a string', snapshot: 'state', message: /not a sandbox state file/i },
    {
      name: 'another version',
      snapshot: { version: 2, clock_offset_ms: 0, counters: { invoice: 0, transaction: 0 }, tables: {} },
      message: /version 1/,
    },
    {
      name: 'no tables',
      snapshot: { version: 1, clock_offset_ms: 0, counters: { invoice: 0, transaction: 0 } },
      message: /^The state cannot be loaded: tables must be an object of every table of the sandbox\.$/,
    },
    {
      name: 'a record of the wrong shape',
      snapshot: {
        version: 1,
        clock_offset_ms: 0,
        counters: { invoice: 0, transaction: 0 },
        tables: { ...emptyTables, orders: [{ invoice_code: 7 }] },
      },
      message: /^The state cannot be loaded: tables\.orders\[0\]\.invoice_code must be a string\.$/,
    },
  ])('refuses a snapshot that is $name with a SnapshotError', async ({ snapshot, message }) => {
    const error = await createSandbox({ snapshot }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses garbage read from a file', async () => {
    const file = join(dir, 'state.json');
    await writeFile(file, JSON.stringify({ hello: 'world' }));
    await expect(createSandbox({ snapshot: await readStateFile(file) })).rejects.toBeInstanceOf(SnapshotError);
  });

  it('is deterministic: two fresh sandboxes give identical fixtures and snapshots', async () => {
    const a = await createSandbox();
    const b = await createSandbox({ now: () => Date.UTC(2030, 0, 1) });
    expect(b.fixtures()).toEqual(a.fixtures());
    expect(copy(b.snapshot())).toEqual(copy(a.snapshot()));
  });

  it('a snapshot is a value: later changes do not reach it', async () => {
    const sandbox = await createSandbox({ now: fakeClock().now });
    const { invoice_code } = await sandbox.control.deposit({ account: 'demo', amount: 50_000 });
    const snapshot = sandbox.snapshot();
    const taken = copy(snapshot);
    await sandbox.control.pay(invoice_code);
    expect(copy(snapshot)).toEqual(taken);
  });

  it('every persisted snapshot is consistent, even when the writer serialises it a moment later', async () => {
    const written: SandboxSnapshot[] = [];
    // Like writeStateFile, which opens its temporary file before it serialises the snapshot.
    const persist = async (snapshot: SandboxSnapshot) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      written.push(copy(snapshot));
    };
    const sandbox = await createSandbox({ now: fakeClock().now, stateWriter: snapshotWriter(persist) });
    await Promise.all([
      sandbox.control.deposit({ account: 'rich', amount: 10_000, paid: true }),
      sandbox.control.deposit({ account: 'rich', amount: 20_000, paid: true }),
      sandbox.control.deposit({ account: 'rich', amount: 40_000, paid: true }),
    ]);
    expect(written.length).toBeGreaterThan(0);
    for (const snapshot of written) {
      const account = (snapshot.tables.accounts as Array<{ name: string; balance: number; id: number }>).find((a) => a.name === 'rich')!;
      const credits = (snapshot.tables.transactions as Array<{ account_id: number; amount: number }>).filter(
        (x) => x.account_id === account.id,
      );
      // The seeded balance is a credit too (its opening transaction): the credits explain the whole balance.
      expect(account.balance, 'the balance is the sum of the credits in the same snapshot').toBe(
        credits.reduce((sum, x) => sum + x.amount, 0),
      );
      expect(snapshot.counters.transaction).toBe(snapshot.tables.transactions.length);
    }
  });

  it('restores a snapshot into an equal state', async () => {
    const sandbox = await createSandbox({ now: fakeClock().now });
    await sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true });
    await sandbox.control.advanceClock(90);
    const restored = await createSandbox({ now: fakeClock().now, snapshot: copy(sandbox.snapshot()) });
    expect(copy(restored.snapshot())).toEqual(copy(sandbox.snapshot()));
    expect(restored.now()).toBe(sandbox.now());
  });
});
