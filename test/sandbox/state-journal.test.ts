import { appendFile, mkdtemp, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INVOICE_TTL_SECONDS } from '../../src/contract/index.js';
import { IDEMPOTENCY_TTL_MS } from '../../mocks/rules/idempotency.js';
import { SnapshotError, type SandboxChanges, type SandboxSnapshot, type StateWriter } from '../../mocks/state/snapshot.js';
import { openStateFile, StateFolderError, type OpenStateFileOptions, type StateFile } from '../../mocks/state/file.js';
import { accounts, dataOf, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox, type Transport } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();

let dir: string;
let file: string;
const opened: StateFile[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-journal-'));
  file = join(dir, 'state.json');
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

const sandboxes = useSandboxes();

/** Opens the state file (taking its lock, as `mock serve --state` does) and a sandbox on it. */
async function openOn(
  transport: Transport,
  options: OpenStateFileOptions & { rateLimit?: boolean } = {},
): Promise<{ t: TestSandbox; state: StateFile }> {
  const { rateLimit = true, ...fileOptions } = options;
  const state = await openStateFile(file, fileOptions);
  opened.push(state);
  const snapshot = state.takeSnapshot();
  const t = await sandboxes(transport, { rateLimit, stateWriter: state.writer, ...(snapshot === undefined ? {} : { snapshot }) });
  // As `mock serve --state` and the offline CLI do with a new file: it holds the seed from the start.
  if (snapshot === undefined) await state.writer.write({ snapshot: t.sandbox.snapshot() });
  return { t, state };
}

/** Closes the state file and opens it again in a new sandbox: what a restart sees. */
async function restart(transport: Transport, state: StateFile): Promise<TestSandbox> {
  await state.close();
  opened.splice(opened.indexOf(state), 1);
  return (await openOn(transport)).t;
}

const journalLines = async () => (await readFile(`${file}.journal`, 'utf8')).split('\n').filter((l) => l !== '');
const order = (t: TestSandbox, token: string, headers: Record<string, string> = {}) =>
  t.request('POST', '/api/v1/me/orders', { token, body: SIMPLE_ORDER, headers });

describe.each(transports)('state file journal (%s)', (transport) => {
  it('a restart gives back exactly the state every kind of change left', async () => {
    const { t, state } = await openOn(transport);
    const balanceOrder = dataOf(
      await t.request('POST', '/api/v1/me/orders', {
        token: rich.token,
        body: { ...SIMPLE_ORDER, payment_method: 'balance' },
        headers: { 'x-chat-user-id': rich.chat_user_id! },
      }),
      201,
    );
    const toPay = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    const toFail = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    const toExpire = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    const keyed = dataOf(await order(t, demo.token, { 'idempotency-key': 'reused-key' }), 201).invoice.invoice_code;
    dataOf(await order(t, demo.token, { 'idempotency-key': 'other-key' }), 201);
    await t.sandbox.control.pay(toPay);
    await t.sandbox.control.complete(toPay);
    await t.sandbox.control.pay(toFail);
    await t.sandbox.control.failOrder(toFail);
    await t.sandbox.control.deposit({ account: 'demo', amount: 50_000, paid: true });
    expect(dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token: demo.token })).valid).toBe(true);
    // Past the invoice TTL (the pending ones expire on the next request) and the idempotency key's: the key is
    // forgotten and taken again by a new order, so its record is removed and created anew.
    await t.sandbox.control.advanceClock(Math.max(INVOICE_TTL_SECONDS, IDEMPOTENCY_TTL_MS / 1000) + 1);
    const reused = dataOf(await order(t, demo.token, { 'idempotency-key': 'reused-key' }), 201).invoice.invoice_code;
    expect(reused).not.toBe(keyed);
    const before = t.state();
    const ordersBefore = dataOf(await t.request('GET', '/api/v1/me/orders', { token: demo.token }));
    // Nothing but the first snapshot and the journal was written.
    expect((await journalLines()).length).toBeGreaterThanOrEqual(9);

    const again = await restart(transport, state);
    expect(again.state()).toEqual(before);
    expect(dataOf(await again.request('GET', '/api/v1/me/orders', { token: demo.token }))).toEqual(ordersBefore);
    const statuses = Object.fromEntries(
      (before.tables.invoices as Array<{ invoice_code: string; payment_status: string }>).map((i) => [i.invoice_code, i.payment_status]),
    );
    expect({
      toPay: statuses[toPay],
      toFail: statuses[toFail],
      toExpire: statuses[toExpire],
      balanceOrder: statuses[balanceOrder.invoice.invoice_code],
    }).toEqual({ toPay: 'paid', toFail: 'refunded', toExpire: 'expired', balanceOrder: 'paid' });
    // The new key's record is the one that answers.
    expect(dataOf(await order(again, demo.token, { 'idempotency-key': 'reused-key' }), 200).invoice.invoice_code).toBe(reused);
  });
});

