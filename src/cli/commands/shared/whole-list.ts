import type { CliContext } from '../../context.js';
import { renderTable, type Column } from '../../io/table.js';

/**
 * A list the server sends whole (the catalog's), as a table on stdout. On a terminal an empty list is a dim
 * "No <noun>." on stderr rather than a lone header row, as the paged lists say it; piped, it is no lines at all.
 */
export async function showWholeList<T>(ctx: CliContext, rows: readonly T[], columns: readonly Column<T>[], noun: string): Promise<void> {
  if (rows.length === 0) {
    if (ctx.io.terminal) ctx.io.notice(ctx.io.errStyle.dim(`No ${noun}.`));
    return;
  }
  await ctx.io.page(renderTable(rows, columns, await ctx.io.tableView()), ctx.signal);
}
