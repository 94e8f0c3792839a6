// @ts-check
/** Budget verdicts, the console table and BENCHMARKS.md. */

/** @typedef {import('./types.js').Row} Row */

/**
 * @param {Row} row
 * @returns {NonNullable<Row['verdict']>}
 */
export function verdict(row) {
  if (row.status === 'NOT MEASURED') return 'NOT MEASURED';
  if (row.budget === undefined) return 'INFO';
  const actual = /** @type {number} */ (row.budget.of === 'ratio' ? row.ratio : row.value);
  const { op } = row.budget;
  const limit = Number(row.budget.limit);
  const ok =
    op === '<=' ? actual <= limit : op === '<' ? actual < limit : op === '>=' ? actual >= limit : op === '==' ? actual === limit : false;
  return ok ? 'PASS' : 'MISS';
}

/** @param {Row['budget']} budget */
export function budgetText(budget) {
  if (budget === undefined) return '—';
  if (budget.text) return budget.text;
  const op = { '<=': '≤', '>=': '≥', '<': '<', '==': '=' }[budget.op];
  return budget.of === 'ratio' ? `${op} ${budget.limit}×` : `${op} ${budget.limit}`;
}

/**
 * @param {Row} row
 * @returns {string}
 */
function valueText(row) {
  if (row.status === 'NOT MEASURED') return '—';
  if (row.display !== undefined) return row.display;
  const value = row.value ?? Number.NaN;
  if (row.unit === 'rps') return `${Math.round(value).toLocaleString('en-US')} rps`;
  if (row.unit === 'ms') return `${value.toFixed(1)} ms`;
  return String(row.value);
}

/** @param {Row} row */
function baselineText(row) {
  if (row.baselineValue === undefined) return row.baseline ?? '—';
  const shown = row.baselineDisplay ?? valueText({ ...row, value: row.baselineValue, display: undefined });
  return `${row.baseline}: ${shown}`;
}

/** @param {Row} row */
function ratioText(row) {
  return row.ratio === undefined || !Number.isFinite(row.ratio) ? '—' : `${row.ratio.toFixed(2)}×`;
}

