import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';

/*
 * bin/code-cache.js: the built CLI's modules compiled with the V8 code cache the build made (scripts/code-cache.mjs).
 * Each run here is a fresh node on the built CLI, as a user's command is. A probe preloaded into it (node -r) reports,
 * at exit, what the launcher's code cache did: how many modules it compiled from an accepted cache, from a refused
 * one, or from source because there was none. The commands' output must not depend on any of it.
 */

const BUNDLE = join(ROOT, 'dist', 'cli');
const BIN = join(ROOT, 'bin', 'topup.js');
const codeCache = createRequire(import.meta.url)(join(ROOT, 'bin', 'code-cache.js')) as { cacheFolder: (bundle: string) => string };
const cacheFolder = (bundle: string) => codeCache.cacheFolder(bundle);

interface Counts {
  accepted: number;
  rejected: number;
  missing: number;
  /** Modules run from a pack (scripts/cli-packs.mjs), compiled with it. */
  packed: number;
}

let work: string;
let probe: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-code-cache-'));
  probe = join(work, 'probe.cjs');
  writeFileSync(
    probe,
    `process.on('exit', () => {
      const compile = require('node:module').prototype._compile;
      process.stderr.write('\\nCODE-CACHE ' + JSON.stringify(compile[Symbol.for('topup.codeCache')] ?? null) + '\\n');
    });\n`,
  );
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `node -r probe <launcher> args`: the output, and what the code cache did (null: it was not used). */
function run(launcher: string, args: string[], env: Record<string, string> = {}, nodeOptions: string[] = []) {
  const home = mkdtempSync(join(work, 'home-'));
  const result = spawnSync(process.execPath, [...nodeOptions, '-r', probe, launcher, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, TOPUP_CONFIG_DIR: join(home, 'topup'), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const report = /\nCODE-CACHE (.*)\n$/.exec(result.stderr);
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    counts: JSON.parse(report?.[1] ?? 'undefined') as Counts | null,
  };
}

/** A copy of the package's bin/ and dist/cli/ (the CLI bundles its dependencies), to damage. */
function copyOfTheCli(): { launcher: string; cache: string } {
  const root = mkdtempSync(join(work, 'tree-'));
  cpSync(join(ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  cpSync(BUNDLE, join(root, 'dist', 'cli'), { recursive: true });
  return { launcher: join(root, 'bin', 'topup.js'), cache: cacheFolder(join(root, 'dist', 'cli')) };
}

const OFFLINE = ['--mock', 'packages', '--json'];

/**
 * The offline command without the code cache, then with it, each with a probe preloaded that counts the calls of
 * `module`'s function `fn` whose arguments (`args`) pass `matches` (a JavaScript expression), and reports the count
 * at exit under `label`.
 */
function offlineCounting(label: string, module: string, fn: string, matches: string) {
  const probe = join(work, `${label}-probe.cjs`);
  writeFileSync(
    probe,
    `const target = require(${JSON.stringify(module)});
    let count = 0;
    const original = target.${fn};
    target.${fn} = function (...args) {
      if (${matches}) count += 1;
      return original.apply(this, args);
    };
    process.on('exit', () => process.stderr.write('\\n${label} ' + count + '\\n'));\n`,
  );
  const counted = (result: ReturnType<typeof run>) => ({
    ...result,
    calls: Number(new RegExp(`\n${label} (\\d+)\n`).exec(result.stderr)?.[1]),
  });
  return {
    uncached: counted(run(BIN, OFFLINE, { TOPUP_DISABLE_CODE_CACHE: '1' }, ['-r', probe])),
    cached: counted(run(BIN, OFFLINE, {}, ['-r', probe])),
  };
}

/** What offlineCounting counted: more than 20 calls without the code cache, none with it, and the same output. */
function expectOnlyWithoutTheCache(counted: ReturnType<typeof offlineCounting>) {
  const { uncached, cached } = counted;
  expect(uncached.code).toBe(0);
  expect(uncached.calls).toBeGreaterThan(20);
  expect(cached.code).toBe(0);
  expect(cached.calls).toBe(0);
  expect(cached.counts).toMatchObject({ rejected: 0, missing: 0 });
  expect(cached.stdout).toBe(uncached.stdout);
  return counted;
}

describe('the code cache', () => {
  let plain: ReturnType<typeof run>;
  beforeAll(() => {
    plain = run(BIN, OFFLINE, { TOPUP_DISABLE_CODE_CACHE: '1' });
  });

  it('the build made one for this V8, and a command compiles every module it loads from it', () => {
    expect(statSync(cacheFolder(BUNDLE)).isDirectory()).toBe(true);
    const cached = run(BIN, OFFLINE);
    expect(cached.code).toBe(0);
    expect(cached.counts).toEqual({ accepted: expect.any(Number), rejected: 0, missing: 0, packed: expect.any(Number) });
    // main.cjs and the packs (scripts/cli-packs.mjs) from the cache, and the modules inside the packs with them.
    expect(cached.counts!.accepted).toBeGreaterThan(2);
    expect(cached.counts!.packed).toBeGreaterThan(10);
    expect(cached.stdout).toBe(plain.stdout);
    expect(JSON.parse(cached.stdout).packages.length).toBeGreaterThan(0);
  });

  it('TOPUP_DISABLE_CODE_CACHE=1 compiles from source; so does a command whose modules are not in it', () => {
    expect(plain.code).toBe(0);
    expect(plain.counts).toBeNull();
    // `mock requests` loads modules that none of the build's commands did: compiled from source, and they run.
    const other = run(BIN, ['mock', 'requests', '--json']);
    expect(other.code).toBe(0);
    expect(other.counts).toMatchObject({ rejected: 0 });
    expect(other.counts!.missing).toBeGreaterThan(0);
    expect(other.counts!.accepted + other.counts!.packed).toBeGreaterThan(10);
  });

  it('a damaged, cut or linked cache file is refused, the module compiled from source, and the output is the same', () => {
    const { launcher, cache } = copyOfTheCli();
    // The three caches the offline command reads: main.cjs's and its two packs' (scripts/cli-packs.mjs).
    const [damaged, cut, linked] = ['packs~embedded-sandbox.cjs.v8', 'main.cjs.v8', 'packs~sandbox-home.cjs.v8'].map((name) =>
      join(cache, name),
    );
    const target = join(
      cache,
      readdirSync(cache).find((name) => name.startsWith('chunk-'))!,
    );
    expect(statSync(damaged!).size).toBeGreaterThan(100_000);
    // Bytes changed in the middle of the largest: without V8's checksum this crashed node (SIGSEGV).
    const bytes = readFileSync(damaged!);
    for (let i = bytes.length >> 1; i < (bytes.length >> 1) + 64; i++) bytes[i]! ^= 0x5a;
    writeFileSync(damaged!, bytes);
    truncateSync(cut!, statSync(cut!).size >> 1);
    // A link is never followed: that module has no cache.
    rmSync(linked!);
    symlinkSync(target, linked!);

    const result = run(launcher, OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(plain.stdout);
    expect(result.counts).toMatchObject({ rejected: 2, missing: 1 });
  });

  it.skipIf(process.platform === 'win32')('a FIFO at a cache file’s place is refused at once, not waited on', () => {
    const { launcher, cache } = copyOfTheCli();
    const largest = readdirSync(cache)
      .map((name) => join(cache, name))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
    rmSync(largest);
    expect(spawnSync('mkfifo', [largest]).status).toBe(0);
    const result = run(launcher, OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(plain.stdout);
    expect(result.counts).toMatchObject({ rejected: 0, missing: 1 });
  });

  it('an offline command runs the lazy modules it needs from two packs; without them, or with one damaged, from their files', () => {
    const packed = run(BIN, OFFLINE);
    expect(packed.counts).toMatchObject({ rejected: 0, missing: 0 });
    expect(packed.counts!.packed).toBeGreaterThan(20);

    const withoutPacks = copyOfTheCli();
    rmSync(join(dirname(withoutPacks.cache), '..', 'packs'), { recursive: true });
    const fromFiles = run(withoutPacks.launcher, OFFLINE);
    expect(fromFiles.code).toBe(0);
    expect(fromFiles.stdout).toBe(plain.stdout);
    // The build records each file's cache too (scripts/code-cache.mjs): without the packs, the files come from theirs.
    expect(fromFiles.counts).toMatchObject({ rejected: 0, missing: 0, packed: 0 });
    expect(fromFiles.counts!.accepted).toBeGreaterThan(20);

    // A pack cut in half is no JavaScript: its modules come from their files, and nothing is said.
    const damaged = copyOfTheCli();
    const pack = join(dirname(damaged.cache), '..', 'packs', 'embedded-sandbox.cjs');
    truncateSync(pack, statSync(pack).size >> 1);
    const fromDamaged = run(damaged.launcher, OFFLINE);
    expect(fromDamaged.code).toBe(0);
    expect(fromDamaged.stdout).toBe(plain.stdout);
    expect(fromDamaged.stderr).not.toMatch(/SyntaxError|Error:/);
    expect(fromDamaged.counts!.packed).toBeGreaterThan(0);
    expect(fromDamaged.counts!.packed).toBeLessThan(packed.counts!.packed);
  });

  it('--jq turns V8 --liftoff-only on for its worker: the modules loaded after come from caches made under that flag', () => {
    const jq = [...OFFLINE.slice(0, 2), '--jq', '.packages[0].code'];
    const uncached = run(BIN, jq, { TOPUP_DISABLE_CODE_CACHE: '1' });
    expect(uncached.code).toBe(0);
    expect(uncached.stdout).toMatch(/^\S+\n$/);
    const cached = run(BIN, jq);
    expect(cached.code).toBe(0);
    expect(cached.stdout).toBe(uncached.stdout);
    // Refused, every module loaded after the flag changed (32 of 36) was compiled from source, as it was before.
    expect(cached.counts).toMatchObject({ rejected: 0 });
    expect(cached.counts!.accepted + cached.counts!.packed).toBeGreaterThan(30);
    expect(statSync(cacheFolder(BUNDLE) + '-liftoff-only').isDirectory()).toBe(true);
  });

  it('only a flag the code cache knows names a folder: any other is refused, and no V8 flag is set', () => {
    const script = `
      const { useCodeCache } = require(${JSON.stringify(join(ROOT, 'bin', 'code-cache.js'))});
      useCodeCache(${JSON.stringify(BUNDLE)});
      const use = globalThis[Symbol.for('topup.codeCache.useV8Flags')];
      for (const flag of ['--../../outside', '--max-old-space-size=1', '--liftoff-only/..']) {
        try { use(flag); console.log('taken ' + flag); } catch (error) { console.log(error.message); }
      }
      console.log(require('node:v8').getHeapStatistics().heap_size_limit > 64 * 1024 * 1024 ? 'heap limit untouched' : 'heap limit changed');
    `;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'code cache: no folder for the V8 flag --../../outside',
      'code cache: no folder for the V8 flag --max-old-space-size=1',
      'code cache: no folder for the V8 flag --liftoff-only/..',
      'heap limit untouched',
    ]);
  });

  it('node --verify-snapshot-checksum for the whole run: the cache is still read, the output the same', () => {
    const result = run(BIN, OFFLINE, {}, ['--verify-snapshot-checksum']);
    expect(result.code).toBe(0);
    expect(result.counts).toMatchObject({ rejected: 0, missing: 0 });
    expect(result.stdout).toBe(plain.stdout);
  });

  it('a cache file past its bound (16 MiB, none the build writes) is not read: that module is compiled from source', () => {
    const { launcher, cache } = copyOfTheCli();
    const largest = readdirSync(cache)
      .map((name) => join(cache, name))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
    truncateSync(largest, 17 * 1024 * 1024); // grown, with zeros: read whole, it would cost 17 MiB before V8 refused it
    const result = run(launcher, OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(plain.stdout);
    expect(result.counts).toMatchObject({ rejected: 0, missing: 1 });
  });

  it('a cache made by another V8 is not read at all', () => {
    const { launcher, cache } = copyOfTheCli();
    renameSync(cache, join(cache, '..', 'v8-0.0.0.0-node.0-x64'));
    const result = run(launcher, OFFLINE);
    expect(result.code).toBe(0);
    expect(result.counts).toBeNull();
    expect(result.stdout).toBe(plain.stdout);
  });

  it("reads each of the bundle's modules itself, none through node's loader, and a missing bundle still says so", () => {
    // node's loader reads a module with fs.readFileSync(file, 'utf8'): the probe counts those of the bundle's files.
    expectOnlyWithoutTheCache(
      offlineCounting(
        'READ',
        'node:fs',
        'readFileSync',
        String.raw`typeof args[0] === 'string' && /[\\/]dist[\\/]cli[\\/].*\.cjs$/.test(args[0])`,
      ),
    );

    const { launcher } = copyOfTheCli();
    rmSync(join(dirname(launcher), '..', 'dist', 'cli', 'main.cjs'));
    const unbuilt = run(launcher, OFFLINE);
    expect(unbuilt.code).toBe(1);
    expect(unbuilt.stdout).toBe('');
    expect(unbuilt.stderr).toMatch(/^topup is not built yet: run `npm run build` in its folder first\.\n/);
  });

  it('--version still loads nothing but the launcher', () => {
    const result = run(BIN, ['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.counts).toBeNull();
  });
});

describe("the launcher's require for the bundle's own modules", () => {
  /**
   * A bundle of its own, with an (empty) cache folder so that the launcher takes it: each module is compiled from
   * source, and gets the launcher's `require`. The script reports what each require gave, and how often node's own
   * search ran for a relative `.cjs` path.
   */
  function runInBundle(files: Record<string, string>, main: string) {
    const root = mkdtempSync(join(work, 'bundle-'));
    const bundle = join(root, 'bundle');
    for (const [name, text] of Object.entries({ ...files, '../outside.cjs': 'module.exports = { outside: true };' })) {
      const file = join(bundle, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    mkdirSync(cacheFolder(bundle), { recursive: true });
    const script = `
      const Module = require('node:module');
      const searched = [];
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request.endsWith('.cjs')) searched.push(request);
        return resolve.call(this, request, ...rest);
      };
      const fs = require('node:fs');
      const readByNode = [];
      const read = fs.readFileSync;
      fs.readFileSync = function (file, ...rest) {
        if (typeof file === 'string' && file.startsWith(${JSON.stringify(bundle)})) readByNode.push(require('node:path').basename(file));
        return read.call(this, file, ...rest);
      };
      require(${JSON.stringify(join(ROOT, 'bin', 'code-cache.js'))}).useCodeCache(${JSON.stringify(bundle)});
      const out = require(${JSON.stringify(join(bundle, main))});
      console.log(JSON.stringify({ out, searched: searched.filter((request) => !request.startsWith('/')), readByNode }));
    `;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout) as { out: Record<string, unknown>; searched: string[]; readByNode: string[] };
  }

  it('loads each by its path inside the bundle, once, without node’s search; anything else goes through node', () => {
    const { out, searched } = runInBundle(
      {
        'main.cjs': `
          const shared = require('./shared.cjs');
          const nested = require('./lazy/nested.cjs');
          const outside = require('../outside.cjs');
          // Dots inside the path (esbuild writes none) name the same file: the same module, loaded once.
          const viaDots = require('./lazy/../shared.cjs');
          const children = module.children.map((child) => require('node:path').basename(child.filename));
          module.exports = { same: nested.shared === shared && viaDots === shared, count: shared.count(), outside, children,
            cached: Object.keys(require.cache).filter((name) => name.endsWith('shared.cjs')).length };`,
        'shared.cjs': 'let loads = (globalThis.loads ?? 0) + 1; globalThis.loads = loads; module.exports = { count: () => loads };',
        'lazy/nested.cjs': "module.exports = { shared: require('../shared.cjs') };",
      },
      'main.cjs',
    );
    expect(out).toEqual({
      same: true,
      count: 1,
      outside: { outside: true },
      children: ['shared.cjs', 'nested.cjs', 'outside.cjs'],
      cached: 1,
    });
    // Only the path that leaves the bundle was searched for by node.
    expect(searched).toEqual(['../outside.cjs']);
  });

  it('reads each module whole, whatever it read before; a link and a #! line are left to node’s loader', () => {
    const large = `module.exports = ${JSON.stringify('x'.repeat(300_000))}.length;`;
    const { out, readByNode } = runInBundle(
      {
        'main.cjs': `
          const fs = require('node:fs');
          fs.symlinkSync(require('node:path').join(__dirname, 'small.cjs'), require('node:path').join(__dirname, 'linked.cjs'));
          module.exports = { large: require('./large.cjs'), small: require('./small.cjs'), empty: require('./empty.cjs'),
            text: require('./text.cjs'), shebang: require('./shebang.cjs'), linked: require('./linked.cjs'),
            paths: module.paths.length > 0, loaded: require.cache[require('node:path').join(__dirname, 'small.cjs')].loaded };`,
        'large.cjs': large,
        // Shorter than the module before it: nothing of that one may follow it.
        'small.cjs': "module.exports = 'small';",
        'empty.cjs': '',
        'text.cjs': "module.exports = 'Rp 10.000 \u2014 caf\u00e9 \u20ac';",
        'shebang.cjs': "#!/usr/bin/env node\nmodule.exports = 'shebang';",
      },
      'main.cjs',
    );
    expect(out).toEqual({
      large: 300_000,
      small: 'small',
      empty: {},
      text: 'Rp 10.000 \u2014 caf\u00e9 \u20ac',
      shebang: 'shebang',
      linked: 'small',
      paths: true,
      loaded: true,
    });
    // main.cjs is required by node itself here (bin/topup.js hands it to the launcher's loader, the test above).
    expect(readByNode.sort()).toEqual(['linked.cjs', 'main.cjs', 'shebang.cjs']);
  });

  it('a module past its bound (64 MiB, none the build writes) is left to node’s loader, not read into the kept bytes', () => {
    const { out, readByNode } = runInBundle(
      {
        'main.cjs': `
          const fs = require('node:fs');
          const huge = require('node:path').join(__dirname, 'huge.cjs');
          fs.truncateSync(huge, 65 * 1024 * 1024); // sparse: zeros, which no JavaScript parser takes
          let error;
          try { require('./huge.cjs'); } catch (caught) { error = caught.name; }
          module.exports = { error, small: require('./small.cjs') };`,
        'huge.cjs': 'module.exports = 1;',
        'small.cjs': "module.exports = 'small';",
      },
      'main.cjs',
    );
    expect(out).toEqual({ error: 'SyntaxError', small: 'small' });
    expect(readByNode.sort()).toEqual(['huge.cjs', 'main.cjs']);
  });

  it('a pack runs its members when they are required, as their files would run; a module loaded before keeps its own', () => {
    const member = (text: string) => `function (exports, require, module, __filename, __dirname) {\n${text}\n}`;
    const pack = (members: Record<string, string>) =>
      `module.exports = {\n${Object.entries(members)
        .map(([name, text]) => `${JSON.stringify(name)}: ${member(text)}`)
        .join(',\n')}\n};`;
    const files = {
      'main.cjs': `
        const shared = require('./shared.cjs');
        const entry = require('./lazy/entry.cjs');
        const again = require('./lazy/entry.cjs');
        const counts = require('node:module').prototype._compile[Symbol.for('topup.codeCache')];
        module.exports = { shared: shared.from, entry: entry.from, sameShared: entry.shared === shared, dep: entry.dep.from,
          filename: require('node:path').relative(__dirname, entry.filename), once: again === entry, packed: counts.packed,
          strict: entry.strict, sloppy: entry.dep.sloppy };`,
      'shared.cjs': "module.exports = { from: 'file' };",
      'dep.cjs': "module.exports = { from: 'file' };",
      'lazy/entry.cjs': "module.exports = { from: 'file' };",
      'packs/p.cjs': pack({
        'lazy/entry.cjs': `'use strict';
          module.exports = { from: 'pack', shared: require('../shared.cjs'), dep: require('../dep.cjs'), filename: __filename,
            strict: (function () { return this === undefined; })() };`,
        'dep.cjs': "module.exports = { from: 'pack', sloppy: (function () { return this !== undefined; })() };",
        'shared.cjs': "module.exports = { from: 'pack' };",
      }),
      'packs/manifest.json': JSON.stringify({ 'lazy/entry.cjs': 'packs/p.cjs' }),
    };
    expect(runInBundle(files, 'main.cjs').out).toEqual({
      shared: 'file',
      entry: 'pack',
      sameShared: true,
      dep: 'pack',
      filename: join('lazy', 'entry.cjs'),
      once: true,
      packed: 2,
      strict: true,
      sloppy: true,
    });

    // No usable pack, whatever the reason: every module from its file.
    const fromFiles = { shared: 'file', entry: 'file', dep: 'file' };
    const check = `module.exports = { shared: require('./shared.cjs').from, entry: require('./lazy/entry.cjs').from,
      dep: require('./dep.cjs').from };`;
    for (const [manifest, packText] of [
      [{ 'lazy/entry.cjs': '../outside.cjs' }, files['packs/p.cjs']],
      [{ 'lazy/entry.cjs': 'packs/missing.cjs' }, files['packs/p.cjs']],
      ['not json', files['packs/p.cjs']],
      [{ 'lazy/entry.cjs': 'packs/p.cjs' }, 'module.exports = 5;'],
      [{ 'lazy/entry.cjs': 'packs/p.cjs' }, 'module.exports = {'],
      // Past the manifest's bound (64 KiB): not read.
      [`{ "lazy/entry.cjs": "packs/p.cjs" ${' '.repeat(70_000)}}`, files['packs/p.cjs']],
    ] as const) {
      const out = runInBundle(
        {
          ...files,
          'main.cjs': check,
          'packs/p.cjs': packText,
          'packs/manifest.json': typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
        },
        'main.cjs',
      ).out;
      expect(out, JSON.stringify(manifest).slice(0, 80)).toEqual(fromFiles);
    }
    // A manifest that is a link (to a good one) is not followed.
    const linked = runInBundle(
      {
        ...files,
        'packs/real.json': files['packs/manifest.json'],
        'packs/manifest.json': '',
        'main.cjs': `const { join } = require('node:path'); const fs = require('node:fs');
          fs.rmSync(join(__dirname, 'packs', 'manifest.json'));
          fs.symlinkSync(join(__dirname, 'packs', 'real.json'), join(__dirname, 'packs', 'manifest.json'));
          ${check}`,
      },
      'main.cjs',
    ).out;
    expect(linked).toEqual(fromFiles);
  });

  it('a cycle gets the exports so far, a module that throws is run again next time, and a missing one is MODULE_NOT_FOUND', () => {
    const { out } = runInBundle(
      {
        'main.cjs': `
          const a = require('./a.cjs');
          const attempts = [];
          for (let i = 0; i < 2; i++) {
            try { require('./throws.cjs'); } catch (error) { attempts.push(error.message); }
          }
          let missing;
          try { require('./missing.cjs'); } catch (error) { missing = error.code; }
          module.exports = { sawPartialA: a.sawPartialA, aDone: a.done, attempts, missing,
            throwsCached: Object.keys(require.cache).some((name) => name.endsWith('throws.cjs')),
            throwsChild: module.children.some((child) => child.filename.endsWith('throws.cjs')) };`,
        'a.cjs': "exports.early = true; const b = require('./b.cjs'); exports.sawPartialA = b.sawA; exports.done = true;",
        'b.cjs': "const a = require('./a.cjs'); exports.sawA = { early: a.early, done: 'done' in a };",
        'throws.cjs': 'globalThis.runs = (globalThis.runs ?? 0) + 1; throw new Error(`run ${globalThis.runs}`);',
      },
      'main.cjs',
    );
    expect(out).toEqual({
      sawPartialA: { early: true, done: false },
      aDone: true,
      attempts: ['run 1', 'run 2'],
      missing: 'MODULE_NOT_FOUND',
      throwsCached: false,
      throwsChild: false,
    });
  });

  it('a command loads every module of the bundle without node’s search, and its output is the same', () => {
    // What the bundle's modules require (the launcher's own require of main.cjs aside). Without the code cache, node's
    // own require searches for each (the probe sees them); with it, for none.
    const { cached } = expectOnlyWithoutTheCache(
      offlineCounting(
        'SEARCHED',
        'node:module',
        '_resolveFilename',
        String.raw`/^\.\.?\/.*\.cjs$/.test(args[0]) && /[\\/]dist[\\/]cli[\\/]/.test(args[1]?.filename ?? '')`,
      ),
    );
    expect(JSON.parse(cached.stdout).packages.length).toBeGreaterThan(0);
  });
});
