// Builds dist/cli/code-cache/: the V8 code cache that bin/code-cache.js compiles the CLI's modules with. It runs the
// built CLI on the commands below, in a fresh config folder that is removed after, each run adding the functions it
// compiled to the cache of each module it loaded. The last command is the one users meet first: the offline catalog.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMMANDS = [['--help'], ['--mock', 'balance', '--json'], ['--mock', 'packages', '--json']];

/**
 * Turns recording on, then runs the launcher (argv[1]; its arguments follow), whose own useCodeCache() finds it on.
 * Only a build can turn it on: an installed topup only ever reads its cache.
 */
const RECORD = `
  require(${JSON.stringify(join(root, 'bin', 'code-cache.js'))}).useCodeCache(${JSON.stringify(join(root, 'dist', 'cli'))}, { record: true });
  require(process.argv[1]);
`;

rmSync(join(root, 'dist', 'cli', 'code-cache'), { recursive: true, force: true });
const home = mkdtempSync(join(tmpdir(), 'topup-code-cache-'));
try {
  for (const args of COMMANDS) {
    const run = spawnSync(process.execPath, ['-e', RECORD, join(root, 'bin', 'topup.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TOPUP_CONFIG_DIR: join(home, 'topup'), NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) {
      process.stderr.write(`code cache: \`topup ${args.join(' ')}\` failed (${run.status ?? run.signal}): ${run.stderr.slice(0, 500)}\n`);
      process.exit(1);
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
