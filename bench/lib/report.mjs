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
- **Sandbox over HTTP**: the sandbox's node:http server with the modules \`topup mock serve --no-rate-limit\` loads (bench/servers/sandbox.mjs), against bench/servers/bare.mjs answering the bytes the sandbox answered; 6 rounds of 1.5 s each, alternating (A B, then B A), and a ratio is the median of the rounds' own ratios, so that the machine's drift over seconds cancels (bench/suites/http.mjs \`pairedRatio\`); the rates shown are the medians of the rounds. Orders are placed by the demo account without an Idempotency-Key, so each is a new order.
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
- Restoring a state (a state file, \`createSandbox({ snapshot })\`, \`mock state load\`) checks every record once, with a plain predicate read off its zod schema (mocks/state/lean-check.ts), which also builds each table's key index once, and then stores the records in one pass (mocks/store/table.ts \`insertCheckedAll\`): into @msw/data's own list, marked as its create() marks a record (its primary key, and a relation map: one shared empty map that refuses entries, where create() makes a Map per record). How create() marks records is read off one it made, and checked, at first use; if this @msw/data keeps its records any other way, every record goes through create() as before. The records of a state file the sandbox itself parsed are kept as they are when they hold only the schema's fields (no copy); \`createSandbox({ snapshot })\` still copies, so the caller's object stays theirs. Before (4220456): create() per record (its sanitising walk, its loggers, two awaits and a Map each) cost about 1.5× the JSON.parse, and the young generation copied 200k Maps and record copies twice; after, reading and decoding the file costs about as much as its parse, then the check, then storing. The seed is built and checked once per process, and every fresh \`createSandbox()\` gets copies of it (about 0.3 ms).
- A bot's test file imports topup/mocks in a process (or a fresh module graph) of its own. Its ES build imported @msw/data as a package, and @msw/data's ES module imports the indexes of es-toolkit and es-toolkit/compat: some 550 modules for node's ES module loader to resolve, read, compile and link, about 350 ms of every such process here (3.0× a process importing zod alone). Since 2026-11-26 the library build bundles @msw/data in both formats, as the CommonJS build always had (require() cannot load an ES module), so esbuild keeps only the few functions it uses; zod stays external, the user's own (tsup.config.ts \`BUNDLED_DEPENDENCIES\`, test/package/library-loads.test.ts). The first \`createSandbox()\` of a process builds and checks the seed: its records are parsed with zod's per-parse \`jitless\`, since zod's compiled fast path for each of the fifteen record schemas cost more to generate than it saved on a few records (about 8 ms of the first sandbox; later ones copy the seed). With msw (the recipe of docs/testing-your-bot.md), \`createHandlers()\` required msw's index, which also loads its GraphQL and WebSocket handlers and the graphql package, about 100 ms beyond what msw/node loads; it now requires msw's own \`msw/core/http\` export, the http handlers alone (the row with the msw recipe).
- Per record, @msw/data holds an object of the record's fields (about 240 bytes for an order, 64 of them its four timestamps boxed as heap numbers) and two hidden properties; every record shares the one empty relation map (a record a route created had its own, about 190 bytes, until 2026-11-26), and the table's key index adds some 50: about 350 bytes a record (538 before), ≈70 MB for 100k orders with their invoices. The RSS goal (100k orders within 1.3× of 100) is still out of reach on @msw/data: the columnar prototype beside it (bench/compact-store-worker.mjs, row “Heap the 100,000-order store holds”) holds the same records in about 86 bytes each and restores them in less than one JSON.parse. Replacing the store is the decision issue 25 reserves.
- \`POST /me/orders\`: the records a route builds from its checked body, checked records and the clock are stored with \`insertChecked\` (no second zod parse; test/sandbox/route-records.test.ts checks every kind each route writes against the state schema, in the full and lean forms), and a clock no record can hold fails the order before its first write. The token digest uses \`crypto.hash\` and is kept for 256 tokens; the 201 answer is built from the records in hand; invoice codes reuse the day's date. Server CPU per order over HTTP went from about 162 to 126 µs (A/B, same minutes). Since 2026-11-26 those records go into the collection as a restore puts them, without @msw/data's create() (its sanitising walk, loggers, two awaits and a Map per record): from about 100 to 81 µs (A/B, both trees alternating). What remains above bare node:http: garbage collection (about 10 µs, growing with the orders kept), building and stringifying the answer, the request journal.
- Catalog and balance over HTTP: dispatch, the pipeline and the routes answer synchronously when nothing waits; a request URL is parsed once (a bounded table, mocks/assembly/request-url.ts); the catalog's whole answer body is one cached string; the balance is serialised once per account until it or its time changes; all headers go to one writeHead. Server CPU per request: catalog 47 → 34.5 µs, balance 49 → 35 µs, against bare node:http's 29–31 µs; garbage collection is now the same as bare's. The load generator shares the same two cores, so the requests/s ratios move less than the CPU.
- The request journal builds an entry (cutting secrets) only when one is read, with repeated paths and bodies cut once (small bounded memo tables). The live stream keeps one feed per journal: live entries of up to 20 ms go out as one write per reader, each event turned into bytes once for all readers; after a quiet spell the first goes on the next turn of the loop. Its rows' reader is a raw socket counting events. Issue 25's ≤ 5 % for the journal and its stream is judged as two rows since 2026-11-26: the journal kept with no reader against it off, and what a reader costs the sandbox against what the same events to the same reader cost bare node:http (bench/servers/bare.mjs \`stream\`). As first defined (journal and reader against neither) the goal was below what two shared cores allow any server: bare node:http streaming the same bytes keeps about 0.8× of its own rate, the sandbox with a reader that keeps up about 0.55–0.6× (the row's reader used to be dropped, see its note).
- The offline CLI's embedded sandbox takes its state file's lock per operation, as before, but keeps the sandbox between operations (mocks/assembly/persistent-sandbox.ts \`persistentSandboxSession\`): when the snapshot and its journal are as this process left them (inode, links, size, modification and change times in nanoseconds, compared under the lock), the next operation goes on with it instead of reading, checking and restoring the file again; any other process's write changes one of these, and then the file is read anew. The first operation of every process still reads it whole: at 10k orders that is most of a command's time.
- No per-request code of the sandbox builds an object as \`{ ...a, more }\`. In node 20 such objects were promoted to the old generation whenever that generation was large: with 100k orders, 30k GET /me/orders/{invoice} grew the heap by 180 MB until a full collection, and RSS after the scale load stood at 304 MB. \`Object.assign\` (or the spread last) does not do it; RSS is now about 245 MB.
- \`mock serve --state\` appends what each commit changed to a journal beside the snapshot (one line, fsynced) and writes a new snapshot only when the journal outgrows the old one (mocks/state/). It used to rewrite the whole state for every order: ≈0.5 s per order at 100k.
- A run registers only the commands of the group it names (src/cli/program.ts); \`topup help\`, a mistyped command and completion get the whole tree, and \`--help\` every group's top-level commands without their subcommands, which is all the root help shows (since 2026-11-26: about 9 ms, a quarter of what \`--help\` adds to \`node -e 0\`).

## Where the start-up milliseconds go

CPU profiles (\`node --cpu-prof\`, each sample put on its source module by esbuild's \`// path\` comments in the bundle; several runs summed) of the start-up rows, taken on a shared, loaded machine for issue 25, so shares of topup's own time (beyond \`node -e 0\`) rather than milliseconds. \`node -e 0\` itself is node's bootstrap, about 30 ms of it loading NODE_EXTRA_CA_CERTS where that is set.

- **\`topup packages --json\` against HTTP.** Before issue 25: building the whole commander tree about a fifth (every command's definitions, \`mock\`'s alone 7 %), node:crypto and the streams it loads about an eighth (safe-file and the client's batch keys imported it for temporary names and hashes this command never makes), the ES module loader about a fifth (its own start, then resolving, linking and compiling some twenty lazy chunks). Now a run registers only its command's group, node:crypto loads at first use, and the lazy build is CommonJS: topup's own CPU time is a fifth to a quarter lower (A/B, alternating in the same minute). What remains: node's own modules for the request (http, net, streams, with compiling them: about a third; node:fs/promises, with the readline and streams it brings, loads on first use since 2026-11-26, which this command never makes: about 2 ms, test/package/start-up-loads.test.ts), compiling the bundle's code (a seventh), the CLI's code and commander running (a seventh), garbage collection (a tenth). Round six (2026-11-26): each of the bundle's relative requires of its own chunks went through node's search (a stat, a real path and the package scope per call, about 0.1-0.3 ms here, 41 for this command); the launcher now loads them by their paths inside the bundle (bin/code-cache.js \`requireBundled\`), which took 7 ms off this command and about 5 off the offline one (paired runs, 40-60 pairs).
- **\`topup --mock packages --json\` (offline).** The same savings, then issue 25's second round: the OpenAPI document's modules (52 KB the command never used) left the offline chunks (scripts/cli-bundle.ts \`openApiOnDemand\`); the contract's answer records build their fields the first time zod reads them (\`tolerant()\`), so an offline command builds 385 zod schemas instead of 662; stdout and stderr that are pipes or files are written to their descriptors (src/cli/main.ts: node's stream object for a pipe cost about 7 ms). Profiled before (CPU, medians of 10): zod's chunk 41 ms (zod itself about 24, the rest the contract's common and order schemas), the other contract schemas 22, the sandbox chunk 22, main.cjs 16, the command's synchronous start 19, the client's chunks 12, node:crypto 8 (the state lock's and the token digest's), node's stdout stream 7. What was left then: zod's module and its one-time setup (10–15 ms, now paid by the sandbox's own record schemas, about 209), main.cjs (about 20 ms, commander 10–14 of it), node:crypto (the state file's lock names, its journal id and token digests load it), and some 38 small chunks, each a file to read and compile.
- **Round three (2026-11-26).** Compiling the bundle's modules was the largest single cost left (node's \`wrapSafe\`: about 45 of the offline command's 230 profiled milliseconds). The build now records V8's code cache of every module after running a few commands (scripts/code-cache.mjs), so the cache holds the functions those commands compiled, not only each module's top level, and \`bin/code-cache.js\` compiles with it: 25-35 ms less per offline command (the \`startup.offline-uncached\` row is the same command without it). node:crypto, node:zlib and perf_hooks load at first use (mocks/core/builtins.ts): the lock's temporary name needs to be unique, not unguessable, and @msw/data's key probe is handed a key, so a command that only reads loads none of them (about 8 ms). The bundle is ASCII only: one character in a comment made node read zod's chunk as UTF-16, 5.5 ms instead of 2.1. What is left, profiled: reading and checking the code cache (about 27 ms under the profiler), zod building its schemas (about 20), garbage collection (about 20), node's own modules (about 10), and reading and resolving some 36 files.
- **Round nine (2026-11-27): fresh memory.** This machine is a virtual machine whose kernel is paravirtualised (\`perf\` shows its page-table work as hypercalls), and first touching a page of memory costs about 13 µs: filling a new 7 MB buffer takes 23-29 ms, filling it a second time 0.4 ms. \`node -e 0\` makes 2,144 page faults; the offline command made 5,466 and the command against a server 3,596 (\`perf stat\`), so some 3,300 and 1,450 of them, about 40 and 19 ms at that price, are topup's. \`perf record -e page-faults --call-graph dwarf\`, each fault put on the node function that caused it: node's CommonJS loader reading each module (\`ReadFileUtf8\`: 8 KiB reads appended to a C++ string that grows by copying, then copied into V8) about 570 pages offline, compiling it in node's wrapper (\`Module.wrap\`'s joined string is flattened, one more copy of the whole) about 250, V8 deserialising the code cache about 320, and the rest the heap growing as the modules run, with five scavenges (about 15 ms: nearly everything a command's start allocates survives them). The launcher now reads the bundle's modules itself (bin/code-cache.js \`loadBundled\`, what node's \`Module.prototype.load\` does): one read into bytes it keeps for the next module and cache, behind the wrapper's text, decoded once. 5,466 → 5,030 faults offline, 3,596 → 3,533 against a server; paired runs (40): 5.6 ms less offline, 0.9 ms against a server, 0.7 ms \`--help\`. Tried, no gain: V8's scavenge task off (\`--no-minor-gc-task\`): the same scavenge comes by allocation a little later, and a flag changed at run time makes V8 refuse every code cache; decoding an ASCII state file as Latin-1 (which node makes an external string) instead of UTF-8: no faster at 10k or 100k orders, in either order of the runs.
- **\`--jq\`**: V8 optimising jq's 2.7 MB of WebAssembly in the background cost more than the filter itself; the worker runs it on V8's baseline compiler only (\`--liftoff-only\`), about 17 % less CPU. Turning \`--liftoff-only\` on changed V8's flags for the whole process, and flags are part of what a code cache must match: every module a \`--jq\` command loaded after the worker started (32 of 36) refused its cache. Since 2026-11-26 the flag is turned on through the code cache, which compiles those modules from caches of their own made under it (bin/code-cache.js, \`dist/cli/code-cache/…-liftoff-only/\`): about 14 ms less per \`--jq\` command. What remains is jq itself: a worker thread (a second isolate), compiling 2.7 MB of WebAssembly, and node's built-in modules loaded after the flag changed, which node's own cache then refuses too.
- **What did not help**: a V8 code cache for main.cjs alone, written at run time, saved under 10 % of \`--help\` (the one for every module, made by the build and shipped in the package, above, does help); zod's jitless mode for the whole process saved 3-8 % offline, but every schema of \`topup mock serve\` would then parse without its compiled fast path; since round six only the parse a state's open makes once asks for it (mocks/state/state-schema.ts), the one compiled fast path an offline catalog command used to generate (about 2 ms, paired runs); minifying the bundle's whitespace (27 % fewer bytes to read) saved under 4 ms against a server and under 1 offline, not worth a bundle no one can read. Round eight (paired runs): a code cache recorded from the command against a server alone, without the functions \`--help\` and the offline commands compile, saved 1.1 ms against a server; V8's collector flags cost the offline command 3-7 ms each (one collector thread, no parallel scavenge, a 16 MB young generation: committing fresh pages costs more here than the scavenges it saves); a state in V8's own serialisation format instead of JSON read and parsed in 92 ms against 93 at 10k orders.

## Issue 25: the figures before

Full runs of \`npm run bench\` on 2026-11-26, on the same machine with nothing else running (\`node -e 0\`: 118-123 ms, 75-79 ms in an empty environment): before issue 25 (4220456), after its first round (e543f8b), its second (4ec0a45), its third (dcbc7c7: the code cache, builtins on first use, an ASCII bundle) its fourth (fd4447a: the live stream keeps a reader that reads, the journal's goal as two rows, the root help builds top-level commands only, \`--jq\` reads the code cache, budgets over three runs) and its fifth (4effc8a: a route's records stored without @msw/data's create(), the live stream's batch buffer kept per reader and its entries not kept built, node:fs/promises loaded on first use). The sixth round's column is a full run at 4587707, its first change (the launcher loads the bundle's chunks without node's search); its second (d2229b9: a state's envelope parsed without zod's compiled fast path) saved 2.2 ms offline in paired runs. The seventh round changed the library, not the CLI or the server's request path: topup/mocks' ES build bundles @msw/data (a process that imports it and makes a sandbox: 2.50× a process importing zod alone before, the same procedure run on the tree before; 1.25-1.27× after), the seed is parsed without zod's compiled fast path, and \`createHandlers()\` takes msw's http handlers alone (the msw recipe: 1.38× a process importing zod and msw/node before, 1.16-1.20× after). Its column is the full run at its end (9cdf06b), in a loaded hour (\`node -e 0\` 131.5 ms; bare node:http's own catalog rate 21.7k requests a second, against 30.2k in the run before), so the rows it did not touch moved with the machine; a full run an hour earlier, at e112c10 (\`node -e 0\` 122.7 ms), gave offline start-up 1.98× (empty environment 2.55×), against HTTP 1.49×, catalog, balance and orders 0.92×, 0.85× and 0.44×, the journal 0.99× with no reader and the stream 1.18× of bare node:http's, RSS at 100k 1.78×, \`client.overhead\` 1.13×. The eighth round reads a state file's snapshot in one call instead of the promise API's 512 KiB pieces (about 5 ms off the 10k first load and 25 ms off the 100k open, paired runs), takes the HTTP rows' ratios as the median of each round's own ratio over six alternating 1.5 s rounds (two identical sandboxes came out 1.00-1.02 that way, against 0.99-1.06 as the ratio of the medians of three 3 s rounds), and adds the row of a whole offline command at 10k orders with the state served. Its column is the full run at its end (732026c; \`node -e 0\` 111.6 ms); one twelve minutes earlier at the same commit, before the executable was built (\`node -e 0\` 106.1 ms; a noisier quarter of an hour for the HTTP rows, single rounds of the catalog 0.67-1.35×), gave offline start-up 1.95× (2.64×), against HTTP 1.49×, catalog, balance and orders 0.90×, 0.85× and 0.43×, the journal 0.83× with no reader and the stream 0.83× of bare node:http's, the 100k open 2.73×, RSS at 100k 2.11× (of 109 MB at 100 orders), the embedded 10k load 226 ms, and the live log's p99 48 ms. The ninth round (2026-11-27) found that on this machine first touching a page of memory costs about 13 µs ("Where the start-up milliseconds go"), and took the copies node's CommonJS loader makes of every module out of the launcher (5.6 ms offline, 0.9 ms against a server, paired runs); it also bounds a state journal's size as a state file's. The table above is a full run at its end (bdd4e44; \`node -e 0\` 110.2 ms). One half an hour earlier, at 7b53157 (the launcher's change alone; \`node -e 0\` 112.3 ms, and a noisier quarter of an hour: bare node:http's own order rate 19.7k a second against 30.0k), gave offline start-up 1.93× (2.49×), against HTTP 1.50×, catalog, balance and orders 0.84×, 0.88× and 0.41×, \`client.overhead\` 1.38×, the 100k open 2.74×, RSS at 100k 1.81×, and the embedded 10k load 192 ms (260 ms in the table's run, whose store rows ran in a louder minute). The tenth round (2026-11-27) made nothing faster: it bounds what the sandbox keeps (at most 200,000 invoices, then 507 \`SANDBOX_FULL\`), what the request journal holds (a body past 64 KiB is cut as it is kept) and what the CLI reads whole. It changes what the order rows measure: the rounds of \`POST /me/orders\` together passed 200,000 orders on one sandbox, so each round now starts from a reset sandbox. The HTTP suite alone, run twice in the same hour, gave the 2-connection order row 0.46× with the resets (each round 0.45-0.47) and 0.40× accumulating as before (0.36-0.45, falling as the store grew to some 170,000 orders): from this round on, the row reads about 0.05 higher for the same code. The table above is a full run at its end (aec9e5e; \`node -e 0\` 116.7 ms), in a loud hour: single rounds of the balance row went from 0.56× to 0.97×. A full run twelve minutes earlier, at the same code, was loud in its start-up minutes instead (\`node -e 0\` 115.7 ms; offline start-up 2.07×, against HTTP 1.69×, \`--jq\` 3.95×) and quieter in its HTTP ones (catalog, balance and orders 0.90×, 0.91× and 0.47×, the journal 0.95× with no reader and the stream 0.86×, RSS at 100k 2.09× of 109 MB). Paired runs of the round's tree against the one before it (20 pairs each, in between) found the start-up unchanged: offline 205.4 against 204.8 ms, against a server 158.3 against 158.3 ms (\`node -e 0\` 107 ms). The fifth and sixth ran on a noisier machine (\`node -e 0\`: 127-128 ms): bare node:http's own catalog rate was 24.0k to 30.3k requests a second in that day's full runs, and the two-connection rows moved with it by up to a fifth, while A/B runs of the server's CPU per request showed catalog and balance unchanged. Likewise the start-up rows: the sixth round's 7 ms against a server, measured in paired runs, is inside the spread of two full runs. The journal row of the first four columns was taken with a reader the sandbox had dropped: the journal without a reader, mostly; the fifth and sixth show the rate kept with a reader that got every event, and in brackets the two rows the goal is now judged by.

| Row | Before (4220456) | After round one (e543f8b) | After round two (4ec0a45) | After round three (dcbc7c7) | After round four (fd4447a) | After round five (4effc8a) | After round six (4587707) | After round seven (9cdf06b, a loaded hour) | After round eight (732026c) | After round nine (bdd4e44) |
|---|---|---|---|---|---|---|---|---|---|---|
| offline start-up | 2.81× (empty environment 3.80×) | 2.55× (3.24×) | 2.37× (3.19×) | 2.03× (2.68×) | 2.05× (2.66×) | 2.04× (2.69×) | 2.04× (2.64×) | 2.12× (2.56×) | 1.96× (2.64×) | 1.91× (2.47×) |
| start-up against HTTP | 1.87× | 1.68× | 1.62× | 1.56× | 1.55× | 1.54× | 1.54× | 1.48× | 1.50× | 1.48× |
| \`--help\` / \`--jq\` | 1.40× / 4.49× | 1.34× / 4.58× | 1.34× / 3.86× | 1.29× / 3.65× | 1.23× / 3.58× | 1.19× / 3.57× | 1.22× / 3.69× | 1.22× / 3.78× | 1.20× / 3.50× | 1.20× / 3.40× |
| catalog / balance / \`POST /me/orders\`, 2 connections | 0.55× / 0.69× / 0.28× | 0.53× / 0.63× / 0.29× | 0.71× / 0.82× / 0.40× | 0.84× / 0.81× / 0.36× | 0.88× / 0.85× / 0.39× | 0.80× / 0.67× / 0.44× | 0.87× / 0.91× / 0.44× | 0.83× / 0.66× / 0.40× | 0.90× / 0.91× / 0.47× | 0.88× / 0.89× / 0.46× |
| journal on (no reader in the first column; then a live-stream reader, which the sandbox dropped after its first batch over 1 MiB, so mostly without it) | 0.76× | 0.39× | 0.86× | 0.79× | 0.50× (no reader 0.93×; the stream against bare node:http's 0.71×) | 0.54× (no reader 0.80×; the stream against bare node:http's 0.88×) | 0.52× (no reader 0.89×; the stream against bare node:http's 0.77×) | 0.61× (no reader 0.89×; the stream against bare node:http's 0.91×) | 0.59× (no reader 0.93×; the stream against bare node:http's 0.80×) | 0.54× (no reader 0.92×; the stream against bare node:http's 0.81×) |
| restore from a parsed 100k snapshot | 5.18 s | 1.60 s (2.92× JSON.parse) | 0.67 s (1.14×) | 0.61 s (1.10×) | 0.68 s (1.20×) | 0.69 s (1.12×) | 0.70 s (1.18×) | 0.73 s (1.15×) | 0.62 s (1.24×) | 0.59 s (1.17×) |
| opening the 100k state file | not measured | 2.78 s (5.09×) | 1.62 s (2.74×) | 1.49 s (2.67×) | 1.60 s (2.83×) | 1.69 s (2.75×) | 1.72 s (2.90×) | 1.78 s (2.80×) | 1.49 s (2.97×) | 1.43 s (2.84×) |
| RSS at 100k orders | 280 MB (1.96× of 100) | 275 MB (1.98×) | 234 MB (1.79×) | 235 MB (2.13×) | 228 MB (2.03×) | 228 MB (1.82×) | 230 MB (1.81×) | 228 MB (2.04×) | 232 MB (1.81×) | 229 MB (1.83×) |
| embedded sandbox, 10k orders, per command | not measured | 480 ms | 232 ms | 221 ms | 227 ms | 247 ms | 278 ms | 269 ms | 193 ms | 260 ms (a loud minute; 192 ms in the run at 7b53157) |
| \`client.overhead\` | 1.53× | 1.27× | 1.38× | 1.13× (five rounds, medians apart) | 1.19× (median of 21 paired rounds) | 1.18× (median of 21 paired rounds) | 1.22× (median of 21 paired rounds) | 1.35× (median of 21 paired rounds) | 1.21× (median of 21 paired rounds) | 1.20× (median of 21 paired rounds) |
| a process importing topup/mocks and making a sandbox, against one importing zod alone | not measured | not measured | not measured | not measured | not measured | not measured | 2.50× (the same procedure on the tree at 9f6a115) | 1.25× | 1.27× | 1.31× |

## Notes

${notes}
`;
}
