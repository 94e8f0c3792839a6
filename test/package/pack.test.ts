import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/index.js';
import { createSandbox } from '../../mocks/index.js';
import { INTERFACE_VERSION } from '../../src/contract/index.js';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';
import { guideRecipe } from '../support/guide-recipes.js';
import { browserMissing, CHROMIUM } from '../support/browser.js';

/*
 * The package as a new user gets it: `npm pack`, then fresh projects outside the repository (an ES module one, a
 * CommonJS one, strict TypeScript with node16, bundler and, for CommonJS, nodenext resolution) that use the tarball.
 * Offline: node_modules/topup is the extracted tarball, and each of its dependencies is a symlink to this
 * repository's installed copy, where npm would have put the same versions.
 */

interface PackedFile {
  path: string;
}
/** An export's target: a path, or conditions that lead to paths. */
type ExportTarget = string | { [condition: string]: ExportTarget };

/** Every file an export names, through its nested conditions. */
function exportTargets(entry: ExportTarget): string[] {
  return typeof entry === 'string' ? [entry] : Object.values(entry).flatMap(exportTargets);
}

interface PackedManifest {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  dependencies: Record<string, string>;
  exports: Record<string, ExportTarget>;
  engines?: { node?: string };
  man?: string[];
}

let work: string;
let tarball: string;
let packedFiles: string[];
let manifest: PackedManifest;
/** What the repository's own source sandbox lists, for comparison with what the packed one lists. */
let expectedCodes: string[];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Children still running, killed in afterAll: a timed-out test's tsc must not write into the removed temp dir. */
const running = new Set<ChildProcess>();

function run(command: string, args: string[], cwd: string, timeoutMs = 30_000, extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? '', HOME: work, TOPUP_CONFIG_DIR: join(work, 'config'), NO_COLOR: '1', ...extraEnv };
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const node = (args: string[], cwd: string) => run(process.execPath, args, cwd);
// About 8 s alone; a loaded machine (the full suite beside it) has taken over 30.
const tsc = (cwd: string) => run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], cwd, 150_000);

/**
 * A fresh project: its package.json, the extracted tarball as node_modules/topup, and the dependencies linked. A
 * TypeScript project also gets @types/node, as any TypeScript project for node has (and npm installs it anyway, as a
 * peer dependency of @inquirer/prompts' packages): topup/mocks' declarations name node:http's Server.
 */
async function project(name: string, type: 'module' | 'commonjs', files: Record<string, string>): Promise<string> {
  const dir = join(work, name);
  const topup = join(dir, 'node_modules', 'topup');
  mkdirSync(topup, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type }, null, 2));
  const untar = await run('tar', ['-xzf', tarball, '-C', topup, '--strip-components=1'], dir);
  if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  const typescript = Object.keys(files).some((file) => file.endsWith('.ts'));
  // msw is an optional peer: only the TypeScript projects, which follow the msw recipe of docs/testing-your-bot.md, install it.
  for (const dep of [...Object.keys(manifest.dependencies), ...(typescript ? ['@types/node', 'msw'] : [])]) {
    const link = join(dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), link, 'dir');
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** The same steps in every flavour; prints one JSON line. `load` brings topup, topup/mocks and topup/contract. */
const scriptBody = `
  const sandbox = await createSandbox();
  const demo = sandbox.fixtures().accounts.find((a) => a.name === 'demo');
  const client = createClient({ baseUrl: sandbox.baseUrl, token: demo.token, fetch: sandbox.fetch });
  const catalog = CreditPackageList.parse(await client.catalog.creditPackages());
  const balance = await client.balance.get();
  let missing;
  try {
    await client.orders.get('INV19990101000001');
  } catch (error) {
    missing = { name: error.name, isTopupError: error instanceof TopupError };
  }
  const esm = await import('topup');
  console.log(JSON.stringify({
    codes: catalog.packages.map((p) => p.code),
    balance: balance.balance,
    missing,
    interfaceVersion: INTERFACE_VERSION,
    oneCopy: esm.TopupError === TopupError,
  }));
`;

const ESM_SCRIPT = `import { createClient, TopupError } from 'topup';
import { createSandbox } from 'topup/mocks';
import { CreditPackageList, INTERFACE_VERSION } from 'topup/contract';
${scriptBody}`;

const CJS_SCRIPT = `const { createClient, TopupError } = require('topup');
const { createSandbox } = require('topup/mocks');
const { CreditPackageList, INTERFACE_VERSION } = require('topup/contract');
const openapi = require('topup/openapi.json');
if (openapi.info.version !== INTERFACE_VERSION) throw new Error('openapi.json is ' + openapi.info.version);
(async () => {
${scriptBody}
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});`;