/** @param {readonly Row[]} rows */
export function consoleTable(rows) {
  return rows
    .map(
      (row) =>
        `${(row.verdict ?? '').padEnd(12)} ${ratioText(row).padStart(7)}  ${budgetText(row.budget).padEnd(12)} ${row.measure.replace(/`/g, '')}  [${valueText(row)}; ${baselineText(row).replace(/`/g, '')}]`,
    )
    .join('\n');
}

/** @param {string} text */
const escape = (text) => text.replace(/\|/g, '\\|');

/**
 * @param {{ rows: readonly Row[], machine: import('./types.js').Machine, date: string, command: string, durationS: number }} report
 */
export function markdown({ rows, machine, date, command, durationS }) {
  const table = [
    '| What | Measure | Value | Baseline | Ratio | Budget | Result |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.group} | ${escape(row.measure)} | ${escape(valueText(row))} | ${escape(baselineText(row))} | ${ratioText(row)} | ${escape(budgetText(row.budget))} | ${row.verdict === 'MISS' ? '**MISS**' : row.verdict} |`,
    ),
  ].join('\n');
  const notes = rows
    .filter((row) => row.note)
    .map((row) => `- **${escape(row.measure.replace(/`/g, ''))}**: ${row.note}`)
    .join('\n');
  const misses = rows.filter((row) => row.verdict === 'MISS');
  const verdictLine =
    misses.length === 0
      ? 'Every budget holds.'
      : `${misses.length} budget${misses.length === 1 ? '' : 's'} missed: ${misses.map((row) => row.measure.replace(/`/g, '')).join('; ')}.`;
  return `# Benchmarks

Written by \`${command}\` on ${date}, in ${Math.round(durationS)} s. Reproduce with:

\`\`\`sh
npm run build && npm run bench            # this file; add -- --check to exit non-zero on a miss
npm run bench -- --quick                  # one short iteration of each (CI smoke); writes bench/results/quick.json only
npm run bench -- --real-time              # client pacing on the wall clock over HTTP (a minute longer)
\`\`\`

Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GB, ${machine.os}, Node ${machine.node}${machine.extraCaCerts ? `, with NODE_EXTRA_CA_CERTS set (node loads that file at every start: about 30 ms of every process here, the baseline's too)` : ''}.
Every ratio is to a baseline measured in the same run, and every figure is a median over repeated runs.
Load is generated on loopback by a separate process (bench/lib/load.mjs: raw keep-alive sockets, one request in flight per connection).

${verdictLine}

${table}

## How the figures are taken

- **CLI start-up**: wall time of \`node bin/topup.js …\` spawned by the bench, stdout to a pipe as in a script, with \`node -e 0\` spawned in turn with every command so that drift in the machine's speed hits all alike; 40 runs each after 5 warm-ups, an empty config folder. Twice: in the caller's environment (the budgets) and in an empty one, where node itself starts faster and the same milliseconds of topup are a larger share (the offline command has a budget there too).
- **Sandbox over HTTP**: the sandbox's node:http server with the modules \`topup mock serve --no-rate-limit\` loads (bench/servers/sandbox.mjs), against bench/servers/bare.mjs answering the bytes the sandbox answered; 3 rounds of 3 s each, alternating. Orders are placed by the demo account without an Idempotency-Key, so each is a new order.
- **Peer**: \`prism mock -v silent openapi.json\` (Prism answers from the document's examples and validates its answers), same load.
- **Scale**: the store is a generated snapshot (bench/lib/scale-store.mjs): copies of an order the sandbox created, paid and completed, spread over 100 extra accounts; one client (1 connection), one account holding 1/100 of the orders; 3 rounds of 2,000 requests per request type. The server collects the generator's garbage once before it listens (it runs with --expose-gc for that: a real server never generates a store); RSS is then reported by the server itself after the requests, without forcing anything.
- **Client**: bench/client-worker.mjs, sequential calls in a process of its own, 5 rounds of 2,000.
- **Client pacing**: bench/pacing-worker.mjs; see the note on its row.

## What the figures rest on

- The CLI is bundled with its dependencies (tsup.config.ts): resolving and compiling hundreds of small files of zod, es-toolkit and commander cost more than the commands. The eager part is one CommonJS file; what it loads lazily is split by esbuild (as ES modules, the only format it splits) and each file then turned into CommonJS (scripts/cli-bundle.ts), so no topup command starts node's ES module loader.
- \`topup --version\` is answered by bin/topup.js (CommonJS) before anything else loads.
- No command of the CLI loads node's undici: the client sends through plain \`fetch\` calls (no ky), and the CLI hands it a fetch over node:http (src/cli/http-fetch.ts) or straight into the embedded sandbox (src/cli/sandbox/fetch.ts), both answering with a light response object. Node's undici costs about 18 ms to load, and its WebAssembly HTTP parser makes a process wait some 50 ms at exit while V8 finishes optimising it.
- Chalk loads only when colour is on; the offline sandbox's state is saved on first use, since loading it is three times quicker than seeding.
- The sandbox keeps its state in @msw/data collections, as the sandbox issue asks, with key and per-account indexes beside them (mocks/store/table.ts), so lookups and first pages never scan; the catalog answer is serialised once per change of its table. Records are created with their table's own key as @msw/data's primary key: its default, a crypto.randomUUID() string, cost about 480 bytes a record (≈100 MB at 100k orders). @msw/data still adds a relation map and two hidden properties to every record, about 220 bytes.
- Restoring a state (a state file, \`createSandbox({ snapshot })\`, \`mock state load\`) checks every record once, with a plain predicate read off its zod schema (mocks/state/lean-check.ts), and then stores a copy of the record's own fields (mocks/store/table.ts \`insertChecked\`): @msw/data's create() receives the copy under a private symbol, which its schema hands back, so it neither walks the values (its sanitising copy) nor validates them again (zod's copy). A CPU profile of the 100k restore before: half of it in those two copies and the garbage they made, a fifth in zod; after, the collector (about 40 %) and @msw/data's create() itself (its per-record Map, symbols and promise) are most of what is left. The seed is built and checked once per process, and every fresh \`createSandbox()\` gets copies of it the same way (about 0.3 ms where building it took 0.8).
- Per record, @msw/data holds an object of the record's fields (about 240 bytes for an order, of which 64 are its four timestamps boxed as heap numbers), an empty Map for relations (about 190 bytes) and two hidden properties (about 24); the table's key index adds some 50: about 540 bytes, ≈100 MB for 100k orders with their invoices. The Map is made inside create() and cannot be left out, so the RSS goal (100k orders within 1.3× of 100) is out of reach on @msw/data: the columnar prototype beside it (bench/compact-store-worker.mjs, row “Heap the 100,000-order store holds”) holds the same records in about 86 bytes each and restores them in less than one JSON.parse.
- The offline CLI's embedded sandbox takes its state file's lock per operation, as before, but keeps the sandbox between operations (mocks/assembly/persistent-sandbox.ts \`persistentSandboxSession\`): when the snapshot and its journal are as this process left them (inode, links, size, modification and change times in nanoseconds, compared under the lock), the next operation goes on with it instead of reading, checking and restoring the file again; any other process's write changes one of these, and then the file is read anew. The first operation of every process still reads it whole: at 10k orders that is most of a command's time.
- No per-request code of the sandbox builds an object as \`{ ...a, more }\`. In node 20 such objects were promoted to the old generation whenever that generation was large: with 100k orders, 30k GET /me/orders/{invoice} grew the heap by 180 MB until a full collection, and RSS after the scale load stood at 304 MB. \`Object.assign\` (or the spread last) does not do it; RSS is now about 245 MB.
- \`mock serve --state\` appends what each commit changed to a journal beside the snapshot (one line, fsynced) and writes a new snapshot only when the journal outgrows the old one (mocks/state/). It used to rewrite the whole state for every order: ≈0.5 s per order at 100k.
- A run registers only the commands of the group it names (src/cli/program.ts); \`--help\`, \`topup help\`, a mistyped command and completion get the whole tree.

## Where the start-up milliseconds go

CPU profiles (\`node --cpu-prof\`, each sample put on its source module by esbuild's \`// path\` comments in the bundle; several runs summed) of the start-up rows, taken on a shared, loaded machine for issue 25, so shares of topup's own time (beyond \`node -e 0\`) rather than milliseconds. \`node -e 0\` itself is node's bootstrap, about 30 ms of it loading NODE_EXTRA_CA_CERTS where that is set.

- **\`topup packages --json\` against HTTP.** Before issue 25: building the whole commander tree about a fifth (every command's definitions, \`mock\`'s alone 7 %), node:crypto and the streams it loads about an eighth (safe-file and the client's batch keys imported it for temporary names and hashes this command never makes), the ES module loader about a fifth (its own start, then resolving, linking and compiling some twenty lazy chunks). Now a run registers only its command's group, node:crypto loads at first use, and the lazy build is CommonJS: topup's own CPU time is a fifth to a quarter lower (A/B, alternating in the same minute). What remains: node's own modules for the request (http, net, streams, fs/promises, with compiling them: about a third), compiling the bundle's code (a seventh), the CLI's code and commander running (a seventh), garbage collection (a tenth).
- **\`topup --mock packages --json\` (offline).** The same savings, a tenth of this command's time; the rest is the embedded sandbox. zod is the largest part (a quarter to a third): its 210 KB module evaluated, the schemas of the contract, the store's records and the state file built as their modules load, and the restore validating every record through it (@msw/data's \`create\` parses each one; zod then compiles a parser per record schema, \`generateFastpass\`, a few per cent). Then the sandbox's own chunk (mutative, @msw/data, rettime, es-toolkit and mocks/: 220 KB to compile), reading and checking the state file, the request journal and its log line, and about 10 % garbage collection (six scavenges of a 1 MB new space; a larger one changed nothing in CPU time). The ≤ 1.6× goal waits on that side: a restore that does not build or run zod schemas for a state file the sandbox itself wrote, and the sandbox's schemas built on first use.
- **What did not help**: a V8 code cache for main.cjs (\`vm.Script\` with \`cachedData\`; node 20 has no module.enableCompileCache) saved under 10 % of \`--help\`, within the noise, and would need a cache file kept by the safe-file rules; zod's jitless mode saved 3-8 % offline, but every schema of \`topup mock serve\` would then parse without its compiled fast path.

## Notes

${notes}
`;
}
