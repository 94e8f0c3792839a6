// @ts-check
// Runs one load test in its own process: node bench/load-worker.mjs '<options as JSON>' → the result as JSON on stdout.
import { runLoad } from './lib/load.mjs';

const result = await runLoad(JSON.parse(process.argv[2] ?? '{}'));
process.stdout.write(JSON.stringify(result));
