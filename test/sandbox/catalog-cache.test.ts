import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';

/** The catalog is serialised once per table version (routes/public.ts); these check that it never goes stale. */
async function get(sandbox: Awaited<ReturnType<typeof createSandbox>>, path: string) {
  const reply = await sandbox.handle({ method: 'GET', url: `${sandbox.baseUrl}${path}`, headers: {}, body: null });
  if ('drop' in reply) throw new Error('dropped');
  return reply;
}

const PACKAGES = '/api/v1/catalog/credit-packages';
const METHODS = '/api/v1/catalog/payment-methods';

describe('cached catalog answers', () => {
  it.each([PACKAGES, METHODS])('%s: the body is what JSON.stringify writes for the envelope, every time', async (path) => {
    const sandbox = await createSandbox({ rateLimit: false });
    const first = await get(sandbox, path);
    const second = await get(sandbox, path);
    expect(second.body).toBe(first.body);
    expect(first.body).toBe(JSON.stringify(JSON.parse(first.body)));
    expect(JSON.parse(first.body)).toMatchObject({ success: true, message: expect.any(String), data: expect.any(Object) });
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('shows a package inserted after the first answer, and forgets a removed one', async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const codes = async () => (JSON.parse((await get(sandbox, PACKAGES)).body).data.packages as { code: string }[]).map((p) => p.code);
    const before = await codes();
    await sandbox.store.db.creditPackages.insert({
      code: 'CR1',
      name: '1 Credit',
      credit_amount: 1,
      price: 125,
      currency: 'IDR',
      description: 'One.',
      sort_order: 1,
      active: true,
    });
    expect(await codes()).toEqual(['CR1', ...before]);
    sandbox.store.db.creditPackages.remove('CR1');
    expect(await codes()).toEqual(before);
  });

  it("shows the seed again after a reset, and a restored state's own catalog", async () => {
    const sandbox = await createSandbox({ rateLimit: false });
    const seeded = (await get(sandbox, PACKAGES)).body;
    await sandbox.store.db.creditPackages.insert({
      code: 'CR1',
      name: '1 Credit',
      credit_amount: 1,
      price: 125,
      currency: 'IDR',
      description: 'One.',
      sort_order: 1,
      active: true,
    });
    const snapshot = sandbox.snapshot();
    expect((await get(sandbox, PACKAGES)).body).not.toBe(seeded);
    await sandbox.control.reset();
    expect((await get(sandbox, PACKAGES)).body).toBe(seeded);
    const restored = await createSandbox({ rateLimit: false, snapshot });
    expect((await get(restored, PACKAGES)).body).toContain('"code":"CR1"');
  });
});
