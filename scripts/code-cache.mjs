// Builds dist/cli/code-cache/: the V8 code cache that bin/code-cache.js compiles the CLI's modules with. It runs the
// built CLI on the commands below, in a fresh config folder that is removed after, each run adding the functions it
// compiled to the cache of each module it loaded. One command is sent to a served sandbox (the bundle's own, started
// here), so that the HTTP client's modules are cached too; one uses --jq. The offline catalog is the one users meet first.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** @param {string} served the served sandbox's URL */
const commands = (served) => [
  // Each lazy file's own cache, for what loads one outside the packs (scripts/cli-packs.mjs): `--jq` loads some of
  // their members before any pack, and without the packs every file needs its own.
  { args: ['--mock', 'packages', '--json'], packs: false },
  { args: ['--help'] },
  { args: ['--base-url', served, 'packages', '--json'] },
  { args: ['--mock', 'balance', '--json'] },
  { args: ['--mock', 'packages', '--json'] },
  // --jq turns V8's --liftoff-only on (src/cli/io/jq-worker.ts): the modules loaded after it get caches of their own.
  { args: ['--mock', 'packages', '--jq', '.packages[0].code'] },
];

/**
 * Turns recording on, then runs the launcher (argv[1]; its arguments follow), whose own useCodeCache() finds it on.
 * Only a build can turn it on: an installed topup only ever reads its cache.
 */
const record = (options = {}) => `
  require(${JSON.stringify(join(root, 'bin', 'code-cache.js'))}).useCodeCache(${JSON.stringify(join(root, 'dist', 'cli'))}, ${JSON.stringify({ record: true, ...options })});
  require(process.argv[1]);
`;

rmSync(join(root, 'dist', 'cli', 'code-cache'), { recursive: true, force: true });
const home = mkdtempSync(join(tmpdir(), 'topup-code-cache-'));
/**
 * The bundle's own served sandbox, as `topup mock serve` starts it (bench/servers/sandbox.mjs does the same).
 * @type {{ createSandbox: () => Promise<unknown>, startHttpSandbox: (sandbox: unknown, options: { port: number, host: string }) => Promise<{ url: string, close: () => Promise<void> }> }}
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- a built bundle, without types: the annotation above is its shape
const served = createRequire(import.meta.url)(join(root, 'dist', 'cli', 'lazy', 'mocks', 'facade', 'serve.cjs'));
const server = await served.startHttpSandbox(await served.createSandbox(), { port: 0, host: '127.0.0.1' });
try {
  for (const { args, packs } of commands(server.url)) {
    const options = packs === undefined ? {} : { packs };
    await promisify(execFile)(process.execPath, ['-e', record(options), join(root, 'bin', 'topup.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TOPUP_CONFIG_DIR: join(home, 'topup'), NO_COLOR: '1' },
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((/** @type {{ code?: number, signal?: string, stderr?: string }} */ error) => {
      throw new Error(`\`topup ${args.join(' ')}\` failed (${error.code ?? error.signal}): ${String(error.stderr).slice(0, 500)}`);
    });
  }
} catch (error) {
  process.stderr.write(`code cache: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
