import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import { htmlReply } from './html-reply.js';
import { CONTROL_SECRET_SCRIPT } from './control-secret-script.js';
import type { Store } from '../store/store.js';
import { invoiceView } from '../inspect/state-views.js';
import { nextMoveAt } from '../rules/timed-moves.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/**
 * The hosted page of an invoice, as a bot's user would open it from `invoice_url`: what is owed and for what, its
 * status (live: it follows the sandbox's request stream), and, because this is a sandbox, buttons that settle it.
 * No build step and no dependencies: one small HTML document with its style and script inline.
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
    return htmlReply(
      404,
      page(
        'Invoice not found',
        `<main><h1>Invoice not found</h1><p>This sandbox has no invoice <code>${escapeHtml(code)}</code>. It may belong to another sandbox, or the sandbox was reset.</p></main>`,
        '',
      ),
    );
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
  <p id="message" role="status"></p>
</main>`;
  // On the sandbox's clock, which may be ahead of the browser's (POST /__sandbox/clock).
  const next = nextMoveAt(store, code);
  return htmlReply(200, page(`Invoice ${view.invoice_code}`, body, script(view.invoice_code, next === undefined ? null : next - now)));
}

function page(title: string, body: string, js: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · topup sandbox</title>
<style>
  :root { color-scheme: light dark; --accent: #2563eb; --ok: #15803d; --bad: #b91c1c; --muted: #6b7280; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: start center; min-height: 100vh; background: Canvas; color: CanvasText; }
  main { width: min(32rem, 100% - 2rem); margin: 3rem 0; padding: 1.5rem 1.75rem; border: 1px solid color-mix(in srgb, CanvasText 15%, transparent); border-radius: 12px; }
  .banner { margin: 0 0 1rem; padding: .5rem .75rem; border-radius: 8px; background: color-mix(in srgb, #f59e0b 20%, Canvas); font-size: .9rem; }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  code { font: .95em ui-monospace, monospace; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 1.25rem; }
  dt { color: var(--muted); }
  dd { margin: 0; }
  .amount { font-size: 1.5rem; font-weight: 600; }
  .status { font-weight: 600; padding: .05rem .5rem; border-radius: 999px; background: color-mix(in srgb, var(--muted) 20%, Canvas); }
  .status[data-status="paid"] { background: color-mix(in srgb, var(--ok) 25%, Canvas); }
  .status[data-status="failed"], .status[data-status="expired"] { background: color-mix(in srgb, var(--bad) 25%, Canvas); }
  .actions { display: flex; gap: .5rem; flex-wrap: wrap; }
  button { font: inherit; padding: .5rem 1rem; border-radius: 8px; border: 1px solid color-mix(in srgb, CanvasText 25%, transparent); background: Canvas; color: CanvasText; cursor: pointer; }
  button.pay { background: var(--accent); border-color: var(--accent); color: white; }
  button:disabled { opacity: .45; cursor: not-allowed; }
  button:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 60%, transparent); outline-offset: 2px; }
  #message { min-height: 1.5em; color: var(--muted); margin: 1rem 0 0; }
</style>
</head>
<body>
${body}
${js === '' ? '' : `<script>${js}</script>`}
</body>
</html>
`;
}

/** Moves the invoice through the control API (as scripts do) and follows the sandbox's request stream to refresh. */
function script(code: string, nextMoveInMs: number | null): string {
  const base = JSON.stringify(`${CONTROL_PREFIX}/invoices/${encodeURIComponent(code)}`);
  return `${CONTROL_SECRET_SCRIPT}
const base = ${base};
const nextMoveIn = ${JSON.stringify(nextMoveInMs)};
const status = document.getElementById('status');
const orderStatus = document.getElementById('order-status');
const message = document.getElementById('message');
const buttons = [...document.querySelectorAll('button[data-move]')];
function show(view) {
  status.textContent = view.payment_status;
  status.dataset.status = view.payment_status;
  orderStatus.textContent = view.order ? view.order.status : '—';
  for (const button of buttons) button.disabled = view.payment_status !== 'pending';
}
async function refresh() {
  const answer = await controlFetch(base, { headers: { accept: 'application/json' } });
  if (answer.ok) show((await answer.json()).data.invoice);
}
for (const button of buttons) {
  button.addEventListener('click', async () => {
    buttons.forEach((b) => (b.disabled = true));
    const answer = await controlFetch(base + '/' + button.dataset.move, { method: 'POST', headers: { '${CONTROL_HEADER}': '1', accept: 'application/json' } });
    const body = await answer.json().catch(() => ({}));
    message.textContent = body.message || (answer.ok ? 'Done.' : 'The sandbox refused.');
    await refresh();
  });
}
// Any change made elsewhere (the CLI, the control API, a bot) shows here: the sandbox streams every request it answers.
followRequests('${CONTROL_PREFIX}/requests/stream?method=POST,PUT,DELETE', () => refresh());
// Expiry, auto-pay and the magic values' endings happen on the sandbox's clock, at the next request after they are
// due; a bot's polling GETs are not streamed here, so look again (that GET settles it) when the next one is due.
if (nextMoveIn !== null && nextMoveIn < 2 ** 31) setTimeout(refresh, nextMoveIn + 250);
refresh();
`;
}
