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

const same = (text: string): string => text;

/**
 * The prompts' theme without colour, for --no-color and NO_COLOR. @inquirer colours with node's styleText, which knows
 * neither our flag nor our environment (it reads process.env and process.stdout), so every style it has is replaced.
 */
export const plainPromptTheme = {
  prefix: { idle: '?', done: '✔' },
  spinner: { interval: 80, frames: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] },
  style: {
    answer: same,
    message: same,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: same,
    highlight: same,
    key: (text: string) => `<${text}>`,
    disabled: same,
    description: same,
    keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${key} ${action}`).join(' • '),
    confirmDefault: same,
  },
};

export async function inquirerPrompter(
  io: {
    stdin: NodeJS.ReadableStream;
    stderr: NodeJS.WritableStream | { write(s: string): unknown };
    stderrColorEnabled: boolean;
  },
  signal?: AbortSignal,
): Promise<Prompter> {
  const prompts = await import('@inquirer/prompts');
  // Prompts draw on stderr, so stdout stays clean for data even in interactive runs. The run's signal ends a prompt:
  // a SIGTERM (kill, timeout, systemd) stops the command there, as anywhere else, not only a second one.
  const context = {
    input: io.stdin,
    output: io.stderr as NodeJS.WritableStream,
    clearPromptOnDone: false,
    ...(signal === undefined ? {} : { signal }),
  };
  const theme = io.stderrColorEnabled ? {} : { theme: plainPromptTheme };
  return {
    input: (o) =>
      prompts.input(
        {
          message: o.message,
          ...(o.default === undefined ? {} : { default: o.default }),
          ...(o.validate ? { validate: o.validate } : {}),
          ...theme,
        },
        context,
      ),
    password: (o) =>
      prompts.password({ message: o.message, mask: '*', ...(o.validate ? { validate: o.validate } : {}), ...theme }, context),
    select: (o) =>
      prompts.select(
        { message: o.message, choices: o.choices, ...(o.default === undefined ? {} : { default: o.default }), ...theme },
        context,
      ),
    confirm: (o) => prompts.confirm({ message: o.message, ...(o.default === undefined ? {} : { default: o.default }), ...theme }, context),
  };
}
