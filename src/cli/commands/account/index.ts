import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { registerDashboard } from './dashboard.js';
import { registerMe } from './me.js';

/** The account's own views: `topup me` and `topup dashboard`. */
export function registerAccountCommands(program: Command, ctx: CliContext): void {
  registerMe(program, ctx);
  registerDashboard(program, ctx);
}