/** Typed use of the client, the sandbox, the contract and the msw recipe (docs/testing-your-bot.md); two lines that must not compile. */
const TS_BODY = `
async function main(): Promise<void> {
  const sandbox = await createSandbox({ rateLimit: false });
  const demo = sandbox.fixtures().accounts.find((a) => a.name === 'demo');
  if (!demo) throw new Error('no demo account');
  const client = createClient({ baseUrl: sandbox.baseUrl, token: demo.token, fetch: sandbox.fetch });
  const list: CreditPackageList = await client.catalog.creditPackages();
  const names: string[] = CreditPackageList.parse(list).packages.map((p) => p.name);
  // @ts-expect-error a package's credit_amount is a number, never a string
  const wrong: string = list.packages[0]!.credit_amount;
  // @ts-expect-error orders.create needs the order's body
  const neverCalled = () => client.orders.create();
  const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://shop.example.com' }));
  server.listen({ onUnhandledRequest: 'error' });
  const viaMsw = await createClient({ baseUrl: 'https://shop.example.com' }).catalog.creditPackages();
  server.close();
  let missing = '';
  try {
    await client.orders.get('INV19990101000001');
  } catch (error) {
    if (error instanceof NotFoundError) missing = error.name;
  }
  console.log(JSON.stringify({ names: names.length, viaMsw: viaMsw.packages.length, missing, wrong: typeof wrong, neverCalled: typeof neverCalled }));
}
void main();
`;

const TS_ESM = `import { setupServer } from 'msw/node';
import { createClient, NotFoundError } from 'topup';
import { createHandlers, createSandbox } from 'topup/mocks';
import { CreditPackageList } from 'topup/contract';
${TS_BODY}`;

