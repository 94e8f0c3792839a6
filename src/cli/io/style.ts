import { Chalk } from 'chalk';
import { plainStyle, type Style } from './plain-style.js';

export { plainStyle, type Style };

export function createStyle(color: boolean): Style {
  if (!color) return plainStyle;
  const chalk = new Chalk({ level: 1 });
  return { bold: chalk.bold, dim: chalk.dim, green: chalk.green, yellow: chalk.yellow, red: chalk.red, cyan: chalk.cyan };
}