describe('state file journal', () => {
  const transport: Transport = 'in-process';

  it('an order appends one line to the journal and leaves the snapshot file as it was', async () => {
    const { t } = await openOn(transport);
    dataOf(await order(t, demo.token), 201);
    const snapshotBefore = await stat(file);
    const linesBefore = await journalLines();
    const code = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    const snapshotAfter = await stat(file);
    expect({ ino: snapshotAfter.ino, mtime: snapshotAfter.mtimeMs, size: snapshotAfter.size }).toEqual({
      ino: snapshotBefore.ino,
      mtime: snapshotBefore.mtimeMs,
      size: snapshotBefore.size,
    });
    const lines = await journalLines();
    expect(lines.length).toBe(linesBefore.length + 1);
    const line = JSON.parse(lines.at(-1)!) as SandboxChanges & { seq: number };
    expect(line.seq).toBe(linesBefore.length + 1);
    expect(Object.keys(line.tables).sort()).toEqual(['invoices', 'orders']);
    expect((line.tables.orders!.put[0] as { invoice_code: string }).invoice_code).toBe(code);
    expect((await stat(`${file}.journal`)).mode & 0o777).toBe(0o600);
  });

  it('when the journal outgrows the snapshot, a commit writes a new snapshot and empties the journal', async () => {
    const { t, state } = await openOn(transport, { minJournalBytes: 0, rateLimit: false });
    const snapshotSize = (await stat(file)).size;
    const firstIno = (await stat(file)).ino;
    let compacted = false;
    for (let i = 0; i < 200 && !compacted; i++) {
      dataOf(await order(t, demo.token), 201);
      compacted = (await stat(file)).ino !== firstIno;
    }
    expect(compacted).toBe(true);
    expect((await stat(`${file}.journal`)).size).toBeLessThan(snapshotSize);
    const before = t.state();
    expect((await restart(transport, state)).state()).toEqual(before);
  });

  it('a torn last line (a crash mid-write, never acknowledged) is cut off and the rest restored', async () => {
    const { t, state } = await openOn(transport);
    dataOf(await order(t, demo.token), 201);
    const before = t.state();
    const good = (await stat(`${file}.journal`)).size;
    await appendFile(`${file}.journal`, '{"journal_id":"x","seq":2,"tables":{"orders":{"put":[{"invoice_');
    const again = await restart(transport, state);
    expect(again.state()).toEqual(before);
    expect((await stat(`${file}.journal`)).size).toBe(good);
    // And the journal goes on cleanly after it.
    const code = dataOf(await order(again, demo.token), 201).invoice.invoice_code;
    const third = await restart(transport, opened.at(-1)!);
    expect(third.state().tables.orders.map((o) => (o as { invoice_code: string }).invoice_code)).toContain(code);
  });

  it('a state file in a folder that does not exist: one sentence naming the file, not a temporary lock name', async () => {
    const missing = join(file, '..', 'no-such-folder', 'state.json');
    const error = await openStateFile(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFolderError);
    expect((error as Error).message).toBe(
      `The folder of the state file ${missing} does not exist; create it, or name a state file in a folder that does.`,
    );
  });

  it('refuses a journal with an unreadable line before readable ones, naming the damage', async () => {
    const { t, state } = await openOn(transport);
    for (let i = 0; i < 3; i++) dataOf(await order(t, demo.token), 201);
    await state.close();
    opened.splice(opened.indexOf(state), 1);
    const lines = await journalLines();
    lines[1] = '{"not json';
    await writeFile(`${file}.journal`, `${lines.join('\n')}\n`);
    const error = await openStateFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(/state\.json\.journal is damaged/);
  });

  it('refuses a journal longer than any the sandbox writes, before reading any of it, and leaves it as it is', async () => {
    const { t, state } = await openOn(transport);
    dataOf(await order(t, demo.token), 201);
    await state.close();
    opened.splice(opened.indexOf(state), 1);
    // Sparse: 600 MiB long, none of it on disk. A journal becomes a new snapshot once it outgrows the old one, and no
    // snapshot can pass 512 MiB.
    await truncate(`${file}.journal`, 600 * 2 ** 20);
    const error = await openStateFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(
      `The state journal ${file}.journal is 600 MiB, more than the 512 MiB a journal can grow to before it becomes a new snapshot.`,
    );
    expect((await stat(`${file}.journal`)).size).toBe(600 * 2 ** 20);
    // --repair cannot read it either: it is refused the same way, not cut.
    await expect(openStateFile(file, { repair: true })).rejects.toThrow(/is 600 MiB, more than the 512 MiB/);
    expect((await stat(`${file}.journal`)).size).toBe(600 * 2 ** 20);
  });

  it('never applies lines of an older journal over the snapshot that replaced it (a crash between the two)', async () => {
    const { t, state } = await openOn(transport);
    const code = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    const oldJournal = await readFile(`${file}.journal`, 'utf8');
    await t.sandbox.control.pay(code);
    await state.writer.write({ snapshot: t.sandbox.snapshot() });
    const before = t.state();
    // As if the crash came after the new snapshot's rename and before the journal was emptied.
    await writeFile(`${file}.journal`, oldJournal);
    const again = await restart(transport, state);
    expect(again.state()).toEqual(before);
    expect(dataOf(await again.request('GET', `/api/v1/me/orders/${code}`, { token: demo.token })).order.status).toBe('processing');
  });

  it('a journal whose state file was deleted is refused, never emptied; repair keeps it and starts over', async () => {
    const { t, state } = await openOn(transport);
    dataOf(await order(t, demo.token), 201);
    await state.close();
    opened.splice(opened.indexOf(state), 1);
    await unlink(file);
    const journal = await readFile(`${file}.journal`);
    const error = await openStateFile(file).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`The state journal ${file}.journal holds changes, but its snapshot ${file} is missing.`);
    expect(await readFile(`${file}.journal`)).toEqual(journal);
    const repaired = await openStateFile(file, { repair: true });
    opened.push(repaired);
    expect(repaired.takeSnapshot()).toBeUndefined();
    expect(repaired.writer.wantsSnapshot).toBe(true);
    await repaired.writer.write({ snapshot: t.sandbox.snapshot() });
    const kept = /kept as (.*)\.$/.exec(repaired.notices.at(-1)!)![1]!;
    expect(kept).toMatch(/state\.json\.journal\.bad-/);
    expect(await readFile(kept)).toEqual(journal);
  });

  it('takeSnapshot hands the state over once', async () => {
    const { state } = await openOn(transport);
    await state.close();
    opened.splice(opened.indexOf(state), 1);
    const reopened = await openStateFile(file);
    opened.push(reopened);
    expect(reopened.takeSnapshot()).toBeDefined();
    expect(reopened.takeSnapshot()).toBeUndefined();
  });
});

