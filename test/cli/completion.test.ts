import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completionSpec } from '../../src/cli/commands/completion.js';
import { CliContext } from '../../src/cli/context.js';
import { renderCompletion } from '../../src/cli/io/completion-script.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { expectUsageError } from '../support/cli-assertions.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

async function topup(args: string[]) {
  const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Asks the generated bash completion what it offers after `words` (the last one is being typed). */
function bashComplete(script: string, words: string[]): string[] {
  const file = join(config.dir, 'topup.bash');
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const run = spawnSync(
    'bash',
    ['-c', `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _topup; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', file],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter((w) => w !== '');
}

describe('topup completion', () => {
  it.each([
    { args: ['completion'], err: /missing required argument 'shell'/ },
    { args: ['completion', 'tcsh'], err: /value 'tcsh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish\./ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await topup(args);
    expectUsageError(result, err);
  });

  it.each(['bash', 'zsh', 'fish'])('%s: prints a script on stdout, nothing on stderr, and loads no sandbox', async (shell) => {
    const result = await topup(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(result.out).toMatch(new RegExp(`^(#compdef topup\\n)?# ${shell} completion for topup`));
    expect(result.out).toContain('orders');
  });

  it('bash: the script is valid bash', async () => {
    const script = (await topup(['completion', 'bash'])).out;
    const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.each([
    {
      words: ['topup', ''],
      includes: ['health', 'orders', 'invoices', 'balance', 'dashboard', 'api', 'completion', 'mock', '--json', '--base-url', '--help'],
      excludes: ['list', '--status'],
    },
    { words: ['topup', 'or'], exactly: ['orders'] },
    { words: ['topup', 'orders', ''], includes: ['list', 'show', '--json'], excludes: ['health'] },
    { words: ['topup', 'orders', 'list', '--st'], exactly: ['--status'] },
    { words: ['topup', 'orders', 'list', '--status', ''], exactly: ['pending', 'processing', 'completed', 'failed', 'cancelled'] },
    { words: ['topup', 'orders', 'list', '--type', 'v'], exactly: ['vip_server'] },
    { words: ['topup', 'orders', 'list', '--page', ''], exactly: [] },
    { words: ['topup', 'deposits', 'list', '--status', 'p'], exactly: ['pending', 'paid'] },
    {
      words: ['topup', 'invoices', 'status', 'INV1', '--'],
      includes: ['--wait', '--interval', '--timeout', '--json', '--no-color', '--help'],
      excludes: ['--status'],
    },
    { words: ['topup', 'completion', ''], includes: ['bash', 'zsh', 'fish'] },
    { words: ['topup', 'mock', 'p'], exactly: ['pay'] },
    // The value of --profile is not a command, even when it is named like one.
    { words: ['topup', '--profile', 'mock', 'p'], exactly: ['packages', 'payment-methods'] },
    { words: ['topup', '--json', 'orders', 'show', '--'], includes: ['--help', '--json'], excludes: ['--status'] },
  ])('bash offers $words', async ({ words, includes, excludes, exactly }) => {
    const offered = bashComplete((await topup(['completion', 'bash'])).out, words);
    if (exactly) expect(offered).toEqual(exactly);
    for (const word of includes ?? []) expect(offered).toContain(word);
    for (const word of excludes ?? []) expect(offered).not.toContain(word);
  });

  it('zsh: a compdef function with described candidates for every command path', async () => {
    const script = (await topup(['completion', 'zsh'])).out;
    expect(script.startsWith('#compdef topup\n')).toBe(true);
    expect(script).toContain(`('topup orders list') candidates=(`);
    expect(script).toContain(`'--status:only orders in this status'`);
    expect(script).toContain(
      `('topup orders list --status') compadd -- 'pending' 'processing' 'completed' 'failed' 'cancelled'; return ;;`,
    );
    expect(script).toContain(`'dashboard:Show balance, order counts, pending invoices and recent orders'`);
    expect(script).not.toMatch(/local [^\n]*\bpath\b/);
    expect(script.trimEnd().endsWith('compdef _topup topup; fi')).toBe(true);
  });

  it.skipIf(!hasShell('zsh'))('zsh: valid zsh that offers the same words (completion functions stubbed)', async () => {
    const file = join(config.dir, '_topup');
    writeFileSync(file, (await topup(['completion', 'zsh'])).out);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
    const offer = (words: string[]) => {
      const quoted = words.map((w) => `'${w}'`).join(' ');
      const stubs = 'compdef() { :; }; _describe() { print -l -- "${(@P)4}"; }; compadd() { shift; print -l -- "$@"; }';
      const run = spawnSync('zsh', ['-f', '-c', `${stubs}; source "$1"; words=(${quoted}); CURRENT=${words.length}; _topup`, 'zsh', file], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return run.stdout.split('\n').filter((w) => w !== '');
    };
    expect(offer(['topup', 'orders', 'list', '--status', ''])).toEqual(['pending', 'processing', 'completed', 'failed', 'cancelled']);
    expect(offer(['topup', '--profile', 'mock', ''])).toContain('packages:List the active credit packages');
    expect(offer(['topup', 'orders', ''])).toContain('list:List your orders, newest first');
    expect(offer(['topup', 'orders', ''])).not.toContain('health:Check that the API answers');
  });

  it('fish: complete lines conditioned on the command path', async () => {
    const script = (await topup(['completion', 'fish'])).out;
    expect(script).toContain('complete -c topup -f\n');
    expect(script).toContain(`complete -c topup -l json -d 'print the response data as JSON on stdout, and nothing else'\n`);
    expect(script).toContain(`complete -c topup -n '__topup_at topup' -a 'orders' -d 'List, show and create orders'\n`);
    expect(script).toContain(
      `complete -c topup -n '__topup_at topup orders list' -l status -x -a 'pending processing completed failed cancelled' -d 'only orders in this status'\n`,
    );
    expect(script).toContain(`complete -c topup -n '__topup_at topup completion' -a 'bash zsh fish'\n`);
    expect(script).toContain(`complete -c topup -n '__topup_at topup api' -s H -l header -x -d`);
  });

  it.skipIf(!hasShell('fish'))('fish: valid fish that completes by command path', async () => {
    const file = join(config.dir, 'topup.fish');
    writeFileSync(file, (await topup(['completion', 'fish'])).out);
    expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' }).stderr).toBe('');
    const offer = (line: string) => {
      const run = spawnSync('fish', ['--no-config', '-c', `function topup; end; source $argv[1]; complete -C '${line}'`, file], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return run.stdout
        .split('\n')
        .filter((w) => w !== '')
        .map((w) => w.split('\t')[0]);
    };
    expect(offer('topup orders list --status ').sort()).toEqual(['cancelled', 'completed', 'failed', 'pending', 'processing']);
    expect(offer('topup --profile mock p')).toEqual(['packages', 'payment-methods']);
    expect(offer('topup mock p')).toEqual(['pay']);
    expect(offer('topup completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
  });
});

describe('completionSpec', () => {
  it('is generated from the commander tree: every command path of the program is a node', () => {
    const program = buildProgram(new CliContext(fakeIO()));
    const paths: string[] = [];
    const walk = (command: Command, path: string[]) => {
      paths.push(path.join(' '));
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(program, ['topup']);
    expect(completionSpec(program).nodes.map((n) => n.path.join(' '))).toEqual(paths);
    expect(paths.length).toBeGreaterThan(20);
  });

  it('a command added to the tree appears in every script, with its options and quoting intact', () => {
    const program = new Command('topup').option('--json', 'as JSON');
    program
      .command('refunds')
      .description("Money's way back: list it")
      .command('list')
      .option('--since <date>', 'from "date"')
      .addOption(new Command().createOption('--kind <kind>', 'kind').choices(['full', 'part']));
    const spec = completionSpec(program);
    expect(renderCompletion('bash', spec)).toContain(
      `'topup refunds list --kind') COMPREPLY=($(compgen -W 'full part' -- "$cur")); return ;;`,
    );
    expect(renderCompletion('zsh', spec)).toContain(`'refunds:Money'\\''s way back: list it'`);
    expect(renderCompletion('fish', spec)).toContain(`-a 'refunds' -d 'Money\\'s way back: list it'`);
    const bash = renderCompletion('bash', spec);
    expect(spawnSync('bash', ['-n'], { input: bash, encoding: 'utf8' }).status).toBe(0);
    expect(bashComplete(bash, ['topup', 'refunds', 'list', '--'])).toEqual(['--since', '--kind', '--help', '--json']);
  });
});

describe('help of the read commands', () => {
  it.each([
    ['me'],
    ['dashboard'],
    ['balance'],
    ['transactions'],
    ['deposits'],
    ['deposits', 'list'],
    ['deposits', 'show'],
    ['orders'],
    ['orders', 'list'],
    ['orders', 'show'],
    ['invoices'],
    ['invoices', 'show'],
    ['invoices', 'status'],
    ['articles'],
    ['articles', 'list'],
    ['articles', 'show'],
    ['api'],
    ['completion'],
  ])('topup %s --help: usage, a description and at least one example', async (...path) => {
    const result = await topup([...path, '--help']);
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Usage: topup ${path.join(' ')}( |$)`));
    expect(lines[2]).toMatch(/^[A-Z].{10,}/);
    // The examples start at once with a topup command line (its output perhaps kept: `inv=$(topup …)`), and one runs this command.
    expect(result.out).toMatch(/\nExamples:\n {2}\$ (\w+=\$\(|source <\()?topup /);
    expect(result.out).toMatch(new RegExp(`\\n {2}\\$ (source <\\()?topup ${path.join(' ')}( |\\)|$)`, 'm'));
    expect(result.err).toBe('');
  });
});
