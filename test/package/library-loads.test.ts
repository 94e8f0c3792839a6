import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../e2e/built-cli.js';
import { tempConfigDir } from '../support/fake-io.js';

/*
 * Every test file of a bot's suite imports topup/mocks in a process of its own. @msw/data, imported as a package,
 * brought es-toolkit's and es-toolkit/compat's indexes: some 550 ES modules, about 350 ms of each such process
 * (BENCHMARKS.md, the library's row). The library build bundles it (tsup.config.ts BUNDLED_DEPENDENCIES), keeping
 * only what it uses; zod stays the user's own. These check what the built entries load, and that the sandbox and
 * @msw/data's query API still work from them.
 */
describe('what importing the built topup/mocks loads', () => {
  let work: ReturnType<typeof tempConfigDir>;

  beforeAll(() => {
    ensureBuilt();
    work = tempConfigDir();
  });
  afterAll(() => work?.cleanup());

  /**
   * A sandbox from the entry (it loads the contract's zod schemas before its first answer), its catalog through its
   * fetch, a list with a query, and a query through @msw/data's own API.
   */
  const USE = `
    const sandbox = await createSandbox();
    const response = await sandbox.fetch(sandbox.baseUrl + '/api/v1/catalog/credit-packages');
    const articles = await sandbox.fetch(sandbox.baseUrl + '/api/v1/articles?per_page=1');
    if (articles.status !== 200) throw new Error('articles: ' + articles.status);
    const active = sandbox.store.db.creditPackages.collection.findMany((q) => q.where({ active: true }));
    console.log(JSON.stringify({ status: response.status, listed: (await response.json()).data.packages.length, active: active.length }));
  `;

  async function run(
    args: string[],
    loadsFile: string,
  ): Promise<{ used: { status: number; listed: number; active: number }; loaded: string[] }> {
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      cwd: work.dir,
      env: { PATH: process.env.PATH ?? '', HOME: work.dir, LOADS_FILE: loadsFile },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const loaded = readFileSync(loadsFile, 'utf8').split('\n').filter(Boolean);
    return { used: JSON.parse(stdout) as { status: number; listed: number; active: number }, loaded };
  }

  /** The packages (under node_modules) the files come from: `zod`, `@msw/data`. */
  function packagesOf(files: readonly string[]): Set<string> {
    const names = new Set<string>();
    for (const file of files) {
      const inside = file.split('/node_modules/').at(-1)!;
      if (inside === file) continue;
      const parts = inside.split('/');
      names.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
    return names;
  }

  it('as an ES module: zod is the only package it loads, and the sandbox works', async () => {
    const hooks = join(work.dir, 'record-hooks.mjs');
    // Every URL node's ES module loader resolves, as it resolves it (in the hooks' own thread).
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOADS_FILE, resolved.url + '\\n');
  return resolved;
}
`,
    );
    const register = join(work.dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const main = join(work.dir, 'main.mjs');
    writeFileSync(main, `import { createSandbox } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'mocks.js')).href)};\n${USE}`);

    const { used, loaded } = await run(['--import', pathToFileURL(register).href, main], join(work.dir, 'esm-loads.txt'));
    expect(used.status).toBe(200);
    expect(used.listed).toBeGreaterThan(0);
    expect(used.active).toBe(used.listed);
    // The recorder saw the entry and zod's files.
    expect(loaded).toContain(pathToFileURL(join(ROOT, 'dist', 'mocks.js')).href);
    expect(loaded.filter((url) => url.includes('/node_modules/zod/')).length).toBeGreaterThan(10);
    expect([...packagesOf(loaded)]).toEqual(['zod']);
  });

  it('as CommonJS (the build Jest loads): zod is the only package it loads, and the sandbox works', async () => {
    const preload = join(work.dir, 'record-requires.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADS_FILE, Object.keys(require.cache).join('\\n')));\n`,
    );
    const main = join(work.dir, 'main.cjs');
    writeFileSync(
      main,
      `const { createSandbox } = require(${JSON.stringify(join(ROOT, 'dist', 'mocks.cjs'))});\n(async () => {${USE}})();\n`,
    );

    const { used, loaded } = await run(['-r', preload, main], join(work.dir, 'cjs-loads.txt'));
    expect(used.status).toBe(200);
    expect(used.active).toBe(used.listed);
    expect(loaded).toContain(join(ROOT, 'dist', 'mocks.cjs'));
    expect([...packagesOf(loaded)]).toEqual(['zod']);
  });
  it("the msw recipe: createHandlers takes msw's http handlers alone, not msw's index (GraphQL, WebSocket, graphql)", async () => {
    // msw from the project's own install, as docs/testing-your-bot.md has it; what createHandlers required is in
    // require.cache (it requires msw synchronously, which node's ES module hooks do not see).
    const main = join(work.dir, 'recipe.mjs');
    writeFileSync(
      main,
      `import { createRequire } from 'node:module';
import { setupServer } from ${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules', 'msw', 'lib', 'node', 'index.mjs')).href)};
import { createHandlers, createSandbox } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'mocks.js')).href)};
const sandbox = await createSandbox();
const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://shop.example.com' }));
server.listen({ onUnhandledRequest: 'error' });
const answer = await fetch('https://shop.example.com/api/v1/catalog/credit-packages');
const listed = (await answer.json()).data.packages.length;
server.close();
const required = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/node_modules/msw/'));
console.log(JSON.stringify({ status: answer.status, listed, required: required.map((file) => file.split('/node_modules/msw/')[1]) }));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [main], {
      cwd: work.dir,
      env: { PATH: process.env.PATH ?? '', HOME: work.dir },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const used = JSON.parse(stdout) as { status: number; listed: number; required: string[] };
    expect(used.status).toBe(200);
    expect(used.listed).toBeGreaterThan(0);
    expect(used.required).toEqual(['lib/core/http.mjs']);
  });
});
