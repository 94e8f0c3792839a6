import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';
import { tempConfigDir } from '../support/fake-io.js';
import { SIMPLE_ORDER } from '../support/sandbox-harness.js';

/*
 * The sandbox's zod-backed parts (a query's schema, an order body's) are modules of their own, loaded with import():
 * by createSandbox() before its first answer, and by the offline CLI's embedded sandbox on first need. A bot's tests
 * often fake timers before their first request (vi.useFakeTimers, @sinonjs/fake-timers): were any of that to wait on
 * a timer, the first list or order would never be answered. Each run is a process of its own, so the built
 * topup/mocks is loaded fresh, with setTimeout and setImmediate frozen (they never fire) before the first request.
 */
describe('the built topup/mocks, with timers that never fire', () => {
  let work: ReturnType<typeof tempConfigDir>;

  beforeAll(() => {
    ensureBuilt();
    work = tempConfigDir();
  });
  afterAll(() => work?.cleanup());

  async function answers(entry: 'mocks.js' | 'mocks.cjs', frozen: boolean): Promise<number[]> {
    const load =
      entry === 'mocks.js'
        ? `const { createSandbox } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', entry)).href)});`
        : `const { createSandbox } = require(${JSON.stringify(join(ROOT, 'dist', entry))});`;
    const main = join(work.dir, `main-${entry}-${frozen}.${entry === 'mocks.js' ? 'mjs' : 'cjs'}`);
    writeFileSync(
      main,
      `(async () => {
  ${load}
  const sandbox = await createSandbox({ rateLimit: false });
  const token = sandbox.account('demo').token;
  if (${frozen}) for (const name of ['setTimeout', 'setImmediate']) globalThis[name] = () => ({ unref() {}, ref() {} });
  const headers = { authorization: 'Bearer ' + token, 'content-type': 'application/json' };
  const statuses = [];
  statuses.push((await sandbox.fetch(sandbox.baseUrl + '/api/v1/me/orders?per_page=1', { headers })).status);
  const order = await sandbox.fetch(sandbox.baseUrl + '/api/v1/me/orders', { method: 'POST', headers, body: ${JSON.stringify(JSON.stringify(SIMPLE_ORDER))} });
  statuses.push(order.status);
  console.log(JSON.stringify(statuses));
  process.exit(0);
})();
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [main], {
      cwd: work.dir,
      env: { PATH: process.env.PATH ?? '', HOME: work.dir },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return JSON.parse(stdout) as number[];
  }

  it.each(['mocks.js', 'mocks.cjs'] as const)('%s answers its first list with a query and its first order', async (entry) => {
    expect(await answers(entry, true)).toEqual([200, 201]);
  });

  it('the same requests with timers working answer the same (so a frozen timer changed nothing)', async () => {
    expect(await answers('mocks.js', false)).toEqual([200, 201]);
  });
});
