import { Chalk } from 'chalk';

/** Colour only on a terminal, never with --no-color or NO_COLOR. Piped output stays plain. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

export function createStyle(color: boolean): Style {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  return { bold: chalk.bold, dim: chalk.dim, green: chalk.green, yellow: chalk.yellow, red: chalk.red, cyan: chalk.cyan };
}

export const plainStyle: Style = createStyle(false);
