import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, ROOT, topup, topupCommand } from './built-cli.js';

/**
 * "Wait in one pane, pay in another" on the embedded sandbox: two real processes on one state file. The waiter holds
 * the state file's lock only while it polls, so the payer gets it at once, and the waiter's next poll sees the payment.
 */
let configDir: string;
beforeAll(() => {
  ensureBuilt();
  configDir = mkdtempSync(join(tmpdir(), 'topup-wait-pay-'));
}, 120_000);
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

describe('two terminals on the embedded sandbox', () => {
  it('one waits on an invoice, the other pays it: both exit 0, the waiter after its next poll', async () => {
    const env = baseEnv(configDir);
    const created = await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'], { env });
    expect(created.code).toBe(0);
    const invoice = created.stdout.trim();

    const [command, args] = topupCommand(['invoices', 'status', invoice, '--wait', '--interval', '10']);
    const waiter = spawn(command, args, {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    waiter.stdin.end();
    let out = '';
    let err = '';
    waiter.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const firstPoll = new Promise<void>((resolve) =>
      waiter.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
        if (/next check in \d+ s/.test(err)) resolve();
      }),
    );
    const guard = setTimeout(() => waiter.kill('SIGKILL'), 25_000);
    const waited = new Promise<number | null>((resolve) => waiter.on('close', resolve));
    await firstPoll;

    // While the waiter waits, another process pays: before, it hung on the lock for 15 s and failed.
    const paid = await topup(['mock', 'pay', invoice], { env, timeoutMs: 8_000 });
    expect(paid).toMatchObject({ code: 0, stdout: '', stderr: expect.not.stringContaining('✓') });

    expect(await waited).toBe(0);
    clearTimeout(guard);
    // The sandbox asks for 15 s between polls (poll_after_seconds), which wins over --interval 10.
    expect(err).toMatch(new RegExp(`^${invoice} pending \\(order pending\\); next check in 15 s$`, 'm'));
    expect(err).toMatch(new RegExp(`^${invoice} paid \\(order processing\\)$`, 'm'));
    expect(out).toMatch(/^payment_status: paid$/m);
  }, 40_000);
});
