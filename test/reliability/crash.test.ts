import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/spawn-cli.js';

const RICH = 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d';
const dir = mkdtempSync(join(tmpdir(), 'topup-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * SIGKILL the HTTP sandbox in the middle of an order-creation load, three times over, on one --state file.
 * Every order acknowledged with 201 must be there after each restart, and the file must always parse.
 */
describe('crash safety of --state', () => {
  it('keeps every acknowledged order across SIGKILLs, and the file is never torn', async () => {
    const file = join(dir, 'state.json');
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const served = await spawnServe(['--state', file, '--no-rate-limit']);
      // Every order acknowledged before this crash must have survived the earlier ones.
      for (const code of acknowledged) {
        const response = await fetch(`${served.url}/api/v1/me/orders/${code}`, { headers: { authorization: `Bearer ${RICH}` } });
        expect(response.status, `order ${code} after restart ${round}`).toBe(200);
      }
      let stop = false;
      const worker = async () => {
        while (!stop) {
          try {
            const response = await fetch(`${served.url}/api/v1/me/orders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${RICH}`, 'content-type': 'application/json' },
              body: JSON.stringify({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 }),
            });
            if (response.status === 201)
              acknowledged.push(((await response.json()) as { data: { invoice: { invoice_code: string } } }).data.invoice.invoice_code);
          } catch {
            return; // the server is gone
          }
        }
      };
      const workers = [worker(), worker(), worker()];
      const target = acknowledged.length + 40;
      while (acknowledged.length < target) await new Promise((r) => setTimeout(r, 5));
      served.child.kill('SIGKILL');
      expect(await served.exited).toBe('SIGKILL');
      stop = true;
      await Promise.all(workers);
      expect(existsSync(file)).toBe(true);
      expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
    }
    const final = await spawnServe(['--state', file, '--no-rate-limit']);
    try {
      const list = (await (
        await fetch(`${final.url}/api/v1/me/orders?per_page=1`, { headers: { authorization: `Bearer ${RICH}` } })
      ).json()) as { data: { pagination: { total: number } } };
      expect(list.data.pagination.total).toBeGreaterThanOrEqual(acknowledged.length);
      for (const code of acknowledged) {
        const response = await fetch(`${final.url}/api/v1/me/orders/${code}`, { headers: { authorization: `Bearer ${RICH}` } });
        expect(response.status, `order ${code}`).toBe(200);
      }
    } finally {
      final.child.kill('SIGINT');
      expect(await final.exited).toBe(0);
    }
  }, 60_000);
});
