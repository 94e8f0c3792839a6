import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { baseEnv, ensureBuilt, ROOT } from '../e2e/built-cli.js';
import { report } from './report.js';

const ROWS = 30;
const BIN = join(ROOT, 'bin', 'topup.js');

/** A small seeded generator, so that a failing run can be repeated kill for kill. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The built binary running the batch, SIGKILLed after `killAfterMs` unless it ends first. */
function runBatch(args: string[], env: Record<string, string>, killAfterMs: number): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

function ledgerOf(path: string): {
  answered: Map<string, { status: string; invoice: string | undefined; line: number }>;
  keys: Set<string>;
} {
  const answered = new Map<string, { status: string; invoice: string | undefined; line: number }>();
  const keys = new Set<string>();
  if (!existsSync(path)) return { answered, keys };
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const [i, text] of lines.entries()) {
    if (text === '') continue;
    let record: { t: string; key?: string; status?: string; invoice_code?: string; line?: number };
    try {
      record = JSON.parse(text);
    } catch (error) {
      // Only the very last line may be torn by a SIGKILL mid-write.
      expect(i, `line ${i + 1} of the ledger is damaged`).toBe(lines.length - 1);
      throw error;
    }
    if (record.key !== undefined) keys.add(record.key);
    if (record.t === 'result') answered.set(record.key!, { status: record.status!, invoice: record.invoice_code, line: record.line! });
  }
  return { answered, keys };
}

/**
 * The promise of `orders batch`: a process SIGKILLed at any moment and run again ends with exactly the orders of one
 * clean run. The built binary runs a 30-row batch against a served sandbox that drops order answers after commit,
 * answers 503s and 429s; it is killed at seeded random moments and resumed until it finishes. The sandbox runs
 * without rate limits and the CLI with its test seam (TOPUP_TEST_NO_PACING), so that this takes seconds.
 */
describe('orders batch under SIGKILL and faults (built binary)', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  const dir = mkdtempSync(join(tmpdir(), 'topup-batch-crash-'));

  beforeAll(async () => {
    ensureBuilt();
    sandbox = await createSandbox({
      rateLimit: false,
      journalSize: 10_000,
      faults: {
        seed: 23,
        rules: [
          { kind: 'drop_after', rate: 0.2, routes: ['createOrder'] },
          { kind: 'error', rate: 0.1, status: 503, routes: ['createOrder'] },
          { kind: 'rate_limit', rate: 0.1, retry_after: 1, routes: ['createOrder'] },
        ],
      },
    });
    server = await startHttpSandbox(sandbox, { port: 0 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('killed again and again, then resumed: one order per row, never two; the ledger agrees; a resume sends only unanswered rows', async () => {
    const input = join(dir, 'crash.csv');
    const rows = Array.from({ length: ROWS }, (_, i) => `BuilderBob,5001,${i % 3 === 0 ? 9002 : 9001},balance,crash-${i}`);
    writeFileSync(input, `username,place,pass,payment_method,reference\n${rows.join('\n')}\n`);
    const ledgerPath = `${input}.results.jsonl`;
    const env = {
      ...baseEnv(join(dir, 'config')),
      TOPUP_BASE_URL: server.url,
      TOPUP_TOKEN: sandbox.account('rich').token,
      TOPUP_TEST_NO_PACING: '1',
    };
    const args = ['orders', 'batch', input, '--chat-user-id', '700000001', '--yes'];
    const random = seeded(2026);
    let kills = 0;
    let finished: Ended | undefined;
    for (let run = 0; run < 60 && finished === undefined; run++) {
      const before = ledgerOf(ledgerPath).answered;
      const journalStart = sandbox.requests.list().at(-1)?.id ?? 0;
      // Early runs are killed at random points; later ones are given long enough to finish.
      const killAfter = run < 15 ? 250 + Math.floor(random() * 900) : 60_000;
      const ended = await runBatch(args, env, killAfter);
      if (ended.signal === 'SIGKILL') kills += 1;
      else if (ended.code === 0) finished = ended;
      else expect([6, 7], ended.stderr).toContain(ended.code); // the faults outlasted the retries: a stop, resumed next
      // This run sent nothing for a row the ledger had answered before it started.
      const sent = sandbox.requests.list({ method: 'POST', path: '/api/v1/me/orders', afterId: journalStart });
      for (const entry of sent) expect(before.has(entry.idempotency_key!), `run ${run} re-sent an answered row`).toBe(false);
    }
    expect(finished, 'the batch finished within 60 runs').toBeDefined();
    expect(kills).toBeGreaterThanOrEqual(3);

    const orders = sandbox.store.db.orders.all().filter((o) => o.client_reference?.startsWith('crash-'));
    const references = orders.map((o) => o.client_reference);
    expect(new Set(references).size).toBe(ROWS);
    expect(orders).toHaveLength(ROWS);
    // Paid by balance: exactly one charge per row.
    const { answered } = ledgerOf(ledgerPath);
    expect(answered.size).toBe(ROWS);
    const byCode = new Map(orders.map((o) => [o.invoice_code, o]));
    for (const [, result] of answered) {
      expect(['created', 'existed']).toContain(result.status);
      expect(byCode.get(result.invoice!)?.client_reference).toBe(`crash-${result.line - 2}`);
    }
    const stats = sandbox.faults.stats;
    expect(stats.drop_after).toBeGreaterThan(0);
    report('batch-crash', {
      rows: ROWS,
      kills,
      server_orders: orders.length,
      duplicates: orders.length - new Set(references).size,
      faults: stats,
    });
  }, 240_000);
});
