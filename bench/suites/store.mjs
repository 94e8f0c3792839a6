// @ts-check
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callerEnvironment, freePort, ROOT, runWorker, startCommand } from '../lib/processes.mjs';
import { buildScaleSnapshot } from '../lib/scale-store.mjs';
import { median } from '../lib/stats.mjs';

const FRESH_SANDBOXES = 300;
const EMBEDDED_ORDERS = 10_000;

/**
 * The sandbox's store as a library user and the offline CLI meet it: a fresh `createSandbox()`, and the embedded
 * sandbox's load of its state file per operation, each in a process of its own (bench/store-worker.mjs).
 * @param {import('../lib/types.js').SuiteOptions} options
 * @returns {Promise<import('../lib/types.js').Row[]>}
 */
export async function store({ quick, log }) {
  const rounds = quick ? 1 : 3;
  /** @type {number[]} */
  const fresh = [];
  for (let round = 0; round < rounds; round++) {
    const { times } = /** @type {{ times: number[] }} */ (await runWorker('store-worker.mjs', { mode: 'fresh', count: FRESH_SANDBOXES }));
    fresh.push(median(times));
  }
  const freshMs = median(fresh);
  log(`store: a fresh createSandbox() ${freshMs.toFixed(3)} ms (median of ${FRESH_SANDBOXES})`);

  const dir = mkdtempSync(join(tmpdir(), 'topup-bench-embedded-'));
  /** @type {Record<'catalog' | 'orders', { first: number[], again: number[] }>} */
  const sessions = { catalog: { first: [], again: [] }, orders: { first: [], again: [] } };
  /** @type {{ embeddedMs: number, servedMs: number, runs: number }} */
  let command;
  try {
    const built = await buildScaleSnapshot({ accounts: 100, orders: EMBEDDED_ORDERS });
    const text = JSON.stringify({ ...built.snapshot, journal_id: 'bench' });
    const file = join(dir, 'state.json');
    await writeSandboxStateFile(file, text);
    command = await timeServedCommand(quick, text);
    for (let round = 0; round < rounds; round++)
      for (const request of /** @type {const} */ (['catalog', 'orders'])) {
        const measured = /** @type {{ first: number, times: number[] }} */ (
          await runWorker('store-worker.mjs', { mode: 'session', file, request, count: quick ? 20 : 100 })
        );
        sessions[request].first.push(measured.first);
        sessions[request].again.push(median(measured.times));
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const firstMs = median(sessions.catalog.first);
  const againMs = median(sessions.catalog.again);
  const historyMs = median(sessions.orders.first);
  const historyAgainMs = median(sessions.orders.again);
  log(
    `store: embedded sandbox at ${EMBEDDED_ORDERS} orders: first catalog request ${firstMs.toFixed(1)} ms, each after ${againMs.toFixed(2)} ms; first orders list ${historyMs.toFixed(1)} ms, each after ${historyAgainMs.toFixed(2)} ms; \`${OFFLINE_COMMAND.join(' ')}\` ${command.embeddedMs.toFixed(0)} ms, ${command.servedMs.toFixed(0)} ms while served (medians of ${command.runs})`,
  );
  const size = EMBEDDED_ORDERS.toLocaleString('en-US');
  const firstSandbox = timeTestFiles(quick);
  log(
    `store: import topup/mocks and a first createSandbox() ${firstSandbox.ms.toFixed(1)} ms, a process importing zod alone ${firstSandbox.zodMs.toFixed(1)} ms; the msw recipe ${firstSandbox.mswMs.toFixed(1)} ms, zod and msw/node alone ${firstSandbox.zodMswMs.toFixed(1)} ms (medians of ${firstSandbox.runs})`,
  );
  return [
    testFileRow({
      id: 'store.first-sandbox',
      measure: "A bot's test file: a process that imports topup/mocks (its ES build) and makes its first `createSandbox()`",
      ms: firstSandbox.ms,
      baseline: 'a process that imports zod alone, the one package topup/mocks loads',
      baselineMs: firstSandbox.zodMs,
      // 2.50× before @msw/data was bundled (2026-11-26, the same procedure on the tree before); 1.25-1.34× in six runs
      // since: a margin over them.
      limit: 1.5,
      note: "Wall time of whole processes, each in turn with the baseline. Test runners give every test file a process (or a fresh module graph) of its own, so each file pays this. @msw/data imported as a package brought es-toolkit's and es-toolkit/compat's indexes, some 550 ES modules: about 350 ms of every such process here. The library build bundles @msw/data (tsup.config.ts BUNDLED_DEPENDENCIES) and keeps only the few functions it uses (test/package/library-loads.test.ts); zod stays the user's own. What remains beyond zod: the sandbox's modules, the contract's schemas that createSandbox() loads before its first answer (a query's, an order body's), and the first sandbox building and checking the seed, which later ones copy. For a few hours on 2026-11-27 createSandbox() loaded those schemas on first need, like the offline CLI's embedded sandbox still does: 184 ms and 0.79× in that full run, but a test's first request then waited for them, and its answers could come in another order than later ones'.",
    }),
    testFileRow({
      id: 'store.first-sandbox-msw',
      measure:
        "A bot's test file with the msw recipe (docs/testing-your-bot.md): imports msw/node and topup/mocks, `createHandlers()` of a first sandbox, one request through msw",
      ms: firstSandbox.mswMs,
      baseline: 'a process that imports zod and msw/node alone',
      baselineMs: firstSandbox.zodMswMs,
      // 1.38× before createHandlers took msw's http handlers alone (2026-11-26, @msw/data already bundled; the same
      // procedure on the tree before), 1.16-1.20× in three runs since: a margin over them, under what it was.
      limit: 1.35,
      note: "As the row above, with msw. createHandlers() requires msw's own `msw/core/http` export, only the http handlers it uses: msw's index also loads its GraphQL and WebSocket handlers with the graphql package, about 100 ms of every such test file beyond what msw/node loads (test/package/library-loads.test.ts). Beyond the baseline: topup/mocks itself (about 90 ms: its modules, and the first sandbox building its seed), the undici Response classes the first answer loads, and msw intercepting the request.",
    }),
    {
      id: 'store.create',
      group: 'Store',
      measure: `A fresh \`createSandbox()\` (seeded): median of ${FRESH_SANDBOXES} in one process`,
      value: freshMs,
      display: `${freshMs.toFixed(3)} ms`,
      unit: 'ms',
      budget: { op: '<', limit: 1, of: 'value', text: '< 1 ms' },
      note: "The seed is built and checked once per process; each sandbox gets copies of its records (mocks/store/seed.ts), which skip @msw/data's validation and copying of values.",
    },
    {
      id: `store.embedded.${EMBEDDED_ORDERS}`,
      group: 'Store',
      // The goal is per command, and every command is a process of its own: its first operation is what it pays.
      measure: `The offline CLI's embedded sandbox, ${size} orders in its state file: load per command that reads no history (\`packages\`, \`me\`, \`balance\` with nothing due; a process's first operation, one catalog request)`,
      value: firstMs,
      display: `${firstMs.toFixed(1)} ms`,
      unit: 'ms',
      baseline: 'each later operation of the same process (`orders batch --mock`, `--wait`)',
      baselineValue: againMs,
      baselineDisplay: `${againMs.toFixed(2)} ms`,
      budget: { op: '<=', limit: 30, of: 'value', text: '≤ 30 ms' },
      note: "The state file as the sandbox writes it (bench/store-worker.mjs `rewrite`): its history (orders, invoices, deposits, transactions, idempotency keys, 99% of its 7 MB here) last, and FILE.layout beside it saying where that begins, for that file alone (device, inode, size, times: mocks/state/state-layout.ts). A request that reads no history has the head read, parsed, checked and restored (some 50 KB); the history stays unread unless a later request needs it. Each operation takes the state file's lock and lets it go after; the sandbox stays in memory between the operations of one process while the files are as this process left them (mocks/state/file.ts), the baseline's figure. The worker compiles the bundle's modules with the CLI's code cache, as a command does (since 2026-11-28; before, a first operation also compiled the state's read, check and restore from source, which no command pays: 21-31 ms in single runs at this size, 13-17 ms with the cache). Before 2026-11-28 every command read the whole file: 192-278 ms in full runs (the next row's first figure is that path still).",
    },
    {
      id: `store.embedded.${EMBEDDED_ORDERS}.history`,
      group: 'Store',
      measure: `The same, a command that reads the history (\`orders list\`: a process's first operation, the first page of orders)`,
      value: historyMs,
      display: `${historyMs.toFixed(0)} ms`,
      unit: 'ms',
      baseline: 'each later operation of the same process',
      baselineValue: historyAgainMs,
      baselineDisplay: `${historyAgainMs.toFixed(2)} ms`,
      note: "The whole state file read, parsed, checked and restored, then the request answered: mostly reading, decoding and JSON.parse of the 7 MB file (about 55 ms on the quiet machine on their own; first touching each page of memory costs some 13 µs here) and the state's check; the restore is the smaller part (one pass: mocks/store/table.ts insertCheckedAll). A state from a stranger is checked whole when it is opened; reading this faster needs a format that opens without a whole parse. For a script that runs many such commands, the next row.",
    },
    {
      id: `store.embedded.${EMBEDDED_ORDERS}.served`,
      group: 'Store',
      measure: `The offline CLI at ${size} orders, a whole command (\`topup ${OFFLINE_COMMAND.join(' ')}\`) while \`topup mock serve\` serves the config folder's sandbox`,
      value: command.servedMs,
      display: `${command.servedMs.toFixed(0)} ms`,
      unit: 'ms',
      baseline: 'the same command with nothing served: the embedded sandbox reads the whole state file itself',
      baselineValue: command.embeddedMs,
      baselineDisplay: `${command.embeddedMs.toFixed(0)} ms`,
      ratio: command.servedMs / command.embeddedMs,
      note: "What a script that runs many commands that read the history on a large offline state can do about the row above (docs/sandbox.md, One sandbox from every terminal): a plain `topup mock serve` holds the config folder's sandbox in memory and announces itself, and every command that would use the embedded sandbox (`--mock`, or nothing configured) answers from it over HTTP instead of loading the state. (Until 2026-11-28 this row timed `topup --mock packages --json`, which read the whole state then: 437 ms embedded, 191 ms served in the last run so.) Wall time of whole processes in the caller's environment, the embedded runs first, then the served ones (`--no-rate-limit`), each command checked for the notice that names who answered.",
    },
  ];
}

/**
 * A state file as the sandbox writes one when its journal becomes a snapshot (history last, with its layout), from a
 * snapshot's text: what a config folder holds after a sandbox grew to it.
 * @param {string} file
 * @param {string} text
 */
async function writeSandboxStateFile(file, text) {
  writeFileSync(file, text, { mode: 0o600 });
  await runWorker('store-worker.mjs', { mode: 'rewrite', file });
}

/** A command that reads the history (the embedded sandbox reads the whole state file for it): what serving saves. */
const OFFLINE_COMMAND = ['--mock', 'orders', 'list', '--json'];

/**
 * `topup --mock orders list --json` on a config folder whose embedded sandbox holds `stateText`: loading it per
 * command, then while a plain `topup mock serve` serves that folder. Medians of whole processes.
 * @param {boolean} quick
 * @param {string} stateText
 */
async function timeServedCommand(quick, stateText) {
  const runs = quick ? 2 : 10;
  const warmups = 1;
  const configDir = mkdtempSync(join(tmpdir(), 'topup-bench-served-'));
  const env = { ...callerEnvironment(), TOPUP_CONFIG_DIR: configDir };
  const bin = join(ROOT, 'bin', 'topup.js');
  /** @param {RegExp} notice who must have answered, by the notice on stderr */
  const time = (notice) => {
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < warmups + runs; i++) {
      const startedAt = process.hrtime.bigint();
      const result = spawnSync(process.execPath, [bin, ...OFFLINE_COMMAND], { cwd: ROOT, env, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
      if (result.status !== 0 || !notice.test(result.stderr) || !Array.isArray(JSON.parse(result.stdout).orders))
        throw new Error(`store: \`topup ${OFFLINE_COMMAND.join(' ')}\` failed (${result.status}): ${result.stderr.slice(0, 300)}`);
      if (i >= warmups) times.push(ms);
    }
    return median(times);
  };
  try {
    await writeSandboxStateFile(join(configDir, 'sandbox-state.json'), stateText);
    const embeddedMs = time(/^Using the embedded offline sandbox/m);
    const port = await freePort();
    const server = await startCommand(
      process.execPath,
      [bin, 'mock', 'serve', '--port', String(port), '--no-rate-limit'],
      `http://127.0.0.1:${port}/api/v1/catalog/credit-packages`,
      { env },
    );
    try {
      return { embeddedMs, servedMs: time(/^Using the sandbox served at /m), runs };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

/**
 * A row of timeTestFiles(): a test file's process against its baseline process, judged by their ratio.
 * @param {{ id: string, measure: string, ms: number, baseline: string, baselineMs: number, limit: number, note: string }} row
 * @returns {import('../lib/types.js').Row}
 */
function testFileRow({ id, measure, ms, baseline, baselineMs, limit, note }) {
  return {
    id,
    group: 'Store',
    measure,
    value: ms,
    display: `${ms.toFixed(1)} ms`,
    unit: 'ms',
    baseline,
    baselineValue: baselineMs,
    baselineDisplay: `${baselineMs.toFixed(1)} ms`,
    ratio: ms / baselineMs,
    budget: { op: '<=', limit, of: 'ratio' },
    note,
  };
}

/**
 * Wall time of whole processes as a bot's test files are: one that imports topup/mocks' ES build and makes a
 * sandbox, and one that also serves it through msw as docs/testing-your-bot.md does (msw/node, createHandlers, a
 * request), each run in turn with its baseline, which imports what it must share with the user (zod; zod and
 * msw/node); medians.
 * @param {boolean} quick
 */
function timeTestFiles(quick) {
  const runs = quick ? 3 : 20;
  const warmups = quick ? 1 : 3;
  const entry = JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'mocks.js')).href);
  const scripts = {
    sandbox: `const { createSandbox } = await import(${entry}); const sandbox = await createSandbox(); process.stdout.write(String(sandbox.fixtures().accounts.length));`,
    zod: `const { z } = await import('zod'); process.stdout.write(String(z.string().parse('1').length));`,
    msw: `const { setupServer } = await import('msw/node'); const { createHandlers, createSandbox } = await import(${entry});
      const server = setupServer(...createHandlers(await createSandbox(), { baseUrl: 'https://shop.example.com' }));
      server.listen({ onUnhandledRequest: 'error' });
      const answer = await fetch('https://shop.example.com/api/v1/catalog/credit-packages');
      process.stdout.write(String((await answer.json()).data.packages.length));
      server.close();`,
    zodMsw: `const { z } = await import('zod'); const { setupServer } = await import('msw/node'); process.stdout.write(String(typeof setupServer === 'function' ? z.string().parse('1').length : 0));`,
  };
  /** @type {Record<keyof typeof scripts, number[]>} */
  const times = { sandbox: [], zod: [], msw: [], zodMsw: [] };
  const names = /** @type {(keyof typeof scripts)[]} */ (Object.keys(scripts));
  for (let i = 0; i < warmups + runs; i++) {
    for (const name of i % 2 ? names : [...names].reverse()) {
      const startedAt = process.hrtime.bigint();
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', scripts[name]], { cwd: ROOT, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
      if (result.status !== 0 || !/^[1-9]\d*$/.test(result.stdout))
        throw new Error(`store: the ${name} process failed (${result.status}): ${result.stderr.slice(0, 300)}`);
      if (i >= warmups) times[name].push(ms);
    }
  }
  return {
    runs,
    ms: median(times.sandbox),
    zodMs: median(times.zod),
    mswMs: median(times.msw),
    zodMswMs: median(times.zodMsw),
  };
}
