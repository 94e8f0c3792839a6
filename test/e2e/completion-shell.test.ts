import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './built-cli.js';

/** The script of `topup completion bash`, sourced by a real bash that finds the built binary as `topup` on its PATH. */
let work: string;
let env: Record<string, string>;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-complete-'));
  mkdirSync(join(work, 'bin'));
  writeFileSync(join(work, 'bin', 'topup'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'topup.js')}" "$@"\n`);
  chmodSync(join(work, 'bin', 'topup'), 0o755);
  writeFileSync(join(work, 'ci-start.json'), '{}');
  env = { PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`, HOME: work, TOPUP_CONFIG_DIR: join(work, 'config') };
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function bash(script: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('bash', ['-c', script], { cwd: work, env, encoding: 'utf8', timeout: 15_000 });
}

/** What Tab offers after `words` (the last one is being typed), as COMPREPLY holds it. */
function tab(words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const run = bash(
    `source <(topup completion bash); COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _topup; printf '%s\\n' "\${COMPREPLY[@]}"`,
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter((w) => w !== '');
}

describe.skipIf(spawnSync('bash', ['-c', 'exit 0']).status !== 0)('bash completion through topup __complete (built binary)', () => {
  it('after a command that takes an invoice, with no orders yet: nothing, not a stray "-"', () => {
    expect(tab(['topup', 'orders', 'show', ''])).toEqual([]);
  });

  it.each([
    [['topup', 'orders', 'sh'], ['show']],
    [
      ['topup', 'orders', 'list', '--status', ''],
      ['pending', 'processing', 'completed', 'failed', 'cancelled'],
    ],
    [
      ['topup', '--profile', 'mock', 'p'],
      ['packages', 'payment-methods'],
    ],
    [
      ['topup', 'config', 'get', ''],
      ['profile', 'base_url', 'chat_user_id', 'time_zone', 'accessible'],
    ],
    [['topup', 'mock', 'state', 'load', 'ci'], ['ci-start.json']],
  ])('%j offers %j', (words, expected) => {
    expect(tab(words)).toEqual(expected);
  });

  it('invoice codes of the orders on the embedded sandbox', () => {
    const created = bash('topup orders create --username BuilderBob --place 5001 --pass 9001 2>/dev/null');
    expect(created.status).toBe(0);
    const code = created.stdout.trim();
    expect(code).toMatch(/^INV\d+$/);
    expect(tab(['topup', 'orders', 'show', ''])).toEqual([code]);
    expect(tab(['topup', 'mock', 'pay', 'INV'])).toEqual([code]);
  });
});

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

function run(shell: string, args: string[]): string {
  const result = spawnSync(shell, args, { cwd: work, env, encoding: 'utf8', timeout: 15_000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

/** Candidates (value and description) as fish offers them after `line`, through its own `complete -C`. */
function fishTab(line: string): string[] {
  return run('fish', ['-c', `topup completion fish | source; complete -C ${JSON.stringify(line)}`])
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/**
 * What zsh's completion function offers for `words` (the last one being typed): the script is sourced as zsh sources
 * it, with the completion system's `_describe` and `_files` replaced by functions that print what they were handed.
 */
function zshTab(words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const script = `compdef() { : }; _describe() { print -rl -- "\${(@P)\${@[-1]}}" }; _files() { print -- '(files)' }
source <(topup completion zsh); words=(${quoted}); CURRENT=${words.length}; _topup`;
  return run('zsh', ['-f', '-c', script])
    .split('\n')
    .filter((l) => l !== '');
}

describe.skipIf(!hasShell('fish'))('fish completion through topup __complete (built binary)', () => {
  it.each([
    ['topup orders sh', ['show\tShow one order with its pricing and dates']],
    ['topup orders list --status ', ['cancelled', 'completed', 'failed', 'pending', 'processing']],
  ])('%j offers %j', (line, expected) => {
    expect(fishTab(line)).toEqual(expected);
  });

  it('invoice codes of the orders on the embedded sandbox, and file names where a file is asked for', () => {
    const code = run('bash', ['-c', 'topup orders create --username BuilderBob --place 5001 --pass 9001 2>/dev/null']).trim();
    // The state is shared with the bash tests above: this order is one of those offered, with its description.
    expect(fishTab('topup invoices status ')).toContain(`${code}\tpending BuilderBob`);
    expect(fishTab('topup mock state load ci')).toEqual(['ci-start.json']);
  });
});

describe.skipIf(!hasShell('zsh'))('zsh completion through topup __complete (built binary)', () => {
  it.each([
    [['topup', 'orders', 'sh'], ['show:Show one order with its pricing and dates']],
    [
      ['topup', 'orders', 'list', '--status', ''],
      ['pending', 'processing', 'completed', 'failed', 'cancelled'],
    ],
    [['topup', 'mock', 'state', 'load', 'ci'], ['(files)']],
  ])('%j offers %j', (words, expected) => {
    expect(zshTab(words)).toEqual(expected);
  });
});
