import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/context.js';
import { helpTopicNames } from '../../src/cli/help/topic-names.js';
import { buildProgram } from '../../src/cli/program.js';
import { expectUsageError } from '../support/cli-assertions.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { ROOT } from '../e2e/built-cli.js';
import { runCli } from './run-cli.js';

/*
 * docs/cli.md and man/topup.1 are generated from the commands' own help (`npm run docs`). Regenerated here and compared
 * byte for byte: a changed help without regenerated docs fails, so the reference never drifts.
 */

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const REGENERATE = 'out of date: run `npm run docs` and commit the result';

describe('topup help reference', () => {
  it(`docs/cli.md is what \`topup help reference\` prints (else ${REGENERATE})`, async () => {
    const result = await runCli(config.dir, ['help', 'reference']);
    expect(result.code).toBe(0);
    expect(result.out, REGENERATE).toBe(readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8'));
  });

  it(`man/topup.1 is what \`topup help reference --man\` prints (else ${REGENERATE})`, async () => {
    const result = await runCli(config.dir, ['help', 'reference', '--man']);
    expect(result.code).toBe(0);
    expect(result.out, REGENERATE).toBe(readFileSync(join(ROOT, 'man', 'topup.1'), 'utf8'));
  });

  it('does not depend on the terminal: the same text at 40 and 200 columns', async () => {
    const narrow = await runCli(config.dir, ['help', 'reference'], { tty: true, columns: 40 });
    const wide = await runCli(config.dir, ['help', 'reference'], { tty: true, columns: 200 });
    expect(narrow.out).toBe(wide.out);
  });

  it('has a section for every visible command and every help topic, with its examples', async () => {
    const program = buildProgram(new CliContext(fakeIO()));
    const paths: string[] = [];
    const walk = (command: Command, path: string) => {
      paths.push(path);
      for (const sub of command.commands) {
        if (!(sub as Command & { _hidden?: boolean })._hidden) walk(sub, `${path} ${sub.name()}`);
      }
    };
    walk(program, 'topup');
    const { out } = await runCli(config.dir, ['help', 'reference']);
    const headings = [...out.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([...paths, ...helpTopicNames.map((topic) => `topup help ${topic}`)]);
    expect(out).toContain('  $ topup orders create --username BuilderBob');
  });

  it('the man page escapes what roff would read as requests', async () => {
    const { out } = await runCli(config.dir, ['help', 'reference', '--man']);
    expect(out.startsWith('.TH TOPUP 1 ')).toBe(true);
    const body = out.split('\n').filter((line) => !/^\.(TH|SH|SS|nf|fi|B)\b/.test(line));
    expect(body.filter((line) => /^[.']/.test(line))).toEqual([]);
    expect(body.join('\n')).not.toMatch(/(^|[^\\])\\(?!e|&|-)/m);
  });

  it('refuses more words, and --man without reference', async () => {
    expectUsageError(await runCli(config.dir, ['help', 'reference', 'orders']), /takes no more words/);
    expectUsageError(await runCli(config.dir, ['help', 'orders', '--man']), /--man goes with `topup help reference`/);
  });
});
