import type { Command } from 'commander';
import type { CreditPackage, PaymentMethod } from '../../contract/index.js';
import type { CliContext } from '../context.js';
import { renderFields, renderTable } from '../io/table.js';

export async function runHealth(ctx: CliContext): Promise<void> {
  const health = await (await ctx.client()).health();
  if (ctx.globals.json) return ctx.json(health);
  ctx.out(renderFields([['status', health.status], ['version', health.version], ['time', `${health.time} UTC`]], { terminal: ctx.terminal, style: ctx.style }));
}

export async function runPackages(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.creditPackages();
  if (ctx.globals.json) return ctx.json(data);
  ctx.out(renderTable<CreditPackage>(data.packages, [
    { header: 'code', value: (p) => p.code },
    { header: 'name', value: (p) => p.name },
    { header: 'credits', value: (p) => String(p.credit_amount), align: 'right' },
    { header: 'price', value: (p) => (ctx.terminal ? p.formatted_price : String(p.price)), align: 'right' },
  ], { terminal: ctx.terminal, style: ctx.style }));
}

export async function runPaymentMethods(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.paymentMethods();
  if (ctx.globals.json) return ctx.json(data);
  ctx.out(renderTable<PaymentMethod>(data.payment_methods, [
    { header: 'code', value: (m) => m.code },
    { header: 'name', value: (m) => m.name },
    { header: 'type', value: (m) => m.type },
    { header: 'sandbox', value: (m) => (m.sandbox_allowed ? 'yes' : 'no') },
  ], { terminal: ctx.terminal, style: ctx.style }));
}

export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  program
    .command('health')
    .description('Check that the API answers')
    .addHelpText('after', '\nExamples:\n  $ topup health\n  $ topup health --json')
    .action(() => runHealth(ctx));
  program
    .command('packages')
    .description('List the active credit packages')
    .addHelpText('after', '\nExamples:\n  $ topup packages\n  $ topup packages --json | jq ".packages[].code"')
    .action(() => runPackages(ctx));
  program
    .command('payment-methods')
    .description('List the active payment methods')
    .addHelpText('after', '\nExamples:\n  $ topup payment-methods')
    .action(() => runPaymentMethods(ctx));
}
