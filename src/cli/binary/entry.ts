import { run } from '../main.js';

// The single-file executable's launcher, as bin/topup.js is the npm package's (and so, like it, allowed to touch
// process). In a single executable application argv[0] is the executable and argv[1] the name it was called by; the
// arguments follow. --version is commander's here: the whole CLI is one script with its code cache either way.
run(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
