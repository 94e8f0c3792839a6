// @ts-check
// Checks a results file of `npm run bench` (CI runs it after `npm run bench -- --quick`): every row is there,
// each with a figure or an explicit reason why it was not measured, and no benchmark failed.
import { readFileSync } from 'node:fs';
import { EXPECTED_ROWS } from './rows.mjs';

const file = process.argv[2] ?? new URL('results/quick.json', import.meta.url).pathname;
const results = /** @type {import('./lib/types.js').BenchResults} */ (JSON.parse(readFileSync(file, 'utf8')));
const problems = [...results.failures.map((failure) => `failed: ${failure.split('\n')[0]}`)];
for (const id of EXPECTED_ROWS) {
  const row = results.rows.find((r) => r.id === id);
  if (row === undefined) problems.push(`${id}: missing`);
  else if (row.status === 'NOT MEASURED' ? !row.note : !Number.isFinite(row.value)) problems.push(`${id}: no figure`);
}
const unexpected = results.rows.filter((row) => !EXPECTED_ROWS.includes(row.id)).map((row) => `${row.id}: not in bench/rows.mjs`);
problems.push(...unexpected);
if (problems.length > 0) {
  console.error(`bench results ${file}:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`bench results ${file}: all ${EXPECTED_ROWS.length} rows present.`);
