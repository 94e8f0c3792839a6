import type { Command } from 'commander';
import { isRecord } from '../../../client/answer-data.js';
import type { DashboardSummary } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { amountText, orDash, renderRecord, valueText, type RecordField } from '../../io/format.js';
import { renderTable, type TableView } from '../../io/table.js';
import type { View } from '../../io/view.js';
import { refreshIntervals } from '../shared/choices.js';
import { orderSummaryColumns } from '../orders/list.js';
import { parseWatchSeconds, runWatch, watchInterval } from '../shared/watch.js';

/** The statuses the sandbox counts, in the order a reader expects them. */
const KNOWN_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;

/**
 * The counts by status: the known ones in their order (each present, a dash when missing), then any other the
 * server counts, under its own name and with its value as it is. A status this version does not know is still an
 * order of the account's.
 */
function statusCounts(counts: Record<string, unknown>): [status: string, count: unknown][] {
  const known: readonly string[] = KNOWN_STATUSES;
  const others = Object.keys(counts).filter((name) => name !== 'total' && !known.includes(name));
  return [...known, ...others].map((name) => [name, counts[name]]);
}

/**
 * The piped `orders_<status>: count` fields, each key one word, so that a line is still one `key: value` a script can
 * cut: a server's name has every character but letters, digits and _ made _ (`on hold` → `orders_on_hold`), and one
 * that would repeat a key already given gets _2, _3… (`total: 9` is `orders_total_2`, not a second `orders_total`).
 */
function countFields(counts: readonly [status: string, count: unknown][]): RecordField[] {
  const given = new Set<string>();
  return counts.map(([status, count]) => {
    const base = `orders_${status.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let key = base;
    for (let n = 2; given.has(key); n++) key = `${base}_${n}`;
    given.add(key);
    return { key, label: '', plain: count };
  });
}

/** A count worth naming in the terminal's breakdown: anything but zero or nothing. */
const isShownCount = (count: unknown): boolean => count !== 0 && valueText(count) !== '-';

/**
 * The dashboard as one record. Piped: `key: value` lines, then one `recent_order:` line per recent order
 * holding that order's `orders list` row, so a refresh of `--watch` stays one paragraph.
 */
export function renderDashboard(summary: DashboardSummary, view: View & TableView): string {
  // Every part of the dashboard is our design, not the document's: each may be missing and shows as a dash.
  // Counts by status as an object; anything else the server put there is shown as it is, as `orders`.
  const orders: unknown = summary.orders;
  const counts: Record<string, unknown> = isRecord(orders) ? orders : {};
  const ordersOther = isRecord(orders) || orders === null || orders === undefined ? undefined : valueText(orders);
  const byStatus = statusCounts(counts);
  // A list of orders is a table; anything else the server put there (a text, an object) is shown as it is, beside the
  // rest of the dashboard, and null or nothing as a dash.
  const recent: unknown = summary.recent_orders;
  const recentOrders: readonly NonNullable<DashboardSummary['recent_orders']>[number][] = Array.isArray(recent) ? recent : [];
  const recentOther = Array.isArray(recent) || recent === null || recent === undefined ? undefined : valueText(recent);
  if (!view.terminal) {
    const fields: RecordField[] = [
      { key: 'balance', label: '', plain: summary.balance },
      { key: 'currency', label: '', plain: summary.currency },
      { key: 'total_spent', label: '', plain: summary.total_spent },
      { key: 'pending_invoices', label: '', plain: summary.pending_invoices },
      ...(ordersOther === undefined ? [] : [{ key: 'orders', label: '', plain: ordersOther }]),
      ...countFields([['total', counts.total], ...byStatus]),
    ];
    const columns = orderSummaryColumns(view);
    const rows = recentOrders.map((o) => `recent_order: ${columns.map((c) => c.value(o)).join('\t')}\n`);
    const other = recentOther === undefined ? [] : [{ key: 'recent_orders', label: '', plain: recentOther }];
    return renderRecord([...fields, ...other], view) + rows.join('');
  }
  const style = view.style;
  const breakdown = byStatus.filter(([, count]) => isShownCount(count)).map(([status, count]) => `${valueText(count)} ${status}`);
  const pending = summary.pending_invoices;
  const summaryText = renderRecord(
    [
      {
        key: 'balance',
        label: 'balance',
        plain: amountText(summary.balance, summary.formatted_balance, true, summary.currency),
        pretty: style.bold(amountText(summary.balance, summary.formatted_balance, true, summary.currency)),
      },
      {
        key: 'total_spent',
        label: 'total spent',
        plain: amountText(summary.total_spent, summary.formatted_total_spent, true, summary.currency),
      },
      {
        key: 'pending_invoices',
        label: 'pending invoices',
        plain: pending,
        pretty: pending !== undefined && pending > 0 ? style.yellow(String(pending)) : orDash(pending),
      },
      {
        key: 'orders',
        label: 'orders',
        plain:
          ordersOther ??
          (counts.total === undefined && breakdown.length === 0
            ? undefined
            : `${valueText(counts.total)}${breakdown.length > 0 ? ` (${breakdown.join(', ')})` : ''}`),
      },
    ],
    { ...view, title: 'Dashboard' },
  );
  const recentText = !Array.isArray(recent)
    ? (recentOther ?? style.dim('-')) + '\n'
    : recentOrders.length === 0
      ? style.dim('No orders yet.') + '\n'
      : renderTable(recentOrders, orderSummaryColumns(view), view);
  return `${summaryText}\n${style.bold('Recent orders')}\n${recentText}`;
}

export async function runDashboard(ctx: CliContext, options: { watch?: number | boolean }): Promise<void> {
  const client = await ctx.client();
  const view = await ctx.io.tableView();
  const fetch = () => client.account.dashboard({ signal: ctx.signal });
  const seconds = watchInterval(options.watch, refreshIntervals.dashboard.recommended);
  if (seconds !== undefined) {
    return runWatch(ctx, { seconds, fetch, render: (s) => renderDashboard(s, view), serverHint: (s) => s.refresh_after_seconds });
  }
  const summary = await fetch();
  if (ctx.globals.json) return ctx.io.writeJson(summary);
  ctx.io.out(renderDashboard(summary, view));
}

/** `topup dashboard [--watch]`. */
export function registerDashboard(program: Command, ctx: CliContext): void {
  const { min, recommended } = refreshIntervals.dashboard;
  program
    .command('dashboard')
    .description('Show balance, order counts, pending invoices and recent orders')
    .option(
      '--watch [seconds]',
      `refresh until Ctrl-C, every ${recommended} s or the given seconds (at least ${min})`,
      parseWatchSeconds('dashboard', min),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ topup dashboard
  $ topup dashboard --watch
  $ topup dashboard --watch 30 --json   # one JSON line per refresh`,
    )
    .action((options: { watch?: number | boolean }) => runDashboard(ctx, options));
}
