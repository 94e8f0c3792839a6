/**
 * A run registers only the group of the command it names (src/cli/program.ts): about a fifth of every command's
 * start-up went to building commands it never ran. What needs the whole tree (help, a mistyped command's
 * suggestion, completion) still gets it, and the table of groups must name exactly what each group registers.
 */
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/context.js';
import { buildProgram, COMMAND_GROUPS } from '../../src/cli/program.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

const registered = (argv?: readonly string[]) => buildProgram(new CliContext(fakeIO()), argv).commands.map((command) => command.name());
const everyCommand = registered();

describe('the groups of commands', () => {
  it('name, together and in order, every top-level command of the whole tree', () => {
    expect(COMMAND_GROUPS.flatMap((group) => group.names)).toEqual(everyCommand.filter((name) => name !== 'help'));
  });

  it.each(COMMAND_GROUPS.filter((group) => group.names.length > 0).map((group) => [group.names[0]!, group.names] as const))(
    'a run of `%s` registers its group and nothing else',
    (name, names) => {
      expect(registered([name, '--json'])).toEqual(names);
    },
  );
});

describe('which words register what', () => {
  it.each([
    ['global options and their values before the command', ['--base-url', 'http://127.0.0.1:9', '--mock', 'packages', '--json']],
    ['an option value that is a command name', ['--profile', 'orders', 'packages']],
    ['a value glued to its option', ['--jq=.packages', 'packages']],
    ['options after the command', ['packages', '--help']],
  ])('%s: the named group', (_case, argv) => {
    expect(registered(argv)).toEqual(['health', 'packages', 'payment-methods']);
  });

  it.each([
    ['no words', []],
    ['--help before the command', ['--help', 'packages']],
    ['-h before the command', ['-h', 'packages']],
    ['`help`', ['help', 'packages']],
    ['a mistyped command', ['pakages']],
    ['an option the program does not know', ['--bogus', 'packages']],
    ['an option that swallows the command as its value', ['--jq', 'packages']],
    ['--', ['--', 'packages']],
    ['the completion helper', ['__complete', 'orders', '']],
  ])('%s: the whole tree', (_case, argv) => {
    expect(registered(argv)).toEqual(everyCommand);
  });
});

describe('the root help (`--help` or `-h` before any command)', () => {
  /** What the root help prints, from a program built for `argv` (undefined: the whole tree). */
  const rootHelpOf = (argv?: readonly string[]) => {
    const io = fakeIO();
    buildProgram(new CliContext(io), argv).outputHelp();
    return io.out();
  };
  const commandsIn = (command: Command): number => command.commands.reduce((sum, sub) => sum + 1 + commandsIn(sub), 0);

  it.each([[['--help']], [['-h']], [['--help', 'orders', 'create']], [['--mock', '--json', '-h', 'mock']]])(
    '%j registers every group without its subcommands, and prints what the whole tree prints',
    (argv) => {
      expect(registered(argv)).toEqual(everyCommand);
      expect(rootHelpOf(argv)).toBe(rootHelpOf());
      const whole = commandsIn(buildProgram(new CliContext(fakeIO())));
      expect(commandsIn(buildProgram(new CliContext(fakeIO()), argv))).toBeLessThan(whole / 2);
    },
  );

  it('the root help lists every top-level command with its description', () => {
    const help = rootHelpOf(['--help']);
    for (const name of everyCommand) expect(help).toMatch(new RegExp(`^  ${name}\\b.* {2,}\\S`, 'm'));
  });
});

describe('runs that need the whole tree still get it', () => {
  let config: { dir: string; cleanup: () => void };
  beforeEach(() => {
    config = tempConfigDir();
  });
  afterEach(() => config.cleanup());

  it('a mistyped command is told the nearest one', async () => {
    const result = await runCli(config.dir, ['--mock', 'pakages']);
    expect(result.code).toBe(2);
    expect(result.err).toBe("Error: unknown command 'pakages'\n(Did you mean packages?)\n");
  });

  it('`--help` before a command lists every command', async () => {
    const result = await runCli(config.dir, ['--help', 'packages']);
    expect(result.code).toBe(0);
    for (const name of everyCommand) expect(result.out).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('a command with its own --help shows that command', async () => {
    const result = await runCli(config.dir, ['--mock', 'orders', '--help']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Usage: topup orders \[options\] \[command\]/);
    expect(result.out).toMatch(/^ {2}create\b/m);
  });
});
