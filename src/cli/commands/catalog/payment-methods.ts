import type { Command } from 'commander';
import type { PaymentMethod } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { listIn } from '../shared/answer.js';
import { showWholeList } from '../shared/whole-list.js';
import { flagText, orDash } from '../../io/format.js';

export async function runPaymentMethods(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).catalog.paymentMethods({ signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  await showWholeList<PaymentMethod>(
    ctx,
    listIn(data, 'payment_methods'),
    [
      { header: 'code', value: (m) => orDash(m.code) },
      { header: 'name', value: (m) => orDash(m.name), free: true, priority: 3 },
      { header: 'type', value: (m) => orDash(m.type), priority: 2 },
      { header: 'sandbox', value: (m) => flagText(m.sandbox_allowed, true), priority: 1 },
    ],
    'active payment methods',
  );
}

/** `topup payment-methods`. */
export function registerPaymentMethods(program: Command, ctx: CliContext): void {
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
