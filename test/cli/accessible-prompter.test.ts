import { InterruptedError } from '../../src/cli/errors.js';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { accessiblePrompter, MAX_ANSWER_CHARS } from '../../src/cli/accessible-prompter.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CURSOR_MOVEMENT = /\u001b\[[0-9;?]*[A-HJKSTfsu]|\u001b\[\?25[lh]|\u001b[78]|\r/;

/** The prompter on a scripted stdin: each answer is typed once the question before it has been written. */
function typing(answers: string[]) {
  const stdin = new PassThrough();
  let written = '';
  const stderr = {
    write(text: string) {
      written += text;
      // A question ends without a newline: answer it.
      if (!text.endsWith('\n') && answers.length > 0) setImmediate(() => stdin.write(answers.shift()!));
      return true;
    },
  };
  return { prompter: accessiblePrompter({ stdin, stderr }), written: () => written };
}

describe('accessible prompts (TOPUP_ACCESSIBLE): questions as lines, read in order', () => {
  it('a select is a numbered list; a wrong number is explained and asked again', async () => {
    const t = typing(['9\n', '2\n']);
    const picked = await t.prompter.select({
      message: 'Payment method',
      choices: [
        { name: 'Invoice', value: 'invoice' },
        { name: 'Balance', value: 'balance', description: 'spends the balance' },
      ],
    });
    expect(picked).toBe('balance');
    expect(t.written()).toBe(
      [
        'Payment method',
        '  1. Invoice',
        '  2. Balance: spends the balance',
        'Type a number from 1 to 2: Type a number from 1 to 2.',
        'Payment method',
        '  1. Invoice',
        '  2. Balance: spends the balance',
        'Type a number from 1 to 2: ',
      ].join('\n'),
    );
    expect(t.written()).not.toMatch(CURSOR_MOVEMENT);
  });

  it('input takes its default on Enter and runs the validation', async () => {
    const t = typing(['\n']);
    expect(await t.prompter.input({ message: 'Profile', default: 'default' })).toBe('default');
    const v = typing(['x\n', 'bot\n']);
    expect(await v.prompter.input({ message: 'Name', validate: (s) => (s.length > 1 ? true : 'Too short.') })).toBe('bot');
    expect(v.written()).toBe('Name: Too short.\nName: ');
  });

  it("a question's own closing colon is not doubled by the one the line adds", async () => {
    const t = typing(['https://shop.example.com\n', 'secret\n']);
    expect(await t.prompter.input({ message: 'Base URL of the shop:' })).toBe('https://shop.example.com');
    expect(await t.prompter.password({ message: 'API token:' })).toBe('secret');
    expect(t.written()).toBe('Base URL of the shop: API token (typing is not shown): \n');
  });

  it('a password: the echo goes off before its question shows, so nothing typed once it is asked is echoed', async () => {
    const events: string[] = [];
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (on: boolean) => events.push(`raw ${on}`) });
    const stderr = {
      write(text: string) {
        events.push(`write ${text}`);
        if (!text.endsWith('\n')) setImmediate(() => stdin.write('s3cret\r'));
        return true;
      },
    };
    expect(await accessiblePrompter({ stdin, stderr }).password({ message: 'API token:' })).toBe('s3cret');
    expect(events).toEqual(['raw true', 'write API token (typing is not shown): ', 'raw false', 'write \n']);
  });

  it('confirm: y/n with the default shown; a password is read whole', async () => {
    const c = typing(['\n']);
    expect(await c.prompter.confirm({ message: 'Spend real balance?', default: false })).toBe(false);
    expect(c.written()).toBe('Spend real balance? (y/N): ');
    const p = typing(['secret\n']);
    expect(await p.prompter.password({ message: 'Token' })).toBe('secret');
    expect(p.written()).toBe('Token (typing is not shown): \n');
  });

  it('Ctrl-C in a prompt is an interruption (exit 130)', async () => {
    const t = typing(['\u0003']);
    await expect(t.prompter.confirm({ message: 'Go?' })).rejects.toMatchObject({ kind: 'interrupted' });
  });

  // On a terminal in its own line mode, Ctrl-C never reaches stdin: the terminal sends SIGINT, which aborts the run.
  it('the run aborted (SIGINT) while a question waits ends it at once with the reason, and stops reading', async () => {
    const stdin = new PassThrough();
    const controller = new AbortController();
    const prompter = accessiblePrompter({ stdin, stderr: { write: () => true } }, controller.signal);
    const answer = prompter.input({ message: 'Platform username' });
    stdin.write('Build');
    controller.abort(new InterruptedError('SIGINT'));
    await expect(answer).rejects.toMatchObject({ kind: 'interrupted' });
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.listenerCount('data')).toBe(0);
    // A question asked after the abort is not asked at all.
    await expect(prompter.confirm({ message: 'Go?' })).rejects.toMatchObject({ kind: 'interrupted' });
  });

  it('a line that never ends is refused past 4 KiB (a usage error), not held without end; up to it, it is read', async () => {
    const longest = 'x'.repeat(MAX_ANSWER_CHARS);
    expect(await typing([`${longest}\n`]).prompter.input({ message: 'Name' })).toBe(longest);
    // Far more than the bound, in chunks, and no Enter ever comes: the prompt gives up at the bound.
    const stdin = new PassThrough();
    const prompter = accessiblePrompter({ stdin, stderr: { write: () => true } });
    const answer = prompter.input({ message: 'Name' });
    for (let i = 0; i < 8; i++) stdin.write('y'.repeat(1024));
    await expect(answer).rejects.toMatchObject({ kind: 'usage', message: expect.stringContaining('at most 4096 characters') });
    // It stopped reading: stdin is paused, not still collecting.
    expect(stdin.isPaused()).toBe(true);
  });
});
