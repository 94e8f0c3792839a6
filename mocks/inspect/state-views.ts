import { isoTime, isoTimeOrNull } from '../core/iso-time.js';
import { formatMoney } from '../../src/contract/money.js';
import type { Store } from '../store/store.js';
import { accountsNamed, worldMode } from '../rules/worlds.js';

/** Where the hosted page of an invoice lives: the `invoice_url` every order and deposit answer carries. */
export const INVOICE_PAGE_PREFIX = '/user/invoice/';

/** What the page and its script show of an invoice: `GET /__sandbox/invoices/{code}`. */
export interface InvoiceView {
  invoice_code: string;
  type: 'order' | 'deposit';
  amount: number;
  formatted_amount: string;
  currency: string;
  payment_status: string;
  payment_method: string;
  environment: string;
  /** Times in ISO 8601, UTC, with milliseconds (`2026-11-25T20:08:01.000Z`): the control views' one format. */
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  /** What was ordered, for an order. */
  order: {
    status: string;
    order_type: string;
    platform_username: string;
    credit_amount: number;
    place_id: number;
    platform_pass_id: number;
  } | null;
}

export function invoiceView(store: Store, code: string): InvoiceView | undefined {
  const invoice = store.db.invoices.get(code);
  if (invoice === undefined) return undefined;
  const order = invoice.type === 'order' ? store.db.orders.get(code) : undefined;
  return {
    invoice_code: invoice.invoice_code,
    type: invoice.type,
    amount: invoice.amount,
    formatted_amount: formatMoney(invoice.amount, invoice.currency),
    currency: invoice.currency,
    payment_status: invoice.payment_status,
    payment_method: invoice.payment_method,
    environment: invoice.environment,
    created_at: isoTime(invoice.created_at),
    expires_at: isoTime(invoice.expires_at),
    paid_at: isoTimeOrNull(invoice.paid_at),
    order:
      order === undefined
        ? null
        : {
            status: order.status,
            order_type: order.order_type,
            platform_username: order.platform_username,
            credit_amount: order.credit_amount,
            place_id: order.place_id,
            platform_pass_id: order.platform_pass_id,
          },
  };
}

/** Filters of the state listings (`GET /__sandbox/orders?account=rich&status=pending&since=…&limit=50`). */
export interface StateFilter {
  /** The account's name (demo, rich, …) or username. */
  account?: string | undefined;
  /** An order's `status`, or an invoice's or deposit's `payment_status`. */
  status?: string | undefined;
  /** Created at or after this time, epoch ms. */
  since?: number | undefined;
  /** At most this many, newest first. Default 100. */
  limit?: number | undefined;
}

export interface AccountView {
  id: number;
  name: string;
  username: string;
  mode: string;
  balance: number;
  formatted_balance: string;
}

/** The sandbox's state as the dashboard and scripts in any language read it; newest first. */
export function accountViews(store: Store): AccountView[] {
  return store.db.accounts.all().map((account) => {
    return {
      id: account.id,
      name: account.name,
      username: account.username,
      mode: worldMode(store, account),
      balance: account.balance,
      formatted_balance: formatMoney(account.balance, 'IDR'),
    };
  });
}

export function invoiceViews(store: Store, filter: StateFilter, type?: 'order' | 'deposit'): (InvoiceView & { account: string })[] {
  const accountIds = accountIdsOf(store, filter.account);
  const names = new Map(store.db.accounts.all().map((a) => [a.id, a.name]));
  // Newest first across both worlds of an account: its records in creation order, as one list.
  const invoices =
    accountIds === undefined
      ? store.db.invoices.all()
      : accountIds.length === 1
        ? store.db.invoices.ownedBy(accountIds[0]!)
        : accountIds.flatMap((id) => store.db.invoices.ownedBy(id)).sort((a, b) => a.created_at - b.created_at);
  const matches: (InvoiceView & { account: string })[] = [];
  for (let i = invoices.length - 1; i >= 0 && matches.length < (filter.limit ?? 100); i--) {
    const invoice = invoices[i]!;
    if (type !== undefined && invoice.type !== type) continue;
    if (filter.since !== undefined && invoice.created_at < filter.since) continue;
    const view = invoiceView(store, invoice.invoice_code)!;
    if (filter.status !== undefined && view.payment_status !== filter.status && view.order?.status !== filter.status) continue;
    matches.push({ ...view, account: names.get(invoice.account_id) ?? String(invoice.account_id) });
  }
  return matches;
}

/** The records an account filter names (both worlds of an account with both keys); none matches nothing, not everything. */
function accountIdsOf(store: Store, account: string | undefined): number[] | undefined {
  if (account === undefined) return undefined;
  return accountsNamed(store, account).map((a) => a.id);
}
