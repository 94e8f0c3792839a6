import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { InvoiceMove } from '../../sandbox/control.js';
import { controlFor } from './control.js';

export async function runMove(ctx: CliContext, verb: InvoiceMove, invoiceCode: string): Promise<void> {
  await (await controlFor(ctx)).control.move(verb, invoiceCode);
  if (ctx.globals.json) return ctx.io.writeJson({ invoice_code: invoiceCode, action: verb });
  ctx.io.success(`${moveDone[verb]} ${invoiceCode}.`);
}

const moveDone: Record<InvoiceMove, string> = {
  pay: 'Paid',
  expire: 'Expired',
  fail: 'Failed',
  complete: 'Completed order',
  failOrder: 'Failed and refunded order',
};

/** The moves of an invoice or its order: `topup mock pay`, `expire`, `fail`, `complete` and `fail-order`. */
export function registerMoves(mock: Command, ctx: CliContext): void {
  const moves: [string, InvoiceMove, string][] = [
    ['pay', 'pay', 'Pay an invoice (an order starts processing; a deposit credits the balance)'],
    ['expire', 'expire', 'Expire an unpaid invoice (its order is cancelled)'],
    ['fail', 'fail', 'Fail the payment of an unpaid invoice (its order is cancelled)'],
    ['complete', 'complete', 'Complete a paid order'],
    ['fail-order', 'failOrder', 'Fail a paid order and refund its total to the balance'],
  ];
  for (const [name, verb, description] of moves) {
    // complete and fail-order act on a paid order: their examples pay it first.
    const paidFirst = name === 'complete' || name === 'fail-order';
    mock
      .command(`${name} <invoice>`)
      .description(description)
      .addHelpText(
        'after',
        `
While topup mock serve serves the config folder's sandbox, this acts on it as it is. On a sandbox served
with --fresh or --state, add --base-url http://127.0.0.1:4010.

Examples:
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
${paidFirst ? '  $ topup mock pay "$inv"\n' : ''}  $ topup mock ${name} "$inv"`,
      )
      .action((invoice: string) => runMove(ctx, verb, invoice));
  }
}
