import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { CliContext } from '../../src/cli/context.js';
import { helpTopicNames } from '../../src/cli/help/topic-names.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { fakeIO } from '../support/fake-io.js';
import { ensureBuilt, ROOT } from './built-cli.js';

/**
 * Every example of every help, pasted into bash: each help's examples run in order as one session (so that
 * `inv=$(topup orders create …)` feeds the next line), with the built binary as `topup`, in a fresh config folder.
 * Nothing is configured, so they talk to the embedded sandbox; the placeholder servers in examples
 * (http://127.0.0.1:4010, https://shop.example.com) are replaced by a served sandbox's URL.
 */

/** Examples that cannot end by themselves or need a person; every other one must exit 0. */
const SKIPPED: Record<string, string> = {
  'topup mock serve': 'long-running: serves until Ctrl-C',
  'topup auth login': 'interactive: asks for the base URL and the token',
  'topup auth login --base-url https://shop.example.com': 'interactive: asks for the token with hidden input',
  'topup orders create': 'interactive: the order wizard',
  'topup auth switch': 'interactive: picks the profile from a list',
  'topup dashboard --watch': 'long-running: refreshes until Ctrl-C',
  'topup balance --watch 60': 'long-running: refreshes until Ctrl-C',
  'topup mock open --base-url http://127.0.0.1:4010': 'interactive: starts a browser',
};
/** Whole families, by what they start with. */
const SKIPPED_PREFIXES: [string, string][] = [
  ['topup mock serve ', 'long-running: serves until Ctrl-C'],
  ['topup dashboard --watch ', 'long-running: refreshes until Ctrl-C'],
  ['topup mock logs --follow', 'long-running: follows the log until Ctrl-C'],
];

/**
 * Helps whose examples name profiles (staging, bot) or need one to be current: their session starts by logging in
 * staging, bot (with its chat link, for paying by balance) and default (current) to the served sandbox.
 */
const WITH_PROFILES = new Set([
  'topup auth --help',
  'topup auth logout --help',
  'topup auth status --help',
  'topup auth switch --help',
  'topup auth token --help',
  'topup config --help',
  'topup config get --help',
  'topup config set --help',
  'topup doctor --help',
  'topup orders create --help',
]);
const LOG_IN_PROFILES = [
  'topup auth login --with-token --base-url http://127.0.0.1:4010 --profile staging < token.txt',
  'topup auth login --with-token --base-url http://127.0.0.1:4010 --profile bot < token.txt',
  'topup config set chat_user_id 700000001 --profile bot',
  'topup auth login --with-token --base-url http://127.0.0.1:4010 < token.txt',
];

function skipReason(line: string): string | undefined {
  return SKIPPED[line.replace(/\s+#.*$/, '')] ?? SKIPPED_PREFIXES.find(([prefix]) => line.startsWith(prefix))?.[1];
}

interface HelpText {
  name: string;
  examples: string[];
}

async function helpOutput(args: string[]): Promise<string> {
  const io = fakeIO({ env: { TOPUP_CONFIG_DIR: join(tmpdir(), 'topup-help-never-written') } });
  const code = await main(args, io);
  expect(code, `topup ${args.join(' ')}`).toBe(0);
  return io.out();
}

/** Every command path of the tree (hidden ones too), and every help topic, with the `$ …` lines of its help. */
async function everyHelp(): Promise<HelpText[]> {
  const program = buildProgram(new CliContext(fakeIO()));
  const paths: string[][] = [];
  const walk = (command: Command, path: string[]) => {
    paths.push(path);
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  const helps = [
    ...paths.map((path) => ({ name: `topup ${path.join(' ')} --help`.replace('  ', ' '), args: [...path, '--help'] })),
    ...helpTopicNames.map((topic) => ({ name: `topup help ${topic}`, args: ['help', topic] })),
  ];
  return Promise.all(
    helps.map(async ({ name, args }) => {
      const text = await helpOutput(args);
      return { name, examples: [...text.matchAll(/^ {2}\$ ((?:.* \\\n)*.+)$/gm)].map((m) => m[1]!.replace(/ \\\n\s*/g, ' ').trim()) };
    }),
  );
}

let work: string;
let binDir: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'topup-examples-'));
  binDir = join(work, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'topup'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'topup.js')}" "$@"\n`);
  chmodSync(join(binDir, 'topup'), 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface LineResult {
  line: string;
  status: number;
}

/** Runs the lines in one bash session; each line's exit status (pipefail) is recorded, its output kept for messages. */
async function pasteSession(name: string, lines: string[]): Promise<{ results: LineResult[]; output: string }> {
  const sandbox = await createSandbox({ rateLimit: false });
  const server = await startHttpSandbox(sandbox, { port: 0 });
  const home = mkdtempSync(join(work, 'home-'));
  try {
    mkdirSync(join(home, '.config', 'fish', 'completions'), { recursive: true });
    mkdirSync(join(home, '.zfunc'));
    writeFileSync(join(home, 'token.txt'), `${sandbox.account('rich').token}\n`);
    // The files `orders batch --help` names.
    writeFileSync(join(home, 'orders.csv'), 'username,place,pass,reference\nBuilderBob,5001,9001,help-1\n');
    writeFileSync(join(home, 'orders.jsonl'), '{"username":"BuilderBob","place":5001,"pass":9002,"reference":"help-2"}\n');
    const pasted = lines.map((line) =>
      line.replaceAll('http://127.0.0.1:4010', server.url).replaceAll('https://shop.example.com', server.url),
    );
    const script = [
      'set -o pipefail',
      'cd "$HOME"',
      // What zsh users have; `topup completion zsh > "${fpath[1]}/_topup"` needs it.
      'fpath=("$HOME/.zfunc")',
      ...pasted.flatMap((line, i) => [line, `echo "__status ${i} $?" >&3`]),
    ].join('\n');
    const env = {
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      HOME: home,
      TOPUP_CONFIG_DIR: join(home, 'config'),
      SHOP_TOKEN: sandbox.account('rich').token,
    };
    return await new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', script], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
      let output = '';
      let statuses = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stdio[3]!.on('data', (chunk: Buffer) => (statuses += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', () => {
        clearTimeout(timer);
        const byIndex = new Map([...statuses.matchAll(/^__status (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
        resolve({ results: lines.map((line, i) => ({ line, status: byIndex.get(i) ?? -1 })), output: `${name}:\n${output}` });
      });
    });
  } finally {
    await server.close();
  }
}

describe('help examples, pasted into bash', async () => {
  const helps = await everyHelp();

  it('every command and every help topic has at least one example', () => {
    expect(helps.filter((help) => help.examples.length === 0).map((help) => help.name)).toEqual([]);
  });

  it('every help given profiles exists', () => {
    expect([...WITH_PROFILES].filter((name) => !helps.some((help) => help.name === name))).toEqual([]);
  });

  it('every skipped example still exists (the list names lines, not patterns)', () => {
    const all = new Set(helps.flatMap((help) => help.examples.map((line) => line.replace(/\s+#.*$/, ''))));
    expect(Object.keys(SKIPPED).filter((line) => !all.has(line))).toEqual([]);
  });

  it.each(helps.filter((help) => help.examples.some((line) => skipReason(line) === undefined)))(
    '$name: every example exits 0',
    async ({ name, examples }) => {
      const runnable = [...(WITH_PROFILES.has(name) ? LOG_IN_PROFILES : []), ...examples.filter((line) => skipReason(line) === undefined)];
      const { results, output } = await pasteSession(name, runnable);
      expect(
        results.filter((r) => r.status !== 0),
        output,
      ).toEqual([]);
    },
    90_000,
  );
});
