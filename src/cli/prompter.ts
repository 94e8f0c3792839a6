/** The questions a command may ask. The real one is @inquirer/prompts, loaded on first use; tests pass a scripted one. */
export interface Prompter {
  input(this: void, options: { message: string; default?: string; validate?: (value: string) => true | string }): Promise<string>;
  password(this: void, options: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  select<T extends string>(
    this: void,
    options: { message: string; choices: { name: string; value: T; description?: string }[]; default?: T },
  ): Promise<T>;
  confirm(this: void, options: { message: string; default?: boolean }): Promise<boolean>;
}

export async function inquirerPrompter(io: {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream | { write(s: string): unknown };
}): Promise<Prompter> {
  const prompts = await import('@inquirer/prompts');
  // Prompts draw on stderr, so stdout stays clean for data even in interactive runs.
  const context = { input: io.stdin, output: io.stderr as NodeJS.WritableStream, clearPromptOnDone: false };
  return {
    input: (o) =>
      prompts.input(
        { message: o.message, ...(o.default === undefined ? {} : { default: o.default }), ...(o.validate ? { validate: o.validate } : {}) },
        context,
      ),
    password: (o) => prompts.password({ message: o.message, mask: '*', ...(o.validate ? { validate: o.validate } : {}) }, context),
    select: (o) =>
      prompts.select({ message: o.message, choices: o.choices, ...(o.default === undefined ? {} : { default: o.default }) }, context),
    confirm: (o) => prompts.confirm({ message: o.message, ...(o.default === undefined ? {} : { default: o.default }) }, context),
  };
}