/** Records what the sandbox hands its state writer; fails the writes it is told to. */
class RecordingWriter implements StateWriter {
  wantsSnapshot = false;
  readonly written: Array<'snapshot' | SandboxChanges> = [];
  failNext = false;
  async write(state: { snapshot: SandboxSnapshot } | { changes: SandboxChanges }): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    this.written.push('snapshot' in state ? 'snapshot' : state.changes);
  }
}

describe('what the sandbox hands its state writer', () => {
  it('only what changed since the last write, once it was acknowledged', async () => {
    const writer = new RecordingWriter();
    const t = await sandboxes('in-process', { stateWriter: writer });
    const code = dataOf(await order(t, demo.token), 201).invoice.invoice_code;
    expect(writer.written).toHaveLength(1);
    const changes = writer.written[0] as SandboxChanges;
    expect(Object.keys(changes.tables).sort()).toEqual(['invoices', 'orders']);
    expect(changes.counters.invoice).toBe(1);
    await t.sandbox.control.pay(code);
    const paid = writer.written[1] as SandboxChanges;
    expect(Object.keys(paid.tables).sort()).toEqual(['invoices', 'orders']);
    expect(paid.tables.invoices!.put).toMatchObject([{ invoice_code: code, payment_status: 'paid' }]);
  });

  it('the whole state when it asks for it, after a reset, and after a failed write', async () => {
    const writer = new RecordingWriter();
    const t = await sandboxes('in-process', { stateWriter: writer });
    writer.wantsSnapshot = true;
    dataOf(await order(t, demo.token), 201);
    writer.wantsSnapshot = false;
    await t.sandbox.control.reset();
    writer.failNext = true;
    expect((await order(t, demo.token)).status).toBe(500);
    dataOf(await order(t, demo.token), 201);
    dataOf(await order(t, demo.token), 201);
    expect(writer.written.map((w) => (w === 'snapshot' ? 'snapshot' : 'changes'))).toEqual(['snapshot', 'snapshot', 'snapshot', 'changes']);
  });
});
