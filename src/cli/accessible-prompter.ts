import { InterruptedError, UsageError } from './errors.js';
import type { Prompter } from './prompter.js';

/** What the line prompts need: stdin (a terminal: raw mode hides a password) and somewhere to write the questions. */
export interface LineTerminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  stderr: { write(text: string): unknown };
}

/**
 * Accessible mode's prompts (TOPUP_ACCESSIBLE), in the spirit of gh's accessible prompter: each question is a line,
 * the choices of a select are a numbered list, the answer is typed and ends with Enter. Nothing is redrawn, no cursor
 * is moved or hidden, so a screen reader reads the questions in order. Ctrl-C exits 130, as in every prompt.
 */
export function accessiblePrompter(term: LineTerminal, signal?: AbortSignal): Prompter {
  const ask = async <T extends object>(question: string, parse: (answer: string) => T | string, hidden = false): Promise<T> => {
    for (;;) {
      const answer = await readLine(term, question, hidden, signal);
      if (hidden) term.stderr.write('\n');
      const parsed = parse(answer);
      // A string is the sentence saying why the answer was refused: ask again.
      if (typeof parsed !== 'string') return parsed;
      term.stderr.write(`${parsed}\n`);
    }
  };
  const checked =
    (validate: ((value: string) => true | string) | undefined, fallback?: string) =>
    (answer: string): { value: string } | string => {
      const value = answer === '' && fallback !== undefined ? fallback : answer;
      const verdict = validate ? validate(value) : true;
      return verdict === true ? { value } : verdict;
    };
  return {
    input: async (o) =>
      (await ask(`${said(o.message)}${o.default === undefined ? '' : ` (default: ${o.default})`}: `, checked(o.validate, o.default))).value,
    password: async (o) => (await ask(`${said(o.message)} (typing is not shown): `, checked(o.validate), true)).value,
    select: async <T extends string>(o: { message: string; choices: { name: string; value: T; description?: string }[]; default?: T }) => {
      const list = o.choices.map((c, i) => `  ${i + 1}. ${c.name}${c.description ? `: ${c.description}` : ''}`).join('\n');
      const preset = o.default === undefined ? -1 : o.choices.findIndex((c) => c.value === o.default);
      const hint = preset >= 0 ? ` (default: ${preset + 1})` : '';
      const picked = await ask(`${said(o.message)}\n${list}\nType a number from 1 to ${o.choices.length}${hint}: `, (answer) => {
        const n = answer.trim() === '' && preset >= 0 ? preset + 1 : Number(answer.trim());
        return Number.isInteger(n) && n >= 1 && n <= o.choices.length
          ? { value: o.choices[n - 1]!.value }
          : `Type a number from 1 to ${o.choices.length}.`;
      });
      return picked.value;
    },
    confirm: async (o) =>
      (
        await ask(`${said(o.message)} (${o.default === true ? 'Y/n' : o.default === false ? 'y/N' : 'y/n'}): `, (answer) => {
          const word = answer.trim().toLowerCase();
          if (word === '' && o.default !== undefined) return { value: o.default };
          if (['y', 'yes'].includes(word)) return { value: true };
          if (['n', 'no'].includes(word)) return { value: false };
          return 'Type yes or no.';
        })
      ).value,
  };
}

/** A question as the prompts' callers write it (inquirer's style ends it with a colon), without that colon: the line adds its own. */
const said = (message: string): string => message.replace(/:\s*$/, '');

/**
 * The longest answer read: a token, a URL or a name is far shorter. A line that never ends (a file or a stream piped to
 * a terminal's prompt by mistake) is refused past this instead of being held in memory without end.
 */
export const MAX_ANSWER_CHARS = 4096;

/**
 * Asks `question`, then reads one line from stdin, up to Enter, of at most MAX_ANSWER_CHARS. Hidden (a password): raw mode, so the terminal does not echo what is typed;
 * Backspace removes a character, Ctrl-C interrupts. Otherwise the terminal's own line editing and echo: there Ctrl-C
 * never reaches stdin, the terminal sends SIGINT, which aborts the run's `signal`, and that ends the question at once.
 */
function readLine(term: LineTerminal, question: string, hidden: boolean, signal: AbortSignal | undefined): Promise<string> {
  signal?.throwIfAborted();
  // A terminal's stdin is a tty.ReadStream, which has setRawMode.
  const stdin = term.stdin as LineTerminal['stdin'] & { setRawMode?: (mode: boolean) => unknown };
  const raw = hidden && stdin.isTTY === true && typeof stdin.setRawMode === 'function';
  // The echo goes off before the question shows: what is typed once it can be read is never on the screen.
  if (raw) stdin.setRawMode!(true);
  term.stderr.write(question);
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      term.stdin.off('data', onData);
      term.stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      term.stdin.pause();
      if (raw) stdin.setRawMode!(false);
      if (error) reject(error);
      else resolve(text);
    };
    const onEnd = () => finish(new InterruptedError('SIGINT'));
    // The run's own reason (an InterruptedError naming SIGINT or SIGTERM), as every other wait rejects with it.
    const onAbort = () => finish(signal?.reason instanceof Error ? signal.reason : new InterruptedError('SIGINT'));
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\u0003' || char === '\u0004') return finish(new InterruptedError('SIGINT'));
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
        if (text.length > MAX_ANSWER_CHARS)
          return finish(new UsageError(`An answer may be at most ${MAX_ANSWER_CHARS} characters (4 KiB); this one went on past that.`));
      }
    };
    term.stdin.on('data', onData);
    term.stdin.on('end', onEnd);
    signal?.addEventListener('abort', onAbort, { once: true });
    term.stdin.resume();
  });
}
