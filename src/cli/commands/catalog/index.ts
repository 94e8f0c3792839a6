import type { Command } from 'commander';
import type { CreditPackage, PaymentMethod } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { listIn } from '../shared/answer.js';
import { amountText, flagText, orDash, timeText } from '../../io/format.js';
import { renderFields, renderTable } from '../../io/table.js';

export async function runHealth(ctx: CliContext): Promise<void> {
  const health = await (await ctx.client()).health();
  if (ctx.globals.json) return ctx.io.writeJson(health);
  ctx.io.out(
    renderFields(
      [
        ['status', orDash(health.status)],
        ['version', orDash(health.version)],
        ['time', timeText(health.time, ctx.io.view)],
      ],
      ctx.io.view,
    ),
  );
}

export async function runPackages(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.creditPackages();
  if (ctx.globals.json) return ctx.io.writeJson(data);
  await ctx.io.page(
    renderTable<CreditPackage>(
      listIn(data, 'packages'),
      [
        { header: 'code', value: (p) => p.code },
        { header: 'name', value: (p) => p.name, free: true },
        { header: 'credits', value: (p) => String(p.credit_amount), align: 'right' },
        { header: 'price', value: (p) => amountText(p.price, p.formatted_price, ctx.io.terminal, p.currency), align: 'right' },
      ],
      await ctx.io.tableView(),
    ),
    ctx.signal,
  );
}

export async function runPaymentMethods(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.paymentMethods();
  if (ctx.globals.json) return ctx.io.writeJson(data);
  await ctx.io.page(
    renderTable<PaymentMethod>(
      listIn(data, 'payment_methods'),
      [
        { header: 'code', value: (m) => orDash(m.code) },
        { header: 'name', value: (m) => orDash(m.name), free: true },
        { header: 'type', value: (m) => orDash(m.type) },
        { header: 'sandbox', value: (m) => flagText(m.sandbox_allowed, true) },
      ],
      await ctx.io.tableView(),
    ),
    ctx.signal,
  );
}

export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  program
    .command('health')
    .description('Check that the API answers')
    .addHelpText(
      'after',
      `
Examples:
  $ topup health
  $ topup health --json`,
    )
    .action(() => runHealth(ctx));
  program
    .command('packages')
    .description('List the active credit packages')
    .addHelpText(
      'after',
      `
Examples:
  $ topup packages
  $ topup packages --json | jq ".packages[].code"`,
    )
    .action(() => runPackages(ctx));
  program
    .command('payment-methods')
    .description('List the active payment methods')
    .addHelpText(
      'after',
      `
Examples:
  $ topup payment-methods`,
    )
    .action(() => runPaymentMethods(ctx));
}
