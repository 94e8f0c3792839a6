import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { openPersistentSandbox, persistentSandboxSession } from '../../mocks/assembly/persistent-sandbox.js';
import type { SandboxSnapshot } from '../../mocks/state/snapshot.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-session-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SIMPLE_ORDER = JSON.stringify({ order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });

async function placeOrder(sandbox: Sandbox): Promise<number> {
  const response = await sandbox.handle({
    method: 'POST',
    url: `${sandbox.baseUrl}/api/v1/me/orders`,
    headers: { authorization: `Bearer ${sandbox.account('demo').token}`, 'content-type': 'application/json' },
    body: SIMPLE_ORDER,
  });
  if ('drop' in response) throw new Error('dropped');
  return response.status;
}

const orderCount = (sandbox: Sandbox) => sandbox.store.db.orders.size;

describe('a restored state keeps copies of its records', () => {
  it('keeps only the fields of each table, and shares nothing with the snapshot it came from', async () => {
    const snapshot = JSON.parse(JSON.stringify((await createSandbox()).snapshot())) as SandboxSnapshot;
    const article = snapshot.tables.articles[0] as { tags: string[]; extra?: string };
    article.extra = 'not a field of an article';
    const sandbox = await createSandbox({ snapshot });
    article.tags.push('changed afterwards');
    const restored = sandbox.snapshot().tables.articles[0] as { tags: string[] };
    expect(restored).not.toHaveProperty('extra');
    expect(restored.tags).not.toContain('changed afterwards');
  });

  it('gives every fresh sandbox its own seed records', async () => {
    const first = await createSandbox();
    const second = await createSandbox();
    expect(await placeOrder(first)).toBe(201);
    expect(orderCount(first)).toBe(1);
    expect(orderCount(second)).toBe(0);
    const tagsOf = (sandbox: Sandbox) => sandbox.store.db.articles.all()[0]!.tags;
    expect(tagsOf(first)).toEqual(tagsOf(second));
    expect(tagsOf(first)).not.toBe(tagsOf(second));
  });
});

describe('persistentSandboxSession', () => {
  it('goes on with the sandbox it holds while no other process changed the file', async () => {
    const session = persistentSandboxSession(join(dir, 'state.json'));
    const first = await session.use(async ({ sandbox }) => {
      expect(await placeOrder(sandbox)).toBe(201);
      return sandbox;
    });
    const second = await session.use(async ({ sandbox }) => sandbox);
    expect(second).toBe(first);
    expect(orderCount(second)).toBe(1);
  });

  it('reads the file again once another process wrote it', async () => {
    const file = join(dir, 'state.json');
    const session = persistentSandboxSession(file);
    const first = await session.use(async ({ sandbox }) => sandbox);
    const other = await openPersistentSandbox(file);
    expect(await placeOrder(other.sandbox)).toBe(201);
    await other.close();
    const second = await session.use(async ({ sandbox }) => sandbox);
    expect(second).not.toBe(first);
    expect(orderCount(second)).toBe(1);
  });

  it('starts the rate-limit windows over at every use, as a sandbox opened anew would', async () => {
    const session = persistentSandboxSession(join(dir, 'state.json'));
    const statuses: number[] = [];
    // The order class allows 10 a minute to one token: 12 uses of one order each stay under it.
    for (let i = 0; i < 12; i++) statuses.push(await session.use(({ sandbox }) => placeOrder(sandbox)));
    expect(statuses.every((status) => status === 201)).toBe(true);
    const within = await session.use(async ({ sandbox }) => {
      const burst: number[] = [];
      for (let i = 0; i < 11; i++) burst.push(await placeOrder(sandbox));
      return burst;
    });
    expect(within.at(-1)).toBe(429);
  });

  it('does not keep a sandbox whose work failed', async () => {
    const session = persistentSandboxSession(join(dir, 'state.json'));
    let failed: Sandbox | undefined;
    await expect(
      session.use(async ({ sandbox }) => {
        failed = sandbox;
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    const next = await session.use(async ({ sandbox }) => sandbox);
    expect(next).not.toBe(failed);
  });

  it('opens anew for a fresh start, and lets go of the lock between uses', async () => {
    const file = join(dir, 'state.json');
    const session = persistentSandboxSession(file);
    const first = await session.use(async ({ sandbox }) => {
      await placeOrder(sandbox);
      return sandbox;
    });
    // Another opener gets the lock at once: the session does not hold it between uses.
    const other = await openPersistentSandbox(file, { waitMs: 0 });
    await other.close();
    const fresh = await session.use(async ({ sandbox }) => sandbox, { fresh: true });
    expect(fresh).not.toBe(first);
    expect(orderCount(fresh)).toBe(0);
  });
});
