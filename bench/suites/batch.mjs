// @ts-check
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rateClasses } from '../../dist/contract.js';
import { ROOT, runWorker } from '../lib/processes.mjs';

const MB = 1024;

/**
 * Peak RSS (MB) of `topup orders batch FILE --dry-run` on a file of `rows` rows with a ledger of as many answered
 * rows beside it: both are read twice, streamed; only a fingerprint per key is kept.
 * @param {number} rows
 */
async function batchPeakRss(rows) {
  const dir = mkdtempSync(join(tmpdir(), 'topup-bench-batch-'));
  try {
    const input = join(dir, 'orders.csv');
    const lines = ['username,place,pass,reference'];
    for (let i = 0; i < rows; i++) lines.push(`BuilderBob,5001,${9001 + (i % 2)},bench-row-${i}`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const ledger = [JSON.stringify({ t: 'batch', v: 1, batch: 'orders.csv', at: new Date().toISOString() })];
    for (let i = 0; i < rows; i++) {
      const key = `earlier-${i.toString(16).padStart(32, '0')}`;
      ledger.push(JSON.stringify({ t: 'sent', line: i + 2, key, digest: '0'.repeat(24), at: new Date().toISOString() }));
      ledger.push(
        JSON.stringify({
          t: 'result',
          line: i + 2,
          key,
          digest: '0'.repeat(24),
          status: 'created',
          invoice_code: `INV${i}`,
          amount: 12000,
          currency: 'IDR',
          payment_status: 'pending',
          sent_at: new Date().toISOString(),
          at: new Date().toISOString(),
        }),
      );
    }
    writeFileSync(`${input}.results.jsonl`, `${ledger.join('\n')}\n`, { mode: 0o600 });
    const rssFile = join(dir, 'rss');
    const code = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          pathToFileURL(join(ROOT, 'bench', 'lib', 'max-rss.mjs')).href,
          join(ROOT, 'bin', 'topup.js'),
          '--mock',
          'orders',
          'batch',
          input,
          '--dry-run',
        ],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', HOME: dir, TOPUP_CONFIG_DIR: join(dir, 'config'), BENCH_MAX_RSS_FILE: rssFile },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      child.on('error', reject);
      child.on('exit', resolve);
    });
    if (code !== 0) throw new Error(`orders batch --dry-run on ${rows} rows exited with ${code}`);
    return Number(readFileSync(rssFile, 'utf8')) / MB;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `topup orders batch`: how close to the published order limit a batch runs (virtual clock, the sandbox's limits on),
 * and the CLI's memory on a large file with a large ledger.
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function batch({ quick, log }) {
  const { limit, windowSeconds } = rateClasses['create-order'];
  const rows = quick ? 20 : 40;
  /** @type {{ sentAt: number[], statuses: Record<number, number> }} */
  const result = await runWorker('batch-worker.mjs', { rows });
  const tooMany = result.statuses[429] ?? 0;
  if (tooMany > 0 || result.sentAt.length !== rows)
    throw new Error(`batch: ${tooMany} answers 429, ${result.sentAt.length} of ${rows} rows sent`);
  // The first window's worth goes at once; from then on the limit alone sets the pace.
  const [first = 0, last = 0] = [result.sentAt[0], result.sentAt.at(-1)];
  const minutes = (last - first) / 60_000;
  const perMinute = (rows - limit) / minutes;
  const ceiling = limit / (windowSeconds / 60);
  log(`batch: ${rows} rows, ${perMinute.toFixed(2)} a minute after the first ${limit} (virtual clock), no 429`);

  const bigRows = quick ? 20_000 : 100_000;
  const [small, big] = [await batchPeakRss(100), await batchPeakRss(bigRows)];
  log(`batch: peak RSS ${small.toFixed(0)} MB on 100 rows, ${big.toFixed(0)} MB on ${bigRows} rows (file and ledger)`);
  return [
    {
      id: 'batch.rate',
      group: 'Batch orders',
      measure: `\`orders.createMany\` (\`topup orders batch\`), ${rows} rows, sandbox limits on: orders a minute after the first ${limit}`,
      value: perMinute,
      display: `${perMinute.toFixed(2)}/min`,
      unit: 'per minute',
      baseline: 'the published limit',
      baselineValue: ceiling,
      baselineDisplay: `${ceiling}/min`,
      ratio: perMinute / ceiling,
      budget: { op: '>=', limit: 0.95, of: 'ratio', text: 'within 5 % of the limit, never over (0 × 429)' },
      note: 'Virtual clock shared by client and sandbox, in one process through `sandbox.fetch`; every answer 201.',
    },
    {
      id: 'batch.rss',
      group: 'Batch orders',
      measure: `\`topup orders batch --dry-run\` on ${bigRows.toLocaleString('en')} rows with a ${bigRows.toLocaleString('en')}-row ledger: peak RSS`,
      value: big,
      display: `${big.toFixed(0)} MB`,
      unit: 'MB',
      baseline: 'the same on 100 rows',
      baselineValue: small,
      baselineDisplay: `${small.toFixed(0)} MB`,
      ratio: big / small,
      // A margin over three full runs of 2026-11-26 (257–266 MB); 320 MB before.
      budget: { op: '<=', limit: 300, of: 'value', text: 'under 300 MB' },
      note: 'The file and the ledger are read line by line; what stays is a small record per key (the run fits in `--max-old-space-size=80`); the rest of the peak is garbage V8 has not collected yet.',
    },
  ];
}
