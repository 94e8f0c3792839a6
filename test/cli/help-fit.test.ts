import { describe, expect, it } from 'vitest';
import { fitHelp, helpWidthOf } from '../../src/cli/help/fit.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/** The words of a text, without the ` \` continuations fitting adds: what a reader must still find, in order. */
const wordsOf = (text: string) => text.split(/\s+/).filter((word) => word !== '' && word !== '\\' && word !== '#');

/**
 * A line may pass the width only when what passes it cannot be broken: one word (a URL, a quoted value), or one piece
 * of a command (an option and its value, the `$` and one word), or a comment's `#` and one word.
 */
function overflows(line: string, width: number): boolean {
  if ([...line].length <= width) return false;
  const words = line.trim().replace(/ \\$/, '').split(/ +/);
  const unbreakable = words.length === 1 || (words.length === 2 && /^(-|\$$|#$)/.test(words[0]!));
  return !unbreakable;
}

describe('fitHelp (help laid out to a width)', () => {
  it('leaves text that fits exactly as it is', () => {
    const text = 'Usage: topup x\n\nA line.\n  $ topup x --json\n';
    expect(fitHelp(text, 80)).toBe(text);
  });

  it('wraps a hand-wrapped paragraph as one, at the width, keeping every word in order', () => {
    const paragraph = `${'word '.repeat(25).trim()} end of the first line\nand a second line that was written for a wider screen, ${'more '.repeat(10).trim()}`;
    const fitted = fitHelp(paragraph, 40);
    for (const line of fitted.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(wordsOf(fitted)).toEqual(wordsOf(paragraph));
    // One paragraph: no short line in the middle where the written one broke.
    const lines = fitted.split('\n');
    for (const line of lines.slice(0, -1)) expect(line.length).toBeGreaterThan(30);
  });

  it('wraps an item under its own description, its written continuation lines with it', () => {
    const text = `Piped            stable plain text without colour, for scripts: a list is tab-separated rows,\n                 a record is key: value lines.\n--json           exactly the data`;
    const fitted = fitHelp(text, 60).split('\n');
    for (const line of fitted) expect(line.length).toBeLessThanOrEqual(60);
    expect(fitted[0]).toMatch(/^Piped {12}stable plain text/);
    for (const line of fitted.slice(1, -1)) expect(line).toMatch(/^ {17}\S/);
    expect(fitted.at(-1)).toBe('--json           exactly the data');
    expect(wordsOf(fitted.join('\n'))).toEqual(wordsOf(text));
  });

  it('puts a description under its term when the term leaves it too little room', () => {
    const fitted = fitHelp(`  api [options] <method-or-path> [path]  Send an authenticated request under /api/v1 and print it`, 60).split(
      '\n',
    );
    expect(fitted[0]).toBe('  api [options] <method-or-path> [path]');
    expect(fitted.slice(1).every((line) => line.startsWith('      ') && line.length <= 60)).toBe(true);
  });

  it('continues an example with a backslash, never inside quotes, and never between an option and its value', () => {
    const example = `  $ topup api me/orders -H 'Idempotency-Key: order 4711' -f platform_username=BuilderBob -F place_id=5001 --jq '.data | .a b'`;
    const fitted = fitHelp(example, 50).split('\n');
    expect(fitted.length).toBeGreaterThan(1);
    for (const line of fitted.slice(0, -1)) expect(line).toMatch(/ \\$/);
    for (const line of fitted.slice(1)) expect(line).toMatch(/^ {6}\S/);
    // What a shell reads: the same words, the quoted ones whole.
    const joined = fitted.map((line) => line.replace(/ \\$/, '').trim()).join(' ');
    expect(joined).toBe(example.trim());
    expect(fitted.some((line) => line.includes("'Idempotency-Key: order 4711'"))).toBe(true);
    expect(fitted.some((line) => line.includes("--jq '.data | .a b'"))).toBe(true);
    expect(fitted.some((line) => /-H \\$/.test(line) || /-f \\$/.test(line))).toBe(false);
  });

  it('never continues a comment with a backslash: its words go on lines of their own that start with #', () => {
    const example = `  $ topup mock pay "$inv"   # the sandbox pays it; a real invoice is paid at its payment_url`;
    const fitted = fitHelp(example, 60).split('\n');
    expect(fitted[0]).toMatch(/^ {2}\$ topup mock pay "\$inv" {3}# the sandbox pays it;/);
    expect(fitted.some((line) => line.endsWith(' \\'))).toBe(false);
    for (const line of fitted.slice(1)) expect(line).toMatch(/^ {6}# \S/);
    for (const line of fitted) expect(line.length).toBeLessThanOrEqual(60);
    // A command that itself needs continuing still ends its last line before the comment, without a backslash.
    const long = fitHelp(`  $ topup orders create --username BuilderBob --place 5001 --pass 9001 --reference chat-4411   # one order`, 50);
    const lines = long.split('\n');
    const commentAt = lines.findIndex((line) => line.includes('#'));
    expect(lines.slice(0, commentAt).every((line) => line.endsWith(' \\'))).toBe(true);
    expect(lines.slice(commentAt).some((line) => line.endsWith(' \\'))).toBe(false);
    // What bash runs: the command's lines joined, up to the comment.
    const command = lines
      .slice(0, commentAt + 1)
      .map((line) => line.replace(/ \\$/, '').trim())
      .join(' ')
      .replace(/ *#.*$/, '');
    expect(command).toBe('$ topup orders create --username BuilderBob --place 5001 --pass 9001 --reference chat-4411');
  });

  it('keeps each entry of a list its own, its lines under its text', () => {
    const list = [
      'Where requests go:',
      '  1. --mock: the embedded sandbox, whatever else is set (TOPUP_TOKEN is then ignored, and the notice says so).',
      '  2. A profile named by --profile must exist; an unknown name is exit 2.',
      '  3. No server: the embedded sandbox only when nothing at all is configured. TOPUP_TOKEN without a server, or',
      '     profiles of which none is current, are a usage error (exit 2), never fake data.',
      '  - a dash entry that is long enough to be wrapped at this width, with more words after it',
    ].join('\n');
    const fitted = fitHelp(list, 60).split('\n');
    for (const line of fitted) expect(line.length).toBeLessThanOrEqual(60);
    expect(fitted.filter((line) => /^ {2}(\d\.|-) /.test(line))).toHaveLength(4);
    expect(fitted.filter((line) => /^ {2}\d\. /.test(line)).map((line) => line.slice(2, 4))).toEqual(['1.', '2.', '3.']);
    for (const line of fitted.slice(1)) expect(line).toMatch(/^ {2}(\d\. |- )\S|^ {4,5}\S/);
    expect(wordsOf(fitted.join('\n'))).toEqual(wordsOf(list));
  });

  it('refits an example its author continued by hand, as one command', () => {
    const example =
      '  $ topup orders create --username BuilderBob --place 5001 \\\n      --pass 9001 --reference chat-4411 --payment-method balance --yes';
    const fitted = fitHelp(example, 50).split('\n');
    for (const line of fitted.slice(0, -1)) expect(line).toMatch(/ \\$/);
    expect(fitted.map((line) => line.replace(/ \\$/, '').trim()).join(' ')).toBe(
      '$ topup orders create --username BuilderBob --place 5001 --pass 9001 --reference chat-4411 --payment-method balance --yes',
    );
  });

  it('never cuts a word longer than the width', () => {
    const url = `https://shop.example/${'a'.repeat(90)}`;
    const fitted = fitHelp(`Open ${url} to see it, and then come back here to read the rest of it.`, 40);
    expect(fitted.split('\n')).toContain(url);
  });

  it('is done once: fitting fitted text changes nothing', () => {
    const text = `Intro ${'text '.repeat(40)}\n\nExamples:\n  $ topup orders create --username BuilderBob --place 5001 --pass 9001 --reference chat-4411\n  --flag <value>   ${'says '.repeat(30)}`;
    const once = fitHelp(text, 50);
    expect(fitHelp(once, 50)).toBe(once);
  });

  it('lays help out at the terminal width, 80 when piped, and never under 40', () => {
    expect(helpWidthOf(undefined)).toBe(80);
    expect(helpWidthOf(132)).toBe(132);
    expect(helpWidthOf(20)).toBe(40);
    // A pseudo-terminal nobody sized says 0 by 0.
    expect(helpWidthOf(0)).toBe(80);
  });
});

describe('every --help and help topic fits its terminal', () => {
  const commands = [
    [],
    ['orders', 'create'],
    ['orders', 'batch'],
    ['orders', 'list'],
    ['api'],
    ['mock', 'serve'],
    ['auth', 'login'],
    ['doctor'],
    ['config', 'set'],
  ];
  const topics = ['environment', 'exit-codes', 'formatting', 'sandbox'];
  const runs = [...commands.map((words) => [...words, '--help']), ...topics.map((topic) => ['help', topic])];

  it.each([60, 80, 120])('at %i columns on a terminal, and with every word of the wide help', async (columns) => {
    const config = tempConfigDir();
    for (const args of runs) {
      const wide = await runCli(config.dir, args, { tty: true, columns: 1000, color: false });
      const fitted = await runCli(config.dir, args, { tty: true, columns, color: false });
      expect(fitted.code, args.join(' ')).toBe(0);
      const long = fitted.out.split('\n').filter((line) => overflows(line, columns));
      expect(long, `${args.join(' ')} at ${columns}`).toEqual([]);
      expect(wordsOf(fitted.out), args.join(' ')).toEqual(wordsOf(wide.out));
    }
  });

  it('piped, at 80 columns', async () => {
    const config = tempConfigDir();
    for (const args of runs) {
      const piped = await runCli(config.dir, args, { color: false });
      expect(
        piped.out.split('\n').filter((line) => overflows(line, 80)),
        args.join(' '),
      ).toEqual([]);
    }
  });
});
