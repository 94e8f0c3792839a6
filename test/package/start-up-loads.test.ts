import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { baseEnv, BINARY, ensureBuilt, ROOT } from '../e2e/built-cli.js';
import { tempConfigDir } from '../support/fake-io.js';

/*
 * What a command loads is most of what its start costs (BENCHMARKS.md, CLI start-up). These keep out what the
 * start-up work took out of commands that do not need it: node's undici (fetch's Request and Response: some 18 ms to
 * load, and a wait at exit while V8 optimises its WebAssembly parser), node:fs/promises where none of our files is
 * opened, and the sandbox where a server answers.
 */
describe.skipIf(BINARY !== undefined)('what a command of the built CLI loads', () => {
  let served: HttpSandbox;
  let config: ReturnType<typeof tempConfigDir>;
  let preload: string;

  beforeAll(async () => {
    ensureBuilt();
    config = tempConfigDir();
    preload = join(config.dir, 'record-loads.cjs');
    // Run before topup, in its process: at exit, node's own modules it loaded and the files it required.
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADS_FILE, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache) })));\n`,
    );
    served = await startHttpSandbox(await createSandbox(), { port: 0 });
  });
  afterAll(async () => {
    await served?.close();
    config?.cleanup();
  });

  /** Runs topup with `args` (the sandbox it may ask answers in this process: never a blocking spawn) and returns what it loaded. */
  async function loadsOf(
    args: string[],
    printed: (stdout: string) => void = (stdout) =>
      expect((JSON.parse(stdout) as { packages: unknown[] }).packages.length).toBeGreaterThan(0),
  ): Promise<{ builtins: string[]; files: string[] }> {
    const file = join(config.dir, `loads-${args.length}-${Date.now()}.json`);
    const run = await promisify(execFile)(process.execPath, ['-r', preload, join(ROOT, 'bin', 'topup.js'), ...args], {
      env: { ...baseEnv(config.dir), LOADS_FILE: file },
      encoding: 'utf8',
      timeout: 30_000,
    });
    // It printed what it was asked for (the catalog, unless told otherwise).
    printed(run.stdout);
    return JSON.parse(readFileSync(file, 'utf8')) as { builtins: string[]; files: string[] };
  }

  const UNDICI = 'NativeModule internal/deps/undici/undici';
  const FS_PROMISES = 'NativeModule internal/fs/promises';
  /** node:os (the config folder's name needs it only without HOME) and node:module with the ES module loader it starts. */
  const NOT_NEEDED = ['NativeModule os', 'NativeModule module', 'NativeModule internal/modules/esm/loader'];

  it('a command against a server loads neither undici, nor node:fs/promises, nor the sandbox, nor node:os or node:module', async () => {
    const { builtins, files } = await loadsOf(['--base-url', served.url, 'packages', '--json']);
    // The recorder sees what it should: node's HTTP client did load.
    expect(builtins).toContain('NativeModule _http_client');
    expect(builtins).not.toContain(UNDICI);
    expect(builtins).not.toContain(FS_PROMISES);
    expect(builtins.filter((name) => NOT_NEEDED.includes(name))).toEqual([]);
    const sandboxEntries = files.filter((file) => file.includes(`${sep}dist${sep}cli${sep}lazy${sep}mocks${sep}`));
    expect(sandboxEntries).toEqual([]);
  });

  it('a command against a server reads one file of the bundle: the client and its fetch are in the eager part', async () => {
    const { files } = await loadsOf(['--base-url', served.url, 'packages', '--json']);
    // Each lazy file is read and compiled on its own: as some 25 small ones, the client cost about 15 ms a command.
    const bundle = files.filter((file) => file.includes(`${sep}dist${sep}cli${sep}`)).map((file) => file.slice(file.lastIndexOf(sep) + 1));
    expect(bundle).toEqual(['main.cjs']);
  });

  it('an offline command loads the embedded sandbox, and no undici, node:fs/promises, node:os or node:module', async () => {
    const { builtins, files } = await loadsOf(['--mock', 'packages', '--json']);
    expect(files.some((file) => file.includes(`${sep}dist${sep}cli${sep}lazy${sep}mocks${sep}`))).toBe(true);
    expect(builtins).not.toContain(UNDICI);
    // The state's files are opened through node:fs's callbacks (src/open-file.ts): the promise API brings ten modules.
    expect(builtins).not.toContain(FS_PROMISES);
    expect(builtins.filter((name) => NOT_NEEDED.includes(name))).toEqual([]);
  });

  /** The bundle's files that hold zod (esbuild names each module it bundles in a comment). */
  const withZod = (files: string[]) =>
    files.filter((file) => file.includes(`${sep}dist${sep}cli${sep}`) && readFileSync(file, 'utf8').includes('// node_modules/zod/'));

  it('an offline read without a query builds no zod schema: zod is not even loaded', async () => {
    const { files } = await loadsOf(['--mock', 'packages', '--json']);
    expect(withZod(files)).toEqual([]);
  });

  it('an offline list with a query loads zod, for its query parameters (the check above sees it)', async () => {
    const { files } = await loadsOf(['--mock', 'orders', 'list', '--json'], (stdout) =>
      expect(JSON.parse(stdout)).toHaveProperty('orders'),
    );
    expect(withZod(files).length).toBeGreaterThan(0);
  });
});
