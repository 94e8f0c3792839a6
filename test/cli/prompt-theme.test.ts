import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inquirerPrompter } from '../../src/cli/prompter.js';

// eslint-disable-next-line no-control-regex -- colour codes are what is looked for
const SGR = /\u001b\[[0-9;]*m/;

/** A real @inquirer prompt on fake streams; the answer is typed once it has drawn. */
async function ask(colorEnabled: boolean, run: (p: Awaited<ReturnType<typeof inquirerPrompter>>) => Promise<unknown>, keys: string) {
  const stdin = new PassThrough();
  let drawn = '';
  const stderr = new Writable({
    write(chunk: Buffer, _encoding, done) {
      drawn += chunk.toString();
      done();
    },
  });
  const prompter = await inquirerPrompter({ stdin, stderr, stderrColorEnabled: colorEnabled });
  const answer = run(prompter);
  setTimeout(() => stdin.write(keys), 20);
  return { answer: await answer, drawn };
}

describe('prompts honour --no-color and NO_COLOR', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  // node's styleText, which @inquirer uses, would colour here: only our theme can keep it plain.
  it.each([
    { colorEnabled: false, coloured: false },
    { colorEnabled: true, coloured: true },
  ])('colour $colorEnabled: input, confirm and select draw coloured: $coloured', async ({ colorEnabled, coloured }) => {
    vi.stubEnv('FORCE_COLOR', '1');
    vi.stubEnv('NO_COLOR', undefined);
    const input = await ask(colorEnabled, (p) => p.input({ message: 'Username:', default: 'BuilderBob' }), '\r');
    expect(input.answer).toBe('BuilderBob');
    const confirm = await ask(colorEnabled, (p) => p.confirm({ message: 'Create this order?', default: true }), 'y\r');
    expect(confirm.answer).toBe(true);
    const select = await ask(
      colorEnabled,
      (p) =>
        p.select({
          message: 'Payment method:',
          choices: [
            { name: 'Invoice', value: 'invoice', description: 'Pay later.' },
            { name: 'Balance', value: 'balance' },
          ],
        }),
      '\r',
    );
    expect(select.answer).toBe('invoice');
    for (const { drawn } of [input, confirm, select]) {
      expect(drawn).toContain('?');
      if (coloured) expect(drawn).toMatch(SGR);
      else expect(drawn).not.toMatch(SGR);
    }
  });
});

describe("the run's signal ends a prompt", () => {
  it.each(['input', 'password', 'confirm'] as const)(
    '%s: SIGTERM (the run aborted) ends it at once, not only a second one',
    async (kind) => {
      const controller = new AbortController();
      const stdin = new PassThrough();
      const stderr = new PassThrough();
      const prompter = await inquirerPrompter({ stdin, stderr, stderrColorEnabled: false }, controller.signal);
      const asking = kind === 'confirm' ? prompter.confirm({ message: 'Sure?' }) : prompter[kind]({ message: 'API token:' });
      const settled = asking.then(
        () => 'answered',
        (error: unknown) => (error as Error).name,
      );
      setTimeout(() => controller.abort(Object.assign(new Error('Terminated.'), { signal: 'SIGTERM' })), 20);
      expect(await settled).toBe('AbortPromptError');
    },
  );
});
