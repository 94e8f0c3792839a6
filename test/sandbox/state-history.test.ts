import { execFileSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_URL, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { needsHistory } from '../../mocks/assembly/dispatch.js';
import { openPersistentSandbox, persistentSandboxSession } from '../../mocks/assembly/persistent-sandbox.js';
import { SnapshotError } from '../../mocks/state/snapshot.js';
import { layoutPath, writeLayout } from '../../mocks/state/state-layout.js';

/*
 * A state file's history (orders, invoices, deposits, transactions, idempotency keys) is written last, with a layout
 * beside the file that says where it begins; the offline CLI reads it only for a request that needs it
 * (mocks/state/state-layout.ts). These tests hold the shortcut to what the whole read gives.
 */

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-history-'));
  file = join(dir, 'state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ORDER = JSON.stringify({ order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });

async function call(sandbox: Sandbox, method: string, path: string, body: string | null = null) {
  const response = await sandbox.handle({
    method,
    url: `${sandbox.baseUrl}${path}`,
    headers: { authorization: `Bearer ${sandbox.account('demo').token}`, 'content-type': 'application/json' },
    body,
  });
  if ('drop' in response) throw new Error('dropped');
  return { status: response.status, body: JSON.parse(String(response.body)) as { data: Record<string, unknown> } };
}

/** A state file whose snapshot (not only its journal) holds `orders` orders, written as the sandbox writes one. */
async function stateWithOrders(orders: number): Promise<void> {
  const opened = await openPersistentSandbox(file);
  for (let i = 0; i < orders; i++) expect((await call(opened.sandbox, 'POST', '/api/v1/me/orders', ORDER)).status).toBe(201);
  // A state loaded is written whole: the orders go into the snapshot, history last, with its layout.
  await opened.sandbox.control.loadState(opened.sandbox.snapshot());
  await opened.close();
}

/** A use for one request that reads no history: the session reads the file's head alone. */
const HEAD_ONLY = { request: { method: 'GET', url: `${DEFAULT_SANDBOX_URL}/api/v1/catalog/credit-packages` } };

const ordersListed = async (sandbox: Sandbox) => (await call(sandbox, 'GET', '/api/v1/me/orders')).body.data.orders as unknown[];

describe('a state file read without its history', () => {
  it('answers the catalog from the head alone, and reads the history for the first request that needs it', async () => {
    await stateWithOrders(3);
    const session = persistentSandboxSession(file);
    await session.use(async ({ sandbox }) => {
      expect((await call(sandbox, 'GET', '/api/v1/catalog/credit-packages')).status).toBe(200);
      expect(sandbox.store.loadPending).toBe(true);
      // Closed, not empty: nothing reads the orders as none.
      expect(() => sandbox.store.db.orders.size).toThrow(/orders table was used before its records were read/);
      expect(await ordersListed(sandbox)).toHaveLength(3);
      expect(sandbox.store.loadPending).toBe(false);
    }, HEAD_ONLY);
  });

  it('applies the journal to the history when it reads it: orders made after the snapshot are there', async () => {
    await stateWithOrders(2);
    const writer = persistentSandboxSession(file);
    await writer.use(async ({ sandbox }) => {
      expect((await call(sandbox, 'POST', '/api/v1/me/orders', ORDER)).status).toBe(201);
    });
    const reader = persistentSandboxSession(file);
    const orders = await reader.use(async ({ sandbox }) => {
      expect((await call(sandbox, 'POST', '/api/v1/auth/token/validate')).status).toBe(200);
      expect(sandbox.store.loadPending).toBe(true);
      return ordersListed(sandbox);
    }, HEAD_ONLY);
    expect(orders).toHaveLength(3);
  });

  it('gives a later use that reads everything the history, in the sandbox the session kept', async () => {
    await stateWithOrders(2);
    const session = persistentSandboxSession(file);
    const used = await session.use(async ({ sandbox }) => {
      await call(sandbox, 'GET', '/api/v1/catalog/payment-methods');
      expect(sandbox.store.loadPending).toBe(true);
      return sandbox;
    }, HEAD_ONLY);
    const again = await session.use(async ({ sandbox }) => {
      expect(sandbox.store.loadPending).toBe(false);
      expect(sandbox.store.db.orders.size).toBe(2);
      return sandbox;
    });
    expect(again).toBe(used);
  });

  it('reads the history before writing a snapshot at open (the journal outgrew it)', async () => {
    await stateWithOrders(2);
    const before = (await stat(file)).ino;
    // A journal let grow past the snapshot's size by one opener is due to be folded into it by the next.
    const writer = await openPersistentSandbox(file, { minJournalBytes: 1024 * 1024, rateLimit: false });
    for (let i = 0; i < 20; i++) expect((await call(writer.sandbox, 'POST', '/api/v1/me/orders', ORDER)).status).toBe(201);
    await writer.close();
    expect((await stat(file)).ino).toBe(before);
    expect((await stat(`${file}.journal`)).size).toBeGreaterThan((await stat(file)).size);
    await persistentSandboxSession(file, { minJournalBytes: 0 }).use(
      async ({ sandbox }) => void (await call(sandbox, 'GET', '/api/v1/catalog/credit-packages')),
      HEAD_ONLY,
    );
    expect((await stat(file)).ino).not.toBe(before);
    expect((await stat(`${file}.journal`)).size).toBe(0);
    const reopened = await openPersistentSandbox(file);
    expect(reopened.sandbox.store.db.orders.size).toBe(22);
    expect(reopened.sandbox.store.db.invoices.size).toBe(22);
    await reopened.close();
  });

  it('reads the whole file when the layout does not describe it (touched, or no layout of ours)', async () => {
    const variants: [string, (layout: string) => Promise<void>][] = [
      ['as written (the head alone is read)', async () => undefined],
      ['touched', () => utimes(file, new Date(), new Date(Date.now() - 60_000))],
      ['not JSON', () => writeFile(layoutPath(file), 'not json')],
      // A few KB at most: a larger one is not read at all, whatever it holds.
      ['too large to be one', (layout) => writeFile(layoutPath(file), layout.replace('{', `{"padding":"${'x'.repeat(8192)}",`))],
      [
        'a FIFO at its name (no one writes to it: a read would wait for ever)',
        async () => {
          await rm(layoutPath(file));
          execFileSync('mkfifo', [layoutPath(file)]);
        },
      ],
      ['a head past the file', (layout) => writeFile(layoutPath(file), layout.replace(/"head_bytes":\d+/, '"head_bytes":99999999'))],
      [
        'a head that ends a few bytes before the file does',
        async (layout) => {
          const size = (await stat(file)).size;
          await writeFile(layoutPath(file), layout.replace(/"head_bytes":\d+/, `"head_bytes":${size - 5}`));
        },
      ],
      [
        'a head that cuts a record',
        (layout) =>
          writeFile(
            layoutPath(file),
            layout.replace(/"head_bytes":(\d+)/, (_, n: string) => `"head_bytes":${Number(n) - 7}`),
          ),
      ],
    ];
    for (const [what, spoil] of variants) {
      for (const name of [file, `${file}.journal`, layoutPath(file)]) await rm(name, { force: true });
      await stateWithOrders(1);
      await spoil(await readFile(layoutPath(file), 'utf8'));
      const read = await persistentSandboxSession(file).use(async ({ sandbox }) => {
        expect((await call(sandbox, 'GET', '/api/v1/catalog/credit-packages')).status).toBe(200);
        const pending = sandbox.store.loadPending;
        return { pending, orders: pending ? -1 : sandbox.store.db.orders.size };
      }, HEAD_ONLY);
      const asWritten = what.startsWith('as written');
      expect({ what, ...read }).toEqual({ what, pending: asWritten, orders: asWritten ? expect.any(Number) : 1 });
    }
  });

  it('does not read a layout through a link', async () => {
    await stateWithOrders(1);
    expect(await persistentSandboxSession(file).use(async ({ sandbox }) => sandbox.store.loadPending, HEAD_ONLY)).toBe(true);
    const layout = await readFile(layoutPath(file), 'utf8');
    await rm(layoutPath(file));
    await writeFile(join(dir, 'elsewhere'), layout);
    await symlink(join(dir, 'elsewhere'), layoutPath(file));
    const pending = await persistentSandboxSession(file).use(async ({ sandbox }) => sandbox.store.loadPending, HEAD_ONLY);
    expect(pending).toBe(false);
  });

  it('refuses a history from a file changed behind the lock, and leaves the tables closed', async () => {
    await stateWithOrders(1);
    await persistentSandboxSession(file).use(async ({ sandbox }) => {
      // An editor saving over it, which takes no lock.
      await writeFile(file, await readFile(file));
      await expect(sandbox.store.loadDeferred()).rejects.toThrow(SnapshotError);
      await expect(sandbox.store.loadDeferred()).rejects.toThrow(/changed by something other than topup/);
      expect(() => sandbox.store.db.invoices.all()).toThrow(/before its records were read/);
    }, HEAD_ONLY);
  });

  it('checks the history with the rest when it reads it: a record that names no account is refused then', async () => {
    await stateWithOrders(1);
    const layout = JSON.parse(await readFile(layoutPath(file), 'utf8')) as { head_bytes: number };
    const moves = { expiresFrom: null, pendingFrom: null, watched: false };
    const text = await readFile(file, 'utf8');
    const spoiled = text.replace(/("invoice_code":"INV\d+","account_id":)1,("status")/, '$19,$2');
    expect(spoiled).not.toBe(text);
    expect(spoiled.length).toBe(text.length);
    await writeFile(file, spoiled);
    // A layout that describes the spoiled file, as if the sandbox had written it so.
    await writeLayout(file, await stat(file, { bigint: true }), layout.head_bytes, moves);
    const session = persistentSandboxSession(file);
    await session.use(async ({ sandbox }) => {
      expect((await call(sandbox, 'GET', '/api/v1/catalog/credit-packages')).status).toBe(200);
      await expect(sandbox.store.loadDeferred()).rejects.toThrow(/tables\.orders\[0\]\.account_id must name an account/);
    }, HEAD_ONLY);
    await expect(session.use(async () => undefined)).rejects.toThrow(SnapshotError);
  });
});

describe('the balance without the history', () => {
  const HOUR = 60 * 60 * 1000;
  const MAGIC_REFUND = JSON.stringify({
    order_type: 'gamepass',
    platform_username: 'TestOutcomes',
    place_id: 5900,
    platform_pass_id: 9903,
  });

  /** The balance as the CLI asks for it (the request named to the session), on a clock the test sets. */
  async function balanceAt(at: number) {
    const request = { method: 'GET', url: `${DEFAULT_SANDBOX_URL}/api/v1/me/balance` };
    return persistentSandboxSession(file, { now: () => at }).use(
      async ({ sandbox }) => {
        // Whether the session read the history before the request was sent.
        const read = !sandbox.store.loadPending;
        const answer = await call(sandbox, 'GET', '/api/v1/me/balance');
        return { read, balance: answer.body.data.balance };
      },
      { request },
    );
  }

  it('leaves the history unread while no move can be due, and reads it once one may be (an expiry)', async () => {
    await stateWithOrders(1);
    const now = Date.now();
    expect(await balanceAt(now)).toEqual({ read: false, balance: 0 });
    // Past the invoice's expiry (an hour): the expiry is made before the answer, so the history is read.
    expect(await balanceAt(now + 2 * HOUR)).toEqual({ read: true, balance: 0 });
    const reopened = await openPersistentSandbox(file, { now: () => now + 2 * HOUR });
    expect(reopened.sandbox.store.db.invoices.all().map((invoice) => invoice.payment_status)).toEqual(['expired']);
    await reopened.close();
  });

  it('shows a refund that came due while the history was unread (a magic order, from the snapshot or the journal)', async () => {
    const opened = await openPersistentSandbox(file);
    const made = await call(opened.sandbox, 'POST', '/api/v1/me/orders', MAGIC_REFUND);
    expect(made.status).toBe(201);
    const { invoice_code: code, amount: total } = made.body.data.invoice as { invoice_code: string; amount: number };
    // Paid: its refund is due from then, and made by the next request, whichever it is.
    await opened.sandbox.control.pay(code);
    await opened.close();
    const later = Date.now() + 1000;
    // In the journal only: the balance reads the history, and the refund is in it.
    expect(await balanceAt(later)).toEqual({ read: true, balance: total });

    const second = await openPersistentSandbox(file, { now: () => later });
    expect((await call(second.sandbox, 'POST', '/api/v1/me/orders', MAGIC_REFUND)).status).toBe(201);
    const again = (await call(second.sandbox, 'GET', '/api/v1/me/orders')).body.data.orders as { invoice_code: string; status: string }[];
    const pending = again.find((order) => order.status === 'pending')!;
    await second.sandbox.control.pay(pending.invoice_code);
    // Written whole: the magic order with a move left is in the snapshot, and its layout says so.
    await second.sandbox.control.loadState(second.sandbox.snapshot());
    await second.close();
    expect(JSON.parse(await readFile(layoutPath(file), 'utf8')).moves.watched).toBe(true);
    expect(await balanceAt(later + 1000)).toEqual({ read: true, balance: 2 * total });
  });
});

describe('a file changed between its head and its history', () => {
  it('is let go and read anew, whole, before the request that needs its history', async () => {
    await stateWithOrders(1);
    const later = Date.now() + 2 * 60 * 60 * 1000;
    let touch = true;
    // The sandbox's clock is first read as it restores the head, after the head was read: the file is touched then, as
    // a backup tool or an editor might, between the head and the history.
    const clock = () => {
      if (touch) {
        touch = false;
        utimesSync(file, new Date(), new Date(Date.now() - 60_000));
      }
      return later;
    };
    const request = { method: 'GET', url: `${DEFAULT_SANDBOX_URL}/api/v1/me/balance` };
    const answered = await persistentSandboxSession(file, { now: clock }).use(
      async ({ sandbox }) => ({ read: !sandbox.store.loadPending, status: (await call(sandbox, 'GET', '/api/v1/me/balance')).status }),
      { request },
    );
    expect(touch).toBe(false);
    expect(answered).toEqual({ read: true, status: 200 });
  });
});

describe('a token check on a state file', () => {
  it("keeps the token's last use: the next process's check says when it was", async () => {
    await stateWithOrders(0);
    const validate = () =>
      persistentSandboxSession(file).use(
        async ({ sandbox }) => (await call(sandbox, 'POST', '/api/v1/auth/token/validate')).body.data.last_used_at,
        { request: { method: 'POST', url: `${DEFAULT_SANDBOX_URL}/api/v1/auth/token/validate` } },
      );
    expect(await validate()).toBeNull();
    expect(await validate()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });
});

describe("the CLI's embedded sandbox", () => {
  it('answers a catalog command from the head, and an orders command with the history', async () => {
    await stateWithOrders(2);
    const { embeddedSandbox } = await import('../../src/cli/sandbox/embedded.js');
    const embedded = embeddedSandbox(file);
    const request = (path: string) => ({
      method: 'GET',
      url: `${embedded.baseUrl}${path}`,
      headers: { authorization: `Bearer ${embedded.demoToken}` },
      body: null,
    });
    const catalog = await embedded.handle(request('/api/v1/catalog/credit-packages'));
    expect('status' in catalog && catalog.status).toBe(200);
    // The session kept the sandbox it opened for that command: its history is still unread.
    expect(await embedded.use(async (sandbox) => sandbox.store.loadPending, { request: request('/api/v1/articles') })).toBe(true);
    const orders = await embedded.handle(request('/api/v1/me/orders'));
    expect('status' in orders && JSON.parse(String(orders.body)).data.orders).toHaveLength(2);
  });

  it('answers a request that finds the file changed behind the lock with what is wrong, not as a failure of its own', async () => {
    await stateWithOrders(1);
    const answer = await persistentSandboxSession(file).use(async ({ sandbox }) => {
      await writeFile(file, await readFile(file));
      return call(sandbox, 'GET', '/api/v1/me/orders');
    }, HEAD_ONLY);
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).toMatch(/cannot read its state: The state file .* was changed by something other than topup/);
  });
});

describe('needsHistory', () => {
  const base = 'http://sandbox.localhost';
  it.each([
    ['GET', '/api/v1/catalog/credit-packages', false],
    ['GET', '/api/v1/articles', false],
    ['POST', '/api/v1/auth/token/validate', false],
    ['GET', '/api/v1/me', false],
    ['GET', '/openapi.json', false],
    ['GET', '/api/v1/nowhere', false],
    ['GET', '/api/v1/me/balance', false],
    ['GET', '/api/v1/me/orders', true],
    ['POST', '/api/v1/me/orders', true],
    ['GET', '/api/v1/me/dashboard-summary', true],
    ['GET', '/api/v1/me/balance/transactions', true],
    ['GET', '/__sandbox/state', true],
    ['GET', '/__sandbox/clock', true],
    ['HEAD', '/api/v1/catalog/credit-packages', false],
    ['DELETE', '/api/v1/catalog/credit-packages', false],
    ['GET', '/api/v1/me/orders/INV2026112700000001', true],
    ['GET', '/user/invoice/INV2026112700000001', true],
    ['GET', '/pay/INV2026112700000001', true],
  ])('%s %s: %s', (method, path, needed) => {
    expect(needsHistory({ method, url: `${base}${path}` })).toBe(needed);
  });
});
