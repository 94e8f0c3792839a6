import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * The single-file executable, made the way Node's documentation for single executable applications gives it: a
 * preparation blob of the bundled CLI and its assets, injected with postject into a copy of the node binary that
 * runs the build. So it is built for the OS and CPU it is built on: a macOS or Windows executable is built on macOS
 * or Windows with the same command (docs/install.md).
 */

const ROOT = new URL('../../', import.meta.url).pathname;
export const BUNDLE_DIR = 'build/sea';
export const BUNDLE_NAME = 'topup';
/** Where `npm run build:binary` leaves the executable. */
export const BINARY = join('build', process.platform === 'win32' ? 'topup.exe' : 'topup');
/** The fuse postject flips in node's binary, named in Node's documentation. */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const requireFromRoot = createRequire(join(ROOT, 'package.json'));

/** src/cli/binary/jq-engine.ts in place of src/cli/io/jq-engine.ts, for the one module that loads it. */
export function jqEngineFromAssets(): Plugin {
  return {
    name: 'jq-engine-from-assets',
    setup(build) {
      let replaced = false;
      build.onResolve({ filter: /^\.\/jq-engine\.js$/ }, (args) => {
        if (!args.importer.endsWith(join('src', 'cli', 'io', 'jq-worker.ts'))) return undefined;
        replaced = true;
        return { path: join(ROOT, 'src', 'cli', 'binary', 'jq-engine.ts') };
      });
      build.onEnd((result) => {
        if (result.errors.length === 0 && !replaced)
          throw new Error('jq-engine-from-assets: src/cli/io/jq-worker.ts no longer imports ./jq-engine.js; update scripts/binary/sea.ts');
      });
    },
  };
}

/**
 * jq-web's script calls its module factory with nothing, so that it reads jq.wasm from beside itself. The one call
 * is given `topupJqModule` instead (src/cli/io/jq-worker.ts passes `{ wasmBinary }` under that name). The build fails
 * if jq-web's script changes shape.
 */
export function jqWebForAssets(source: string): string {
  const call = 'jq = jq().then(';
  if (source.indexOf(call) === -1 || source.indexOf(call) !== source.lastIndexOf(call))
    throw new Error(`jq-web's jq.js no longer has one \`${call}\`; update scripts/binary/sea.ts`);
  return source.replace(call, 'jq = jq(topupJqModule).then(');
}

interface Postject {
  inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string; machoSegmentName?: string }): Promise<void>;
}

/** tsup's onSuccess for scripts/binary/tsup.config.ts: the bundle it just wrote → the executable. */
export async function assembleBinary(): Promise<void> {
  const dir = join(ROOT, BUNDLE_DIR);
  const binary = join(ROOT, BINARY);
  const jqWeb = requireFromRoot.resolve('jq-web');
  writeFileSync(join(dir, 'jq-web.js'), jqWebForAssets(readFileSync(jqWeb, 'utf8')));
  const config = {
    main: join(dir, `${BUNDLE_NAME}.cjs`),
    output: join(dir, `${BUNDLE_NAME}.blob`),
    // Every run would otherwise print node's ExperimentalWarning on stderr.
    disableExperimentalSEAWarning: true,
    // V8's compiled code rides along: start-up then skips compiling the bundle (bench: startup.binary).
    useCodeCache: true,
    assets: { 'jq-web.js': join(dir, 'jq-web.js'), 'jq.wasm': join(jqWeb, '..', 'jq.wasm') },
  };
  writeFileSync(join(dir, 'sea-config.json'), JSON.stringify(config, null, 2));
  run(process.execPath, ['--experimental-sea-config', join(dir, 'sea-config.json')]);

  // Made under another name and renamed once it runs: a failed build never leaves a plain node copy as build/topup.
  const postject = loadPostject();
  // The extension stays last: Windows runs only a file named .exe.
  const made = join(binary, '..', `partial-${basename(binary)}`);
  rmSync(made, { force: true });
  mkdirSync(join(binary, '..'), { recursive: true });
  copyFileSync(process.execPath, made);
  chmodSync(made, 0o755);
  // macOS: node's signature no longer fits once the blob is in; removed first, an ad-hoc one added after.
  if (process.platform === 'darwin') run('codesign', ['--remove-signature', made]);
  // On Linux postject's LIEF prints `warning: Can't find string offset for section name '.note.100'` a few times; the
  // injection is sound all the same, and the --version check below runs the result.
  await postject.inject(made, 'NODE_SEA_BLOB', readFileSync(config.output), {
    sentinelFuse: SENTINEL_FUSE,
    ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  if (process.platform === 'darwin') run('codesign', ['--sign', '-', made]);

  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const check = spawnSync(made, ['--version'], { encoding: 'utf8', env: {} });
  if (check.stdout !== `${version}\n`)
    throw new Error(`${relative(ROOT, made)} --version printed ${JSON.stringify(check.stdout)} (${check.stderr.trim()})`);
  renameSync(made, binary);
  process.stderr.write(
    `build:binary: ${relative(ROOT, binary)} (topup ${version}, node ${process.version}, ${process.platform}-${process.arch})\n`,
  );
}

/** postject: a dev dependency, so only a clone that ran npm install has it. */
function loadPostject(): Postject {
  try {
    return requireFromRoot('postject') as Postject;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error('postject is missing: run npm install (it is a dev dependency) before npm run build:binary', { cause: error });
  }
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.error?.message}): ${result.stderr}${result.stdout}`);
}
