import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../support/fake-io.js';
import { baseEnv, ensureBuilt, ROOT, topup } from './built-cli.js';

/*
 * One sandbox per config folder (issue 22, section 1) with two real processes of the built binary: `topup mock serve`
 * in one, commands with no flags in the other, in the same config folder. Then the server is SIGKILLed: the next
 * command notices its stale announcement and answers from the embedded sandbox, with the same state.
 */
let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;
beforeAll(() => {
  ensureBuilt();
  config = tempConfigDir();
  env = baseEnv(config.dir);
}, 120_000);
afterAll(() => config?.cleanup());

const ORDER = ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'];

/** `topup mock serve --port 0 --ready-file FILE`, spawned; resolves once the ready file holds its URL. */
async function startServe(readyFile: string) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'topup.js'), 'mock', 'serve', '--port', '0', '--ready-file', readyFile], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  for (let i = 0; i < 300 && !existsSync(readyFile); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(readyFile)) {
    child.kill('SIGKILL');
    throw new Error(`mock serve wrote no ready file within 15 s; stderr: ${stderr}`);
  }
  return { child, exited, url: readFileSync(readyFile, 'utf8'), stdout: () => stdout };
}

describe.sequential('`topup mock serve` in one process, commands with no flags in another', () => {
  let served: Awaited<ReturnType<typeof startServe>>;
  let invoice = '';
  const notice = () =>
    `Using the sandbox served at ${served.url.trim()} by \`topup mock serve\` (pid ${served.child.pid}, demo sandbox token).`;

  it('1. the ready file holds the URL and a newline; the banner says how to reach it from another shell', async () => {
    served = await startServe(join(config.dir, 'ready.url'));
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    for (let i = 0; i < 100 && !served.stdout().includes('a browser'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(served.stdout()).toContain(`\nanother shell: TOPUP_CONFIG_DIR=${config.dir} topup orders list\n`);
  });

  it('2. an order created here is the served sandbox’s, and orders list shows it', async () => {
    const created = await topup(ORDER, { env });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(notice());
    invoice = created.stdout.trim();
    const known = await fetch(`${served.url.trim()}/__sandbox/invoices/${invoice}`);
    expect(known.status).toBe(200);
    const listed = await topup(['--json', 'orders', 'list'], { env });
    expect(JSON.parse(listed.stdout).orders.map((o: { invoice_code: string }) => o.invoice_code)).toEqual([invoice]);
  });

  it('3. mock pay pays what the served sandbox created', async () => {
    expect(await topup(['mock', 'pay', invoice], { env })).toMatchObject({ code: 0, stderr: `${notice()}\n` });
    const seen = (await (await fetch(`${served.url.trim()}/__sandbox/invoices/${invoice}`)).json()) as {
      data: { invoice: { payment_status: string } };
    };
    expect(seen.data.invoice.payment_status).toBe('paid');
  });

  it('4. mock logs shows the served sandbox’s requests', async () => {
    const logs = await topup(['--json', 'mock', 'logs'], { env });
    expect(logs.code).toBe(0);
    const lines = logs.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; path: string });
    expect(lines.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /api/v1/me/orders',
      'GET /api/v1/me/orders',
      `POST /__sandbox/invoices/${invoice}/pay`,
    ]);
  });

  it('5. after a SIGKILL of the server, the next command ignores its stale announcement and has the same state', async () => {
    const pid = served.child.pid;
    served.child.kill('SIGKILL');
    expect(await served.exited).toBe('SIGKILL');
    const after = await topup(['--json', 'orders', 'list'], { env, timeoutMs: 20_000 });
    expect(after.code).toBe(0);
    expect(after.stderr).toMatch(
      new RegExp(
        `^Ignoring the announcement of a sandbox served at ${served.url.trim()}: (its process \\(pid ${pid}\\) is gone|nothing answers there now)\\.\\nUsing the embedded offline sandbox`,
      ),
    );
    expect(JSON.parse(after.stdout).orders).toMatchObject([{ invoice_code: invoice, status: 'processing' }]);
    // Removed under the state's lock, so the next command says nothing about it.
    expect(existsSync(join(config.dir, 'sandbox-state.json.served'))).toBe(false);
    const logs = await topup(['--json', 'mock', 'logs'], { env });
    expect(logs.stderr).toMatch(/^Using the embedded offline sandbox/);
    expect(logs.stdout).toContain(`/__sandbox/invoices/${invoice}/pay`);
  });
});