/** Strict, and skipLibCheck as \`tsc --init\` sets it; one project turns it off to check topup's declarations too. */
function tsconfig(compilerOptions: Record<string, unknown>): string {
  return JSON.stringify(
    { compilerOptions: { strict: true, target: 'es2022', skipLibCheck: true, outDir: 'out', ...compilerOptions }, include: ['*.ts'] },
    null,
    2,
  );
}

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-pack-'));
  // --ignore-scripts: ensureBuilt() has just made dist/ fresh; prepack (checked below) would only build it again.
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, 60_000);
  if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}): ${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: PackedFile[] }[];
  tarball = join(work, packed!.filename);
  packedFiles = packed!.files.map((f) => f.path).sort();
  const packedJson = await run('tar', ['-xzOf', tarball, 'package/package.json'], work);
  manifest = JSON.parse(packedJson.stdout) as PackedManifest;

  const sandbox = await createSandbox();
  const client = createClient({ baseUrl: sandbox.baseUrl, fetch: sandbox.fetch });
  expectedCodes = (await client.catalog.creditPackages()).packages.map((p) => p.code);
}, 120_000);

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds dist/, bin/, man/, docs/*.md, openapi.json and every export target, and no sources or tests', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'docs/README.md',
        'docs/cli.md',
        'docs/library.md',
        'docs/testing-your-bot.md',
        'LICENSE',
        'openapi.json',
        'bin/topup.js',
        'bin/package.json',
        'dist/cli/main.cjs',
        'man/topup.1',
      ]),
    );
    // npm links the man page on a global install (package.json's `man`), so `man topup` works.
    expect(manifest.man).toEqual(['./man/topup.1']);
    expect(
      packedFiles.filter(
        (f) => /^(src|mocks|test|scripts|bench|\.ci)\//.test(f) || f.startsWith('tsconfig') || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
    const targets = Object.values(manifest.exports).flatMap(exportTargets);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(packedFiles, target).toContain(target.replace(/^\.\//, ''));
  });

  it('gives every export types and a file for each way it is loaded, and runs nothing at install', () => {
    for (const [path, entry] of Object.entries(manifest.exports)) {
      if (typeof entry === 'string') continue;
      // module-sync first: node loads the ES build for import and require() alike, one copy per process; a loader
      // that knows no module-sync (Jest) gets the CommonJS build for require.
      expect(Object.keys(entry), path).toEqual(['module-sync', 'import', 'require', 'default']);
      for (const [condition, target] of Object.entries(entry)) {
        const cjs = condition === 'require';
        expect(target, `${path} ${condition}`).toEqual({
          types: expect.stringMatching(cjs ? /\.d\.cts$/ : /\.d\.ts$/),
          default: expect.stringMatching(cjs ? /\.cjs$/ : /\.js$/),
        });
      }
    }
    const scripts = manifest.scripts ?? {};
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
    expect(scripts.prepack).toBe('npm run build');
    expect(manifest.engines?.node).toBe('>=20.19');
  });

  it('works from a fresh ES module project, the CLI included', async () => {
    const dir = await project('esm', 'module', { 'main.mjs': ESM_SCRIPT });
    const result = await node(['main.mjs'], dir);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      codes: expectedCodes,
      balance: 0,
      missing: { name: 'NotFoundError', isTopupError: true },
      interfaceVersion: INTERFACE_VERSION,
      oneCopy: true,
    });
    expect(expectedCodes.length).toBeGreaterThan(0);

    const cli = await node([join('node_modules', 'topup', 'bin', 'topup.js'), 'packages', '--json'], dir);
    expect(cli.code).toBe(0);
    expect((JSON.parse(cli.stdout) as { packages: { code: string }[] }).packages.map((p) => p.code)).toEqual(expectedCodes);
    // --jq loads jq-web from the project's node_modules, as a user's install has it.
    const filtered = await node([join('node_modules', 'topup', 'bin', 'topup.js'), 'packages', '--jq', '.packages[].code'], dir);
    expect(filtered.code).toBe(0);
    expect(filtered.stdout).toBe(expectedCodes.map((code) => `${code}\n`).join(''));
  });

  it('works from a fresh CommonJS project with require()', async () => {
    const dir = await project('cjs', 'commonjs', { 'main.cjs': CJS_SCRIPT, 'main.js': CJS_SCRIPT });
    for (const file of ['main.cjs', 'main.js']) {
      const result = await node([file], dir);
      expect(result.stderr, file).toBe('');
      expect(JSON.parse(result.stdout), file).toEqual({
        codes: expectedCodes,
        balance: 0,
        missing: { name: 'NotFoundError', isTopupError: true },
        interfaceVersion: INTERFACE_VERSION,
        oneCopy: true,
      });
    }
  });

  it("serves the sandbox's pages with their style, markup and script inside the bundle, as the sources do", async () => {
    const pages = `import { createSandbox } from 'topup/mocks';
const sandbox = await createSandbox({ now: () => Date.UTC(2026, 0, 1) });
const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
const pages = [];
for (const path of ['/__sandbox/', '/user/invoice/' + code]) {
  const answer = await sandbox.fetch(sandbox.baseUrl + path);
  pages.push({ status: answer.status, csp: answer.headers.get('content-security-policy'), html: await answer.text() });
}
console.log(JSON.stringify(pages));`;
    const dir = await project('pages', 'module', { 'pages.mjs': pages });
    const result = await node(['pages.mjs'], dir);
    expect(result.stderr).toBe('');
    const packed = JSON.parse(result.stdout) as { status: number; csp: string; html: string }[];
    // No file of the pages travels in the package: a bundle that read one at run time would fail here.
    expect(packedFiles.filter((file) => /\.(css|html)$/.test(file) || file.includes('web/'))).toEqual([]);
    for (const asset of ['dashboard/style.css', 'dashboard/body.html', 'dashboard/script.js']) {
      expect(packed[0]!.html, asset).toContain(readFileSync(join(ROOT, 'mocks', 'web', asset), 'utf8'));
    }
    for (const asset of ['invoice-page/style.css', 'invoice-page/script.js']) {
      expect(packed[1]!.html, asset).toContain(readFileSync(join(ROOT, 'mocks', 'web', asset), 'utf8'));
    }
    const sources = await createSandbox({ now: () => Date.UTC(2026, 0, 1) });
    const code = (await sources.control.deposit({ amount: 50_000 })).invoice_code;
    for (const [index, path] of ['/__sandbox/', `/user/invoice/${code}`].entries()) {
      const answer = await sources.fetch(`${sources.baseUrl}${path}`);
      expect(packed[index], path).toEqual({ status: 200, csp: answer.headers.get('content-security-policy'), html: await answer.text() });
    }
  });
});

// One tsc at a time: the suite already keeps both cores busy, and its timing-sensitive tests (the state lock's
// processes racing) must not starve. The declaration check takes about 8 s alone; more under the whole suite.
describe('strict TypeScript in a fresh project', { timeout: 180_000 }, () => {
  const expected = () => ({
    names: expectedCodes.length,
    viaMsw: expectedCodes.length,
    missing: 'NotFoundError',
    wrong: 'number',
    neverCalled: 'function',
  });

  it('type-checks (declarations included) and runs with module and moduleResolution node16 ("type": "module")', async () => {
    const dir = await project('ts-node16', 'module', {
      'tsconfig.json': tsconfig({ module: 'node16', moduleResolution: 'node16', skipLibCheck: false }),
      'main.ts': TS_ESM,
    });
    const compiled = await tsc(dir);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
    const result = await node(['out/main.js'], dir);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(expected());
  });

  it('type-checks with module esnext and moduleResolution bundler', async () => {
    const dir = await project('ts-bundler', 'module', {
      'tsconfig.json': tsconfig({ module: 'esnext', moduleResolution: 'bundler', noEmit: true }),
      'main.ts': TS_ESM,
    });
    const compiled = await tsc(dir);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('type-checks and runs from CommonJS ("type": "commonjs") with module nodenext, as docs/library.md says', async () => {
    // With the msw recipe: in CommonJS, msw/node has msw's CommonJS types and topup/mocks its own (.d.cts), which agree.
    const source = `import { setupServer } from 'msw/node';
import { createClient, NotFoundError } from 'topup';
import { createHandlers, createSandbox } from 'topup/mocks';
import { CreditPackageList } from 'topup/contract';
async function main(): Promise<void> {
  const sandbox = await createSandbox();
  const demo = sandbox.fixtures().accounts.find((a) => a.name === 'demo');
  if (!demo) throw new Error('no demo account');
  const client = createClient({ baseUrl: sandbox.baseUrl, token: demo.token, fetch: sandbox.fetch });
  const list: CreditPackageList = await client.catalog.creditPackages();
  // @ts-expect-error a package's code is a string, never a number
  const wrong: number = list.packages[0]!.code;
  const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://shop.example.com' }));
  server.listen({ onUnhandledRequest: 'error' });
  const viaMsw = await createClient({ baseUrl: 'https://shop.example.com' }).catalog.creditPackages();
  server.close();
  let missing = '';
  try {
    await client.orders.get('INV19990101000001');
  } catch (error) {
    if (error instanceof NotFoundError) missing = error.name;
  }
  console.log(JSON.stringify({ codes: list.packages.map((p) => p.code), viaMsw: viaMsw.packages.length, missing, wrong: typeof wrong }));
}
void main();
`;
    const dir = await project('ts-cjs', 'commonjs', {
      'tsconfig.json': tsconfig({ module: 'nodenext', moduleResolution: 'nodenext' }),
      'main.ts': source,
    });
    const compiled = await tsc(dir);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'main.js'), 'utf8')).toContain('require("topup")');
    const result = await node(['out/main.js'], dir);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      codes: expectedCodes,
      viaMsw: expectedCodes.length,
      missing: 'NotFoundError',
      wrong: 'string',
    });
  });
});

/**
 * A test runner from this repository's dev dependencies (or NODE_PATH), linked into a project as its own install
 * would be; undefined when it is not installed, and the test says so instead of failing.
 */
