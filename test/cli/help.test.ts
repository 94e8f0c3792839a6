import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../src/cli/exit-codes.js';
import { environmentVariables } from '../../src/cli/help/environment.js';
import { helpTopicNames } from '../../src/cli/help/topic-names.js';
import { expectUsageError } from '../support/cli-assertions.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, type RunOptions } from './run-cli.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

const topup = (args: string[], options: RunOptions = {}) => runCli(config.dir, args, options);

const TOPICS = 'topics: environment, exit-codes, formatting, sandbox';
const COMMANDS =
  'commands: health, packages, payment-methods, articles, me, dashboard, balance, transactions, deposits, orders, invoices, api, completion, auth, config, doctor, mock, help';

describe('topup alone', () => {
  it('prints the help on stdout and exits 0, as gh alone does', async () => {
    const alone = await topup([]);
    expect(alone).toEqual({ code: 0, out: (await topup(['--help'])).out, err: '' });
    expect(alone.out).toMatch(/^Usage: topup /);
  });
});

describe('a command group alone', () => {
  it.each([[['orders']], [['mock']], [['mock', 'state']], [['auth']], [['config']]])(
    '%j prints its help on stdout and exits 0, as gh pr alone does',
    async (words) => {
      const alone = await topup(words);
      expect(alone).toEqual({ code: 0, out: (await topup([...words, '--help'])).out, err: '' });
      expect(alone.out).toMatch(new RegExp(`^Usage: topup ${words.join(' ')} `));
    },
  );

  it('a group that runs something by itself still runs it, and a mistyped subcommand is still an error', async () => {
    expect((await topup(['mock', 'faults', '--mock'])).out).not.toMatch(/^Usage:/);
    const typo = await topup(['orders', 'lsit']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command 'lsit'/);
  });
});

describe('topup help COMMAND [SUBCOMMAND…]', () => {
  it.each([
    [[], ['--help']],
    [['orders'], ['orders', '--help']],
    [
      ['orders', 'create'],
      ['orders', 'create', '--help'],
    ],
    [
      ['mock', 'state', 'load'],
      ['mock', 'state', 'load', '--help'],
    ],
    [
      ['auth', 'status'],
      ['auth', 'status', '--help'],
    ],
  ])('help %j prints what %j prints, on stdout', async (words, flagged) => {
    for (const tty of [false, true]) {
      const viaHelp = await topup(['help', ...words], { tty });
      const viaFlag = await topup(flagged, { tty });
      expect(viaHelp).toEqual({ code: 0, out: viaFlag.out, err: '' });
      expect(viaHelp.out).toMatch(new RegExp(`^Usage: topup ${words.join(' ')}`.replace(/ $/, ' ')));
    }
  });

  it.each([
    [['nope'], `Error: No help topic or command is named 'nope' (${TOPICS}; ${COMMANDS}).`],
    [['orders', 'nope'], `Error: 'orders' has no subcommand 'nope' (its subcommands: list, show, create, batch; ${TOPICS}).`],
    [['health', 'extra'], `Error: 'health' has no subcommand 'extra' (its subcommands: none; ${TOPICS}).`],
    [['environment', 'extra'], "Error: The help topic 'environment' has no parts; run: topup help environment."],
  ])('help %j is a usage error (exit 2) in one sentence', async (words, message) => {
    expectUsageError(await topup(['help', ...words]), /./);
    expect((await topup(['help', ...words])).err).toBe(`${message}\n`);
  });

  it('with --json: the JSON error envelope on stderr, as help prints no JSON', async () => {
    const result = await topup(['--json', 'help', 'nope']);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(JSON.parse(result.err)).toEqual({
      success: false,
      message: '--json asks for JSON output, and `topup help` prints none.',
      error: { code: 'USAGE', kind: 'usage' },
    });
  });
});

