// @ts-check
// npm run bench [-- --quick] [-- --check] [-- --real-time] [-- --only startup,http] [-- --out file.json]
// Runs the benchmarks against the built dist/ (npm run build first), prints PASS/MISS per budget, writes the
// results as JSON and, for a complete full run, BENCHMARKS.md. Exits 1 on a miss only with --check; 2 when a
// benchmark failed or a row is missing.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/processes.mjs';
import { consoleTable, markdown, verdict } from './lib/report.mjs';
import { EXPECTED_ROWS } from './rows.mjs';
import { batch } from './suites/batch.mjs';
import { client } from './suites/client.mjs';
import { dashboard } from './suites/dashboard.mjs';
import { http } from './suites/http.mjs';
import { pacing } from './suites/pacing.mjs';
import { peer } from './suites/peer.mjs';
import { scale } from './suites/scale.mjs';
import { startup } from './suites/startup.mjs';
import { store } from './suites/store.mjs';

/** @type {Record<string, import('./lib/types.js').Suite>} */
const suites = { startup, http, peer, scale, store, client, pacing, batch, dashboard };

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: process.env.BENCH_QUICK === '1' },
    check: { type: 'boolean', default: false },
    'real-time': { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
  },
});

for (const built of ['dist/index.js', 'dist/mocks.js', 'dist/contract.js', 'dist/cli/main.cjs', 'dist/cli/lazy/mocks/facade/serve.cjs']) {
  if (!existsSync(join(ROOT, built))) {
    console.error(`bench: ${built} is missing; run npm run build first.`);
    process.exit(2);
  }
}

const selected = flags.only === undefined ? Object.keys(suites) : flags.only.split(',').map((name) => name.trim());
for (const name of selected) {
  if (!(name in suites)) {
    console.error(`bench: no suite '${name}'; choose from ${Object.keys(suites).join(', ')}.`);
    process.exit(2);
  }
}

const command = [
  'npm run bench',
  ...(flags.quick || flags.check || flags['real-time'] || flags.only ? ['--'] : []),
  ...(flags.quick ? ['--quick'] : []),
  ...(flags.check ? ['--check'] : []),
  ...(flags['real-time'] ? ['--real-time'] : []),
  ...(flags.only ? [`--only ${flags.only}`] : []),
].join(' ');
/** @param {string} line */
const log = (line) => console.error(`  ${line}`);
const startedAt = Date.now();
/** @type {import('./lib/types.js').Row[]} */
const rows = [];
/** @type {string[]} */
const failures = [];
for (const name of selected) {
  console.error(`bench: ${name}${flags.quick ? ' (quick)' : ''}`);
  try {
    const suite = /** @type {import('./lib/types.js').Suite} */ (suites[name]);
    rows.push(...(await suite({ quick: flags.quick === true, realTime: flags['real-time'] === true, log })));
  } catch (error) {
    failures.push(`${name}: ${error instanceof Error ? error.stack : String(error)}`);
    console.error(`bench: ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
for (const row of rows) row.verdict = verdict(row);
rows.sort((a, b) => EXPECTED_ROWS.indexOf(a.id) - EXPECTED_ROWS.indexOf(b.id));

const complete = selected.length === Object.keys(suites).length;
const missing = complete ? EXPECTED_ROWS.filter((id) => !rows.some((row) => row.id === id)) : [];
const durationS = (Date.now() - startedAt) / 1000;
const cpu = cpus();
const machine = {
  cpus: cpu.length,
  cpuModel: cpu[0]?.model.trim() ?? 'unknown CPU',
  memoryGb: Math.round(totalmem() / 1024 ** 3),
  os: `${type()} ${release()}`,
  node: process.version,
  extraCaCerts: process.env.NODE_EXTRA_CA_CERTS !== undefined,
};
const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
const results = { date, command, quick: flags.quick, realTime: flags['real-time'], durationS, machine, failures, missing, rows };

const out = flags.out ?? join(ROOT, 'bench', 'results', flags.quick ? 'quick.json' : 'latest.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
// The committed table only comes from a complete, full run; a quick or partial one would overwrite it with less.
if (!flags.quick && complete && failures.length === 0)
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), markdown({ rows, machine, date, command, durationS }));

console.log(consoleTable(rows));
console.log(
  `\n${rows.filter((r) => r.verdict === 'PASS').length} pass, ${rows.filter((r) => r.verdict === 'MISS').length} miss, ${rows.filter((r) => r.verdict === 'INFO').length} info, ${rows.filter((r) => r.verdict === 'NOT MEASURED').length} not measured, in ${Math.round(durationS)} s. Results: ${out}`,
);
if (failures.length > 0 || missing.length > 0) {
  for (const failure of failures) console.error(`bench: failed: ${failure}`);
  if (missing.length > 0) console.error(`bench: rows missing: ${missing.join(', ')}`);
  process.exit(2);
}
if (flags.check && rows.some((row) => row.verdict === 'MISS')) process.exit(1);
