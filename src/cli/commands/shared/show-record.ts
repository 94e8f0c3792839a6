import type { CliContext } from '../../context.js';
import { renderRecord, type RecordField } from '../../io/format.js';
import type { View } from '../../io/view.js';
import { recordIn } from './answer.js';

/** What a `show CODE` command of a record named by its invoice code needs: how to fetch it and what it shows. */
export interface ShowPlan<T> {
  /** The detail answer's record key (`{ order: … }`): `order`, `invoice`, `deposit`. */
  key: string;
  /** The title's first word: `Order`, `Invoice`, `Deposit`. */
  title: string;
  fetch(): Promise<object>;
  fields(record: T, view: View): RecordField[];
}

/**
 * The one shape of `orders show`, `invoices show` and `deposits show`: the answer as it is with --json; else its
 * record as fields, titled with the record's own code (the one typed when the server leaves it out).
 */
export async function runShow<T extends { invoice_code?: string | undefined }>(
  ctx: CliContext,
  invoiceCode: string,
  plan: ShowPlan<T>,
): Promise<void> {
  const data = await plan.fetch();
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = await ctx.io.tableView();
  const record = recordIn<T>(data, plan.key, (text) => ctx.io.notice(text));
  ctx.io.out(renderRecord(plan.fields(record, view), { ...view, title: `${plan.title} ${record.invoice_code ?? invoiceCode}` }));
}
