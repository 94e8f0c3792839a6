import type { Command } from 'commander';
import type { Deposit } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, statusText, timeText, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { parseInvoiceCode } from '../shared/choices.js';
import { runShow } from '../shared/show-record.js';

export function depositFields(deposit: Deposit, view: View): RecordField[] {
  return [
    { key: 'invoice_code', label: 'invoice', plain: deposit.invoice_code },
    { key: 'payment_status', label: 'status', plain: deposit.payment_status, pretty: statusText(deposit.payment_status, view.style) },
    {
      key: 'amount',
      label: 'amount',
      plain: amountText(deposit.amount, deposit.formatted_amount, view.terminal, deposit.currency),
      pretty: view.style.bold(amountText(deposit.amount, deposit.formatted_amount, true, deposit.currency)),
    },
    { key: 'currency', label: 'currency', plain: deposit.currency },
    { key: 'payment_method', label: 'method', plain: deposit.payment_method },
    { key: 'invoice_url', label: 'invoice url', plain: deposit.invoice_url },
    { key: 'created_at', label: 'created', plain: timeText(deposit.created_at, view) },
    { key: 'expires_at', label: 'expires', plain: timeText(deposit.expires_at, view) },
    { key: 'paid_at', label: 'paid', plain: timeText(deposit.paid_at, view) },
  ];
}

export async function runDepositsShow(ctx: CliContext, invoiceCode: string): Promise<void> {
  const client = await ctx.client();
  await runShow<Deposit>(ctx, invoiceCode, {
    key: 'deposit',
    title: 'Deposit',
    fetch: () => client.deposits.get(invoiceCode, { signal: ctx.signal }),
    fields: depositFields,
  });
}

/** `topup deposits show INVOICE`. */
export function registerDepositsShow(deposits: Command, ctx: CliContext): void {
  deposits
    .command('show')
    .argument('<invoice>', "the deposit's invoice code", parseInvoiceCode)
    .description('Show one deposit')
    .addHelpText(
      'after',
      `
Examples:
  $ dep=$(topup mock deposit 50000)   # a sandbox deposit
  $ topup deposits show "$dep"
  $ topup deposits show "$dep" --json`,
    )
    .action((invoice: string) => runDepositsShow(ctx, invoice));
}
