import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import { CONTROL_SECRET_DATA, CONTROL_SECRET_SCRIPT, escapeHtml, htmlReply, inlineAsset } from './html-reply.js';
import type { Store } from '../store/store.js';
import { invoiceView } from '../inspect/state-views.js';
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
  let code: string;
  try {
    code = decodeURIComponent(encodedCode);
  } catch {
    code = encodedCode;
  }
  const view = invoiceView(store, code);
  if (view === undefined) {
    return htmlReply(404, {
      title: 'Invoice not found · topup sandbox',
      style: STYLE,
      body: `<main><h1>Invoice not found</h1><p>This sandbox has no invoice <code>${escapeHtml(code)}</code>. It may belong to another sandbox, or the sandbox was reset.</p></main>`,
    });
  }
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
