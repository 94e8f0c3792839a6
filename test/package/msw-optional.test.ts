import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';

/*
 * msw is an optional peer dependency: only `createHandlers` of topup/mocks needs it. A project with the built package
 * and its runtime dependencies but no msw anywhere it can resolve must load `topup`, `topup/mocks` (fetch and
 * node:http adapters) and run the CLI; `createHandlers` then says to install msw.
 */

interface Manifest {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
let work: string;
let project: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-no-msw-'));
  project = projectWithTopup('project');
}, 120_000);

/**
 * A project folder in `work` (an ES module package) with the built topup installed and its runtime dependencies
 * linked, and nothing else: no msw. Returns its path.
 */
function projectWithTopup(name: string): string {
  const dir = join(work, name);
  const topup = join(dir, 'node_modules', 'topup');
  mkdirSync(topup, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  // Copies, not links: node resolves a link to its real path, from where the repository's own msw is found.
  for (const part of ['package.json', 'dist', 'bin']) cpSync(join(ROOT, part), join(topup, part), { recursive: true });
  for (const dep of Object.keys(manifest.dependencies)) {
    const link = join(dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), link, 'dir');
  }
  return dir;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

function runNode(args: string[], cwd = project): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: work, TOPUP_CONFIG_DIR: join(work, 'config'), NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SCRIPT = `
import { createClient } from 'topup';
import { createSandbox, startHttpSandbox, createHandlers } from 'topup/mocks';
const report = {};
report.mswResolvable = await import('msw').then(() => true, () => false);
const sandbox = await createSandbox({ rateLimit: false });
const demo = sandbox.account('demo');
report.inProcess = (await createClient({ baseUrl: sandbox.baseUrl, token: demo.token, fetch: sandbox.fetch }).balance.get()).balance;
const served = await startHttpSandbox(sandbox, { port: 0 });
report.overHttp = (await fetch(served.url + '/api/v1/health')).status;
await served.close();
try {
  createHandlers(sandbox);
  report.handlers = 'made';
} catch (error) {
  report.handlers = error.message;
}
console.log(JSON.stringify(report));
`;

describe('msw is an optional peer dependency', () => {
  it('is not a dependency, but an optional peer and a dev dependency at the same version', () => {
    expect(manifest.dependencies).not.toHaveProperty('msw');
    expect(manifest.peerDependencies?.msw).toBe(`^${manifest.devDependencies.msw}`);
    expect(manifest.peerDependenciesMeta?.msw?.optional).toBe(true);
  });

  it('topup and topup/mocks (fetch and node:http) load and work without msw; createHandlers says to install it', () => {
    writeFileSync(join(project, 'main.mjs'), SCRIPT);
    const result = runNode(['main.mjs']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      mswResolvable: false,
      inProcess: 0,
      overHttp: 200,
      handlers: 'createHandlers needs msw, an optional peer dependency of topup: install msw (npm i -D msw) to use the msw handlers.',
    });
  });

  // The declarations import msw's types for createHandlers: without msw, and with skipLibCheck off, that import must
  // not fail the user's build (scripts/finish-declarations.mjs); createHandlers' handlers are then typed `any`.
  // A whole tsc run over skipLibCheck-off declarations: about 10 s alone, and twice that with the suite beside it.
  it('topup/mocks type-checks without msw, with skipLibCheck off', () => {
    for (const types of ['@types/node', 'typescript']) {
      const link = join(project, 'node_modules', types);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', types), link, 'dir');
    }
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['typed.ts'],
      }),
    );
    writeFileSync(
      join(project, 'typed.ts'),
      `import { createClient } from 'topup';
import { createHandlers, createSandbox } from 'topup/mocks';
const sandbox = await createSandbox();
const balance: number | undefined = (await createClient({ baseUrl: sandbox.baseUrl, fetch: sandbox.fetch }).balance.get()).balance;
// @ts-expect-error: the sandbox's types are still checked
const wrong: string = sandbox.baseUrl.length;
console.log(balance, wrong, typeof createHandlers);
`,
    );
    const result = runNode([join('node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  it('the CLI, embedded sandbox included, runs without msw', () => {
    const result = runNode([join('node_modules', 'topup', 'bin', 'topup.js'), 'packages', '--mock', '--json']);
    expect(result.stderr).toBe(
      'Using the embedded offline sandbox (demo sandbox token). Log in to a real server with `topup auth login`.\n',
    );
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { packages: unknown[] }).packages.length).toBeGreaterThan(0);
  });
});

/*
 * createHandlers takes msw's http handlers from msw's own `msw/core/http` export (test/package/library-loads.test.ts).
 * An msw without that export (an older or a later one) still gets handlers, from its index: here the repository's
 * msw, its package.json without that one export.
 */
describe('an msw without its msw/core/http export', () => {
  it('still gets handlers from the msw recipe, through its index', () => {
    const older = projectWithTopup('older-msw');
    const msw = join(older, 'node_modules', 'msw');
    mkdirSync(msw);
    const mswManifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'msw', 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(mswManifest.exports).toHaveProperty(['./core/http']);
    delete mswManifest.exports['./core/http'];
    writeFileSync(join(msw, 'package.json'), JSON.stringify(mswManifest));
    symlinkSync(join(ROOT, 'node_modules', 'msw', 'lib'), join(msw, 'lib'), 'dir');
    writeFileSync(
      join(older, 'main.mjs'),
      `import { createRequire } from 'node:module';
import { setupServer } from 'msw/node';
import { createHandlers, createSandbox } from 'topup/mocks';
const report = {};
report.ownExport = await import('msw/core/http').then(() => true, (error) => error.code);
const server = setupServer(...createHandlers(await createSandbox(), { baseUrl: 'https://shop.example.com' }));
server.listen({ onUnhandledRequest: 'error' });
report.status = (await fetch('https://shop.example.com/api/v1/health')).status;
server.close();
report.required = Object.keys(createRequire(import.meta.url).cache)
  .filter((file) => file.includes('/node_modules/msw/'))
  .map((file) => file.split('/node_modules/msw/')[1]);
console.log(JSON.stringify(report));
`,
    );
    const result = runNode(['main.mjs'], older);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      ownExport: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      status: 200,
      required: ['lib/core/index.mjs'],
    });
  });
});
