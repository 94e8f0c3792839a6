// @ts-check
// Preloaded into a CLI process by the batch benchmark (node --import): writes its peak resident set size, in
// kilobytes, to the file named by BENCH_MAX_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.BENCH_MAX_RSS_FILE ?? '', String(process.resourceUsage().maxRSS)));
