import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { registerHealth } from './health.js';
import { registerPackages } from './packages.js';
import { registerPaymentMethods } from './payment-methods.js';

/** What needs no token: `topup health`, `topup packages` and `topup payment-methods`. */
export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  registerHealth(program, ctx);
  registerPackages(program, ctx);
  registerPaymentMethods(program, ctx);
}
