import { ExitPromptError } from '@inquirer/core';
import type { Prompter } from '../../src/cli/prompter.js';

/** `cancel` is Ctrl-C at that question: the prompt library's own ExitPromptError. */
export type Answer = { input: string } | { password: string } | { select: string } | { confirm: boolean } | { cancel: true };

export interface Question {
  kind: 'input' | 'password' | 'select' | 'confirm';
  message: string;
  choices?: string[];
  default?: unknown;
}

/**
 * A prompter that plays a script: each question takes the next answer, which must be of the same kind.
 * Answers go through the question's own validate, as a person's would; a refused answer fails the test.
 */
export function scriptedPrompter(script: Answer[]): Prompter & { asked: Question[]; left: () => number } {
  const answers = [...script];
  const asked: Question[] = [];
  function take<K extends Question['kind']>(question: Question & { kind: K }, validate?: (value: string) => true | string): unknown {
    asked.push(question);
    const answer = answers.shift();
    if (answer !== undefined && 'cancel' in answer) throw new ExitPromptError('User force closed the prompt with 0 null');
    if (answer === undefined || !(question.kind in answer)) {
      throw new Error(
        `unexpected ${question.kind} question "${question.message}"; the script has ${answer === undefined ? 'no answer left' : JSON.stringify(answer)}`,
      );
    }
    const value = (answer as Record<string, unknown>)[question.kind];
    if (validate && typeof value === 'string') {
      const verdict = validate(value);
      if (verdict !== true) throw new Error(`the answer ${JSON.stringify(value)} to "${question.message}" was refused: ${verdict}`);
    }
    return value;
  }
  return {
    asked,
    left: () => answers.length,
    input: async (o) => take({ kind: 'input', message: o.message, default: o.default }, o.validate) as string,
    password: async (o) => take({ kind: 'password', message: o.message }, o.validate) as string,
    select: async <T extends string>(o: { message: string; choices: { name: string; value: T }[]; default?: T }) => {
      const value = take({ kind: 'select', message: o.message, choices: o.choices.map((c) => c.value), default: o.default }) as T;
      if (!o.choices.some((c) => c.value === value)) throw new Error(`${value} is not one of the choices of "${o.message}"`);
      return value;
    },
    confirm: async (o) => take({ kind: 'confirm', message: o.message, default: o.default }) as boolean,
  };
}
