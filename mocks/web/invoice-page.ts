import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import { CONTROL_SECRET_DATA, CONTROL_SECRET_SCRIPT, escapeHtml, htmlReply, inlineAsset } from './html-reply.js';
import type { Store } from '../store/store.js';
import { INVOICE_PAGE_PREFIX, invoiceView } from '../inspect/state-views.js';
import { nextMoveAt } from '../rules/timed-moves.js';
import script from './invoice-page/script.js?raw';
import style from './invoice-page/style.css?raw';

const STYLE = inlineAsset('style', style);
const SCRIPT = inlineAsset('script', script);

/**
 * The hosted page of an invoice, as a bot's user would open it from `invoice_url`: what is owed and for what, its
 * status (live: it follows the sandbox's request stream), and, because this is a sandbox, buttons that settle it.
 * No build step in the browser and no dependencies: one small HTML document with its style and script inline (files in
 * ./invoice-page/, put into the bundle as text); what differs between invoices is rendered here, escaped.
 */
export function invoicePage(store: Store, encodedCode: string, now: number): SandboxReply {
  const code = decodeSegment(encodedCode);
  const view = invoiceView(store, code);
  if (view === undefined) return invoiceNotFound(code);
  const what = view.order
    ? `${view.order.credit_amount.toLocaleString('en-US')} credits (${view.order.order_type === 'vip_server' ? 'VIP server' : 'game pass'} ${view.order.platform_pass_id}) for ${escapeHtml(view.order.platform_username)}`
    : 'A deposit to the account balance';
  const body = `<main>
  <p class="banner" role="note">Sandbox: no real money moves. Use the buttons to decide how this invoice ends.</p>
  <h1>${view.type === 'order' ? 'Order' : 'Deposit'} <code>${escapeHtml(view.invoice_code)}</code></h1>
  <dl>
    <dt>Amount</dt><dd class="amount">${escapeHtml(view.formatted_amount)}</dd>
    <dt>For</dt><dd>${what}</dd>
    <dt>Status</dt><dd><span id="status" class="status" data-status="${escapeHtml(view.payment_status)}" aria-live="polite">${escapeHtml(view.payment_status)}</span></dd>
    <dt>Order</dt><dd id="order-status">${escapeHtml(view.order?.status ?? '—')}</dd>
    <dt>Expires</dt><dd><time id="expires" datetime="${new Date(view.expires_at).toISOString()}">${new Date(view.expires_at).toISOString().replace('T', ' ').slice(0, 16)} UTC</time></dd>
  </dl>
  <div class="actions" role="group" aria-label="Settle this sandbox invoice">
    <button type="button" data-move="pay" class="pay">Pay</button>
    <button type="button" data-move="fail">Fail</button>
    <button type="button" data-move="expire">Let it expire</button>
  </div>
  <p id="message" role="status" tabindex="-1"></p>
</main>`;
  // On the sandbox's clock, which may be ahead of the browser's (POST /__sandbox/clock).
  const next = nextMoveAt(store, code);
  return htmlReply(200, {
    title: `Invoice ${view.invoice_code} · topup sandbox`,
    style: STYLE,
    body,
    scripts: [CONTROL_SECRET_SCRIPT, SCRIPT],
    data: {
      ...CONTROL_SECRET_DATA,
      api: CONTROL_PREFIX,
      controlHeader: CONTROL_HEADER,
      invoice: view.invoice_code,
      nextMoveIn: next === undefined ? '' : String(next - now),
    },
  });
}

/**
 * A gateway order's `payment_url` (`/pay/{method}/{code}`, given here without its prefix): on the sandbox, where no
 * gateway takes money, it leads to the invoice's own page, whose buttons settle it. A 303 to that page, its Location
 * a path (never built from the request's Host), so the browser stays on the origin it came by. Only a link the
 * sandbox handed out leads there: the invoice must have a payment link, by that method; anything else is the invoice
 * page's 404.
 */
export function paymentLink(store: Store, encodedRest: string): SandboxReply {
  const segments = encodedRest.split('/');
  const method = decodeSegment(segments[0] ?? '');
  const code = decodeSegment(segments[1] ?? '');
  const invoice = segments.length === 2 ? store.db.invoices.get(code) : undefined;
  if (invoice === undefined || invoice.payment_url === '' || invoice.payment_method !== method) return invoiceNotFound(code, method);
  return {
    status: 303,
    headers: { location: `${INVOICE_PAGE_PREFIX}${encodeURIComponent(invoice.invoice_code)}`, 'cache-control': 'no-store' },
    body: '',
  };
}

/** The 404 page of an invoice the sandbox does not hold (or, from a payment link, not with that payment method). */
function invoiceNotFound(code: string, method?: string): SandboxReply {
  const paidWith = method === undefined ? '' : ` to pay with <code>${escapeHtml(method)}</code>`;
  return htmlReply(404, {
    title: 'Invoice not found · topup sandbox',
    style: STYLE,
    body: `<main><h1>Invoice not found</h1><p>This sandbox has no invoice <code>${escapeHtml(code)}</code>${paidWith}. It may belong to another sandbox, or the sandbox was reset.</p></main>`,
  });
}

/** One path segment as it was meant, or as it came when it does not decode. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
