/**
 * Every CommonJS file of the CLI's bundle hands out its module's own export object (scripts/cli-bundle.ts ownExports),
 * not esbuild's copy of it, whose getters made each call from one file of the bundle to another a megamorphic keyed
 * load. (The library's CommonJS build is written by tsup's own step, with plain exports.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './built-cli.js';
import { ownExports } from '../../scripts/cli-bundle.js';

const COPIED = 'var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);';

function commonJsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? commonJsFiles(join(dir, entry.name)) : entry.name.endsWith('.cjs') ? [join(dir, entry.name)] : [],
  );
}

describe("the CLI bundle's CommonJS exports", () => {
  beforeAll(() => ensureBuilt());

  it("are each module's own export object, in main.cjs and every lazy file", () => {
    const helpers = commonJsFiles(join(ROOT, 'dist', 'cli')).filter((file) => readFileSync(file, 'utf8').includes('var __toCommonJS ='));
    expect(helpers.length).toBeGreaterThan(50);
    expect(helpers.some((file) => file.endsWith(join('cli', 'main.cjs')))).toBe(true);
    expect(helpers.filter((file) => readFileSync(file, 'utf8').includes(COPIED))).toEqual([]);
  });

  it('still give every export to require(), through its own getter, and mark the module as an ES one', () => {
    const serve = join(ROOT, 'dist', 'cli', 'lazy', 'mocks', 'facade', 'serve.cjs');
    const required = createRequire(serve)(serve) as Record<string, unknown>;
    expect(required.__esModule).toBe(true);
    expect(Object.keys(required)).toEqual(expect.arrayContaining(['createSandbox', 'startHttpSandbox']));
    // A getter of the module's own export object, as the module's live binding.
    expect(typeof Object.getOwnPropertyDescriptor(required, 'createSandbox')?.get).toBe('function');
    expect(typeof required.createSandbox).toBe('function');
  });
});

describe('ownExports', () => {
  it("turns esbuild's copying helper into one that hands out the export object itself", () => {
    const code = `${COPIED}\nmodule.exports = __toCommonJS(x_exports);`;
    const own = ownExports(code, 'x.cjs');
    expect(own).not.toContain('__copyProps(');
    const x_exports = { answer: 42 };
    const defineProperty = (target: object, name: string, descriptor: PropertyDescriptor) =>
      Object.defineProperty(target, name, descriptor);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the helper as the build writes it, run
    const toCommonJS = new Function('__defProp', `${own.split('\n')[0]}; return __toCommonJS;`)(defineProperty) as (mod: object) => object;
    const exported = toCommonJS(x_exports);
    expect(exported).toBe(x_exports);
    expect((exported as { __esModule?: boolean }).__esModule).toBe(true);
    // Twice (a lazy module's require in a single-file build): the same object, no error.
    expect(toCommonJS(x_exports)).toBe(x_exports);
  });

  it('leaves a file without the helper as it is, and fails the build on a helper written another way', () => {
    expect(ownExports('module.exports = 1;', 'plain.cjs')).toBe('module.exports = 1;');
    expect(() => ownExports('var __toCommonJS = (mod) => copy(mod);', 'other.cjs')).toThrow(/other\.cjs.*__toCommonJS/);
  });
});