describe('help topics', () => {
  it.each(helpTopicNames)(
    'topup help %s: text on stdout, the same on an 80-column terminal and piped, nothing on stderr',
    async (topic) => {
      const piped = await topup(['help', topic]);
      expect(piped.code).toBe(0);
      expect(piped.err).toBe('');
      expect(piped.out).toMatch(/\nExamples:\n {2}\$ /);
      expect(await topup(['help', topic], { tty: true, columns: 80 })).toEqual(piped);
    },
  );

  // The tables below as written: on a terminal wide enough, nothing is wrapped (help/fit.ts; test/cli/help-fit.test.ts).
  const wide = { tty: true, columns: 1000 } as const;

  it('environment: every variable of the one table, aligned', async () => {
    const { out } = await topup(['help', 'environment'], wide);
    const width = Math.max(...environmentVariables.map(([name]) => name.length)) + 2;
    for (const [name, meaning] of environmentVariables) expect(out).toContain(`\n  ${name.padEnd(width)}${meaning}\n`);
    expect(out).toContain('\n  FORCE_COLOR / CLICOLOR_FORCE  colour even when piped (FORCE_COLOR=0: none)\n');
    expect(out).toContain(
      '\n  TOPUP_PAGER, then PAGER       pager for lists taller than the terminal (default less -FRX; cat or an empty value turns it off)\n',
    );
  });

  it('exit-codes: every code of src/cli/exit-codes.ts', async () => {
    const { out } = await topup(['help', 'exit-codes']);
    for (const [code, meaning] of exitCodeTable) expect(out).toContain(`\n  ${String(code).padStart(3)}  ${meaning}\n`);
  });

  it('formatting names --json, --jq and what a pipe gets', async () => {
    const { out } = await topup(['help', 'formatting'], wide);
    expect(out).toContain('--jq EXPR        filters the --json output through jq (built in) and implies --json: one result a line, a\n');
    expect(out).toContain('jq cannot compile is a usage error (exit 2), checked before anything is sent.\n');
    expect(out).toMatch(/Piped {12}stable plain text without colour/);
  });

  it('sandbox: the embedded default, the target rule and the fixtures', async () => {
    const { out } = await topup(['help', 'sandbox']);
    expect(out).toContain('Where requests go: one rule for every command (src/cli/target.ts).');
    expect(out).toContain('  1. --mock: the embedded sandbox, whatever else is set');
    expect(out).toContain('`topup mock fixtures` lists them all');
  });

  it('the root help lists the topics and the exit codes, and points to the environment topic', async () => {
    const root = (await topup(['--help'])).out;
    for (const topic of helpTopicNames) expect(root).toMatch(new RegExp(`\\n  ${topic} +\\S`));
    for (const [code, meaning] of exitCodeTable) expect(root).toContain(`\n  ${String(code).padStart(3)}  ${meaning}\n`);
    // As gh's: the variables that pick the server and the token, and the topic for the rest (a table of 20 lines
    // made the root help two screens long).
    expect(root).toContain('\nEnvironment (topup help environment):\n  TOPUP_TOKEN, TOPUP_BASE_URL and TOPUP_PROFILE pick the server');
    const listed = environmentVariables.filter(([name]) => root.includes(`\n  ${name}  `));
    expect(listed).toEqual([]);
  });
});

/** Every `env.NAME` (or env['NAME']) that src/cli reads. */
function variablesReadByTheCli(): string[] {
  const root = join(import.meta.dirname, '../../src/cli');
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(root, f));
  // The launcher, which reads its own before the CLI loads (bin/code-cache.js).
  const bin = join(import.meta.dirname, '../../bin');
  files.push(
    ...readdirSync(bin)
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(bin, f)),
  );
  const names = new Set<string>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])/g)) names.add(match[1] ?? match[2]!);
  }
  return [...names].sort();
}

describe('the environment table', () => {
  it('documents every variable the CLI reads', () => {
    const documented = environmentVariables.flatMap(([name]) => name.split(/, then |, | \/ /));
    const read = variablesReadByTheCli();
    expect(read.length).toBeGreaterThan(8);
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });
});

describe('TOPUP_NO_PROMPT', () => {
  it.each([
    [{ TOPUP_NO_PROMPT: '1' }, [], 'TOPUP_NO_PROMPT is set'],
    [{}, ['--no-input'], '--no-input is set'],
  ])('%j %j: on a terminal, a missing value is a usage error, never a prompt', async (env, flags, why) => {
    const result = await topup(['--no-color', ...flags, 'orders', 'create', '--username', 'BuilderBob'], { tty: true, env });
    expectUsageError(result, new RegExp(`^Error: Missing --place, --pass: pass them as flags \\(${why}\\)\\.\\n$`));
  });

  it('an empty TOPUP_NO_PROMPT does not turn prompts off', async () => {
    const { scriptedPrompter } = await import('./scripted-prompter.js');
    const prompter = scriptedPrompter([{ cancel: true }]);
    const result = await topup(['orders', 'create', '--username', 'BuilderBob'], { tty: true, env: { TOPUP_NO_PROMPT: '' }, prompter });
    expect(prompter.asked).toHaveLength(1);
    expect(result.code).toBe(130);
  });
});
