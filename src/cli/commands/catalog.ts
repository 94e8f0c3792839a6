import type { Command } from 'commander';
import type { CreditPackage, PaymentMethod } from '../../contract/index.js';
import type { CliContext } from '../context.js';
import { listIn } from './answer.js';
import { amountText, flagText, orDash } from '../io/format.js';
import { renderFields, renderTable } from '../io/table.js';

export async function runHealth(ctx: CliContext): Promise<void> {
  const health = await (await ctx.client()).health();
  if (ctx.globals.json) return ctx.io.writeJson(health);
  ctx.io.out(
    renderFields(
      [
        ['status', orDash(health.status)],
        ['version', orDash(health.version)],
        ['time', health.time === undefined ? '-' : `${health.time} UTC`],
      ],
      { terminal: ctx.io.terminal, style: ctx.io.style },
    ),
  );
}

export async function runPackages(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.creditPackages();
  if (ctx.globals.json) return ctx.io.writeJson(data);
  ctx.io.out(
    renderTable<CreditPackage>(
      listIn(data, 'packages'),
      [
        { header: 'code', value: (p) => p.code },
        { header: 'name', value: (p) => p.name },
        { header: 'credits', value: (p) => String(p.credit_amount), align: 'right' },
        { header: 'price', value: (p) => amountText(p.price, p.formatted_price, ctx.io.terminal), align: 'right' },
      ],
      { terminal: ctx.io.terminal, style: ctx.io.style },
    ),
  );
}

export async function runPaymentMethods(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.paymentMethods();
  if (ctx.globals.json) return ctx.io.writeJson(data);
  ctx.io.out(
    renderTable<PaymentMethod>(
      listIn(data, 'payment_methods'),
      [
        { header: 'code', value: (m) => orDash(m.code) },
        { header: 'name', value: (m) => orDash(m.name) },
        { header: 'type', value: (m) => orDash(m.type) },
        { header: 'sandbox', value: (m) => flagText(m.sandbox_allowed, true) },
      ],
      { terminal: ctx.io.terminal, style: ctx.io.style },
    ),
  );
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
