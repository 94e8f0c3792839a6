#!/usr/bin/env node
// CommonJS (see bin/package.json), like the CLI's eager bundle: node starts those without its ES module loader.
// `topup --version` is answered here, before anything else loads: scripts call it in loops.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  printVersion();
} else {
  loadCli()
    .run(args)
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}

function printVersion() {
  const { readFileSync, writeSync } = require('node:fs');
  const { version } = JSON.parse(readFileSync(require.resolve('../package.json'), 'utf8'));
  try {
    // Straight to fd 1: building process.stdout costs more than the rest of this command.
    writeSync(1, `${version}\n`);
  } catch (error) {
    if (error.code === 'EAGAIN') process.stdout.write(`${version}\n`);
    else if (error.code !== 'EPIPE') throw error;
  }
}

/** The built CLI; a clone that was installed but not built gets one sentence, not a stack trace. */
function loadCli() {
  // Before the bundle's first module: each of them is compiled with its cached code (bin/code-cache.js).
  const codeCache = require('./code-cache.js');
  codeCache.useCodeCache(require('node:path').join(__dirname, '..', 'dist', 'cli'));
  try {
    return codeCache.requireBundle(module, '../dist/cli/main.cjs');
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('main.cjs')) throw error;
    process.stderr.write('topup is not built yet: run `npm run build` in its folder first.\n');
    process.exit(1);
  }
}