function devTool(name: string): string | undefined {
  try {
    return dirname(createRequire(join(ROOT, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

function linkTool(dir: string, name: string, at: string): void {
  const link = join(dir, 'node_modules', name);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(at, link, 'dir');
}

const jest = devTool('jest');
if (jest === undefined)
  console.warn('The Jest project of test/package/pack.test.ts was skipped: jest is not installed (add it as a dev dependency).');

/**
 * The recipe of docs/testing-your-bot.md for each runner, run as its reader would: a fresh project of the runner's default kind, the packed
 * tarball installed, the recipe's files as they are. Each creates an order, pays it and asserts on the request journal;
 * a runner that fails prints why.
 */
describe('every test runner, with the recipe of docs/testing-your-bot.md as it is', { timeout: 120_000 }, () => {
  it.skipIf(jest === undefined)(
    'Jest in its default configuration (CommonJS, no transform settings) loads the CommonJS build',
    async () => {
      // Beside the recipe: topup and topup/mocks share one copy of the errors in the CommonJS build too.
      const identity = `const topup = require('topup');
const mocks = require('topup/mocks');
test('one TopupError for topup and topup/mocks', async () => {
  expect(mocks.TopupError).toBe(topup.TopupError);
  const sandbox = await mocks.createSandbox();
  await expect(sandbox.control.pay('INV19990101000001')).rejects.toBeInstanceOf(topup.NotFoundError);
});
`;
      const dir = await project('jest', 'commonjs', { ...guideRecipe('jest'), 'test/identity.test.js': identity });
      linkTool(dir, 'jest', jest!);
      const result = await run(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--json'], dir, 100_000);
      const report = JSON.parse(result.stdout || '{}') as { numPassedTests?: number; numTotalTests?: number };
      expect(report, result.stderr).toMatchObject({ numPassedTests: 2, numTotalTests: 2 });
      expect(result.code).toBe(0);
    },
  );

  it('vitest (an ES module project) loads the ES build', async () => {
    const dir = await project('vitest', 'module', guideRecipe('vitest'));
    linkTool(dir, 'vitest', join(ROOT, 'node_modules', 'vitest'));
    const result = await run(process.execPath, [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json'], dir, 100_000);
    const report = JSON.parse(result.stdout || '{}') as { numPassedTests?: number; numTotalTests?: number };
    expect(report, result.stderr).toMatchObject({ numPassedTests: 1, numTotalTests: 1 });
    expect(result.code).toBe(0);
  });

  it('node --test, with nothing installed but topup', async () => {
    const dir = await project('node-test', 'module', guideRecipe('node-test'));
    const result = await run(process.execPath, ['--test', '--test-reporter=tap'], dir, 60_000);
    expect(result.stdout, result.stderr).toMatch(/^# pass 1$/m);
    expect(result.stdout).toMatch(/^# fail 0$/m);
    expect(result.code).toBe(0);
  });

  it.skipIf(!havePytest)('pytest: a fixture starts topup mock serve --fresh --port 0 --ready-file', async (ctx) => {
    const missing = serveLacks(['--fresh', '--ready-file']);
    if (missing !== undefined) {
      console.warn(`The pytest recipe was skipped: ${missing}.`);
      ctx.skip();
    }
    const dir = await project('pytest', 'commonjs', guideRecipe('pytest'));
    const bin = topupOnPath(dir);
    const result = await run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], dir, 60_000, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    expect(result.stdout + result.stderr).toMatch(/\b1 passed\b/);
    expect(result.code).toBe(0);
  });

  it.skipIf(playwright === undefined || browserMissing !== undefined)(
    'Playwright: its webServer serves the sandbox, the browser pays',
    async (ctx) => {
      const missing = serveLacks(['--fresh']);
      if (missing !== undefined) {
        console.warn(`The Playwright recipe was skipped: ${missing}.`);
        ctx.skip();
      }
      const recipe = guideRecipe('playwright');
      const port = String(await freePort());
      const files = Object.fromEntries(Object.entries(recipe).map(([file, text]) => [file, text.replaceAll('4010', port)]));
      // The system's Chromium (Playwright's own download cannot work here), as test/browser uses it.
      files['playwright.here.config.ts'] = `import { defineConfig } from '@playwright/test';
import recipe from './playwright.config';
export default defineConfig(recipe, {
  reporter: 'line',
  use: { launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ${JSON.stringify(process.getuid?.() === 0 ? ['--no-sandbox'] : [])} } },
});
`;
      const dir = await project('playwright', 'commonjs', files);
      linkTool(dir, '@playwright/test', playwright!);
      topupOnPath(dir);
      const result = await run(
        process.execPath,
        [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '-c', 'playwright.here.config.ts'],
        dir,
        100_000,
      );
      expect(result.stdout + result.stderr).toMatch(/\b1 passed\b/);
      expect(result.code).toBe(0);
    },
  );
});

const havePytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;
if (!havePytest) console.warn('The pytest recipe of test/package/pack.test.ts was skipped: python3 with pytest is not installed.');
const playwright = devTool('@playwright/test');
if (playwright === undefined)
  console.warn('The Playwright recipe of test/package/pack.test.ts was skipped: @playwright/test is not installed.');

/** What `topup mock serve` of the packed CLI lacks of `options`, in a sentence, or undefined. */
function serveLacks(options: string[]): string | undefined {
  const help = spawnSync(process.execPath, [join(ROOT, 'bin', 'topup.js'), 'mock', 'serve', '--help'], { encoding: 'utf8' }).stdout;
  const lacking = options.filter((option) => !help.includes(option));
  return lacking.length === 0 ? undefined : `topup mock serve has no ${lacking.join(' or ')} yet`;
}

/** `topup` as an install puts it: node_modules/.bin/topup (for npx), the folder returned to put on PATH. */
function topupOnPath(dir: string): string {
  const bin = join(dir, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'topup'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, 'node_modules', 'topup', 'bin', 'topup.js'))} "$@"\n`,
  );
  chmodSync(join(bin, 'topup'), 0o755);
  return bin;
}

/** A port free now, for a recipe that names a fixed one (Playwright's webServer waits on a known URL). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
