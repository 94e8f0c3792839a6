import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import { htmlReply } from './html-reply.js';
import { CONTROL_SECRET_SCRIPT } from './control-secret-script.js';

/** The dashboard's address: the control API's root, `{base}/__sandbox/`. */
export const DASHBOARD_PATH = `${CONTROL_PREFIX}/`;

/**
 * The sandbox's dashboard: accounts, invoices with their moves, the live request log with a detail view, faults, the
 * clock, reset and the fixtures. One HTML document with inline style and script and no build step. It reads and
 * drives the same control API scripts use (no second API), and renders every value with textContent, never as HTML.
 */
export function dashboardPage(): SandboxReply {
  return htmlReply(200, HTML);
}

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>topup sandbox</title>
<style>
  :root { color-scheme: light dark; --accent: #2563eb; --ok: #15803d; --warn: #b45309; --bad: #b91c1c; --muted: #6b7280; --line: color-mix(in srgb, CanvasText 12%, transparent); }
  * { box-sizing: border-box; }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; background: Canvas; color: CanvasText; }
  header { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: Canvas; z-index: 1; }
  header h1 { font-size: 1.05rem; margin: 0; }
  .badge { font-size: .75rem; padding: .1rem .5rem; border-radius: 999px; background: color-mix(in srgb, #f59e0b 25%, Canvas); }
  header .spacer { flex: 1; }
  main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; padding: 1rem 1.25rem; }
  section { border: 1px solid var(--line); border-radius: 10px; padding: .75rem 1rem; min-width: 0; }
  section.wide { grid-column: 1 / -1; }
  h2 { font-size: .95rem; margin: 0 0 .5rem; display: flex; align-items: center; gap: .5rem; }
  table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { font-weight: 600; color: var(--muted); font-size: .8rem; }
  td.num { text-align: right; }
  .scroll { max-height: 24rem; overflow: auto; }
  .log-wrap { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; }
  #detail { max-height: 24rem; overflow: auto; border-left: 1px solid var(--line); padding-left: 1rem; }
  #detail h3 { font-size: .8rem; margin: .5rem 0 0; }
  header form { margin: 0; }
  header input { width: 6rem; }
  code, pre { font: 12.5px/1.4 ui-monospace, monospace; }
  pre { white-space: pre-wrap; word-break: break-all; margin: .25rem 0 .75rem; padding: .5rem; border-radius: 6px; background: color-mix(in srgb, CanvasText 5%, Canvas); max-height: 18rem; overflow: auto; }
  .s2 { color: var(--ok); } .s4 { color: var(--warn); } .s5, .sdropped { color: var(--bad); }
  .status { font-weight: 600; }
  button, select, input { font: inherit; padding: .25rem .55rem; border-radius: 6px; border: 1px solid color-mix(in srgb, CanvasText 25%, transparent); background: Canvas; color: CanvasText; }
  button { cursor: pointer; }
  button.primary { background: var(--accent); border-color: var(--accent); color: white; }
  button.danger { color: var(--bad); }
  button:focus-visible, input:focus-visible, select:focus-visible, tr[tabindex]:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 55%, transparent); outline-offset: 1px; }
  form { display: flex; gap: .4rem; flex-wrap: wrap; align-items: end; margin: .5rem 0; }
  label { display: grid; gap: .1rem; font-size: .8rem; color: var(--muted); }
  tr[tabindex] { cursor: pointer; }
  tr[aria-selected="true"] td { background: color-mix(in srgb, var(--accent) 12%, Canvas); }
  .muted { color: var(--muted); }
  #toast { position: fixed; bottom: 1rem; right: 1rem; padding: .5rem .75rem; border-radius: 8px; background: CanvasText; color: Canvas; opacity: 0; transition: opacity .2s; }
  #toast.show { opacity: .92; }
  @media (max-width: 900px) { main, .log-wrap { grid-template-columns: 1fr; } #detail { border-left: 0; padding-left: 0; } }
</style>
</head>
<body>
<header>
  <h1>topup sandbox</h1><span class="badge">sandbox: test data only</span>
  <span class="spacer"></span>
  <span class="muted">Clock: <time id="clock">…</time></span>
  <form id="clock-form" aria-label="Move the sandbox clock">
    <label>Advance (s)<input id="advance" type="number" min="0" value="3600" size="6"></label>
    <button type="submit">Advance</button>
  </form>
  <button id="reset" class="danger" type="button">Reset to seed</button>
</header>
<main>
  <section class="wide" aria-labelledby="log-title">
    <h2 id="log-title">Requests <span class="muted" id="log-count"></span></h2>
    <form id="log-filter" aria-label="Filter the request log">
      <label>Method<input id="f-method" placeholder="GET,POST" size="9"></label>
      <label>Status<input id="f-status" placeholder="4xx,429" size="9"></label>
      <label>Path<input id="f-path" placeholder="/api/v1/me/orders" size="22"></label>
      <button type="button" id="clear-log">Clear log</button>
    </form>
    <div class="log-wrap">
      <div class="scroll"><table><thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th class="num">ms</th><th>Account</th><th>Route</th><th>Notes</th></tr></thead><tbody id="log"></tbody></table></div>
      <aside id="detail" aria-labelledby="detail-id"><h2 id="detail-id" class="muted">Select a request to see what was sent and answered.</h2><div id="detail-body"></div></aside>
    </div>
  </section>
  <section aria-labelledby="inv-title">
    <h2 id="inv-title">Invoices</h2>
    <div class="scroll"><table><thead><tr><th>Invoice</th><th>Type</th><th>Account</th><th class="num">Amount</th><th>Payment</th><th>Order</th><th>Actions</th></tr></thead><tbody id="invoices"></tbody></table></div>
  </section>
  <section aria-labelledby="acc-title">
    <h2 id="acc-title">Accounts</h2>
    <table><thead><tr><th>Name</th><th>Username</th><th>Mode</th><th class="num">Balance</th></tr></thead><tbody id="accounts"></tbody></table>
    <h2 style="margin-top:1rem">Faults</h2>
    <table><thead><tr><th>Kind</th><th>When</th><th>Status</th><th>Routes</th><th>Fired</th></tr></thead><tbody id="faults"></tbody></table>
    <form id="fault-form" aria-label="Add a fault">
      <label>Kind<select id="fault-kind"><option value="error">error</option><option value="rate_limit">rate_limit</option><option value="drop_before">drop_before</option><option value="drop_after">drop_after</option><option value="latency">latency</option></select></label>
      <label>Rate<input id="fault-rate" type="number" min="0" max="1" step="0.05" value="1" size="4"></label>
      <label>Status<input id="fault-status" type="number" min="500" max="504" value="503" size="4"></label>
      <label>Routes<input id="fault-routes" placeholder="createOrder" size="12"></label>
      <label>Times<input id="fault-times" type="number" min="1" placeholder="all" size="3"></label>
      <button type="submit" class="primary">Add fault</button>
      <button type="button" id="clear-faults">Clear</button>
    </form>
    <details id="fixtures-box"><summary>Fixtures</summary><pre id="fixtures">Loading…</pre></details>
  </section>
</main>
<div id="toast" role="status" aria-live="polite"></div>
<script>
const API = ${JSON.stringify(CONTROL_PREFIX)};
const $ = (id) => document.getElementById(id);
const cell = (text, className) => { const td = document.createElement('td'); td.textContent = text == null ? '—' : String(text); if (className) td.className = className; return td; };
function toast(text) { const t = $('toast'); t.textContent = text; t.classList.add('show'); clearTimeout(toast.timer); toast.timer = setTimeout(() => t.classList.remove('show'), 2500); }
${CONTROL_SECRET_SCRIPT}
async function read(path) { const answer = await controlFetch(API + path, { headers: { accept: 'application/json' } }); return (await answer.json()).data; }
async function change(method, path, body) {
  const answer = await controlFetch(API + path, { method, headers: { '${CONTROL_HEADER}': '1', 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = await answer.json().catch(() => ({}));
  toast(envelope.message || (answer.ok ? 'Done.' : 'Refused.'));
  refreshState();
  return envelope;
}
const moves = { pending: [['pay', 'Pay'], ['expire', 'Expire'], ['fail', 'Fail']] };
async function refreshState() {
  const [accounts, invoices, faults, clock] = await Promise.all([read('/accounts'), read('/invoices?limit=50'), read('/faults'), read('/clock')]);
  $('clock').textContent = clock.now.replace('T', ' ').slice(0, 19) + ' UTC';
  // Expiry, auto-pay and the magic orders' endings happen when a request comes after they are due: look again then
  // (that GET settles them), so a change nobody asked about still shows.
  clearTimeout(refreshState.next);
  if (clock.next_move_at != null) refreshState.next = setTimeout(refreshState, Math.min(Math.max(clock.next_move_at - clock.now_ms, 0) + 250, 2 ** 31 - 1));
  $('accounts').replaceChildren(...accounts.accounts.map((a) => { const tr = document.createElement('tr'); tr.append(cell(a.name), cell(a.username), cell(a.mode), cell(a.formatted_balance, 'num')); return tr; }));
  $('invoices').replaceChildren(...invoices.invoices.map((i) => {
    const tr = document.createElement('tr');
    const actions = document.createElement('td');
    const buttons = [...(moves[i.payment_status] || [])].map(([move, label]) => [API + '/invoices/' + encodeURIComponent(i.invoice_code) + '/' + move, label]);
    if (i.order && i.order.status === 'processing') buttons.push([API + '/orders/' + encodeURIComponent(i.invoice_code) + '/complete', 'Complete'], [API + '/orders/' + encodeURIComponent(i.invoice_code) + '/fail', 'Fail order']);
    for (const [url, label] of buttons) { const b = document.createElement('button'); b.type = 'button'; b.textContent = label; b.setAttribute('aria-label', label + ' ' + i.invoice_code); b.addEventListener('click', () => change('POST', url.slice(API.length))); actions.append(b, ' '); }
    const link = document.createElement('a'); link.href = '/user/invoice/' + encodeURIComponent(i.invoice_code); link.textContent = i.invoice_code;
    const code = document.createElement('td'); code.append(link);
    tr.append(code, cell(i.type), cell(i.account), cell(i.formatted_amount, 'num'), cell(i.payment_status, 'status'), cell(i.order ? i.order.status : null), actions);
    return tr;
  }));
  $('faults').replaceChildren(...(faults.rules.length === 0 ? [(() => { const tr = document.createElement('tr'); tr.append(cell('none', 'muted')); return tr; })()] : faults.rules.map((r, i) => { const tr = document.createElement('tr'); const counts = faults.stats.rules[i]; tr.append(cell(r.kind), cell(faultWhen(r)), cell(r.status ?? (r.kind === 'rate_limit' ? 429 : null)), cell((r.routes || ['all']).join(', ')), cell(counts.fired + ' of ' + counts.matched, 'num')); return tr; })));
}
// A rule's rate and sequence in words: "10%", "after 2, 3 times".
function faultWhen(r) {
  const parts = [];
  if (r.rate !== undefined && (r.rate !== 1 || (r.times === undefined && r.after === undefined))) parts.push(Math.round(r.rate * 1000) / 10 + '%');
  if (r.after) parts.push('after ' + r.after);
  if (r.times !== undefined) parts.push(r.times === 1 ? 'once' : r.times + ' times');
  return parts.join(', ') || '100%';
}
const entries = [];
let selected;
function matches(e) {
  const list = (id) => $(id).value.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
  const methods = list('f-method'), statuses = list('f-status'), path = $('f-path').value.trim();
  const status = e.status == null ? 'dropped' : String(e.status);
  return (methods.length === 0 || methods.includes(e.method.toLowerCase()))
    && (statuses.length === 0 || statuses.some((s) => s === status || (/^[1-5]xx$/.test(s) && status[0] === s[0])))
    && (path === '' || e.path.startsWith(path));
}
function row(e) {
  const tr = document.createElement('tr');
  tr.tabIndex = 0;
  tr.setAttribute('aria-selected', String(selected === e.id));
  const status = e.status == null ? 'dropped' : String(e.status);
  const notes = [e.idempotency_key && 'key ' + e.idempotency_key, e.idempotent_replay && 'replay', e.fault && 'fault: ' + e.fault, e.near_miss && 'did you mean ' + e.near_miss + '?'].filter(Boolean).join(' · ');
  tr.append(cell(e.time.slice(11, 23)), cell(e.method), cell(e.path), cell(status, 'status s' + status[0]), cell(Math.round(e.duration_ms), 'num'), cell(e.account), cell(e.route), cell(notes));
  const open = () => show(e);
  tr.addEventListener('click', open);
  tr.addEventListener('keydown', (event) => { if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); open(); } });
  return tr;
}
function renderLog() {
  const shown = entries.filter(matches).slice(-200).reverse();
  $('log').replaceChildren(...shown.map(row));
  $('log-count').textContent = shown.length + ' shown';
}
function show(e) {
  selected = e.id;
  $('detail-id').textContent = '#' + e.id + ' ' + e.method + ' ' + e.path;
  $('detail-id').className = '';
  const blocks = [['Request headers', JSON.stringify(e.headers, null, 2)], ['Request body', pretty(e.request_body)], ['Response (' + (e.status ?? 'dropped') + ')', pretty(e.response_body)], ['Journal entry', JSON.stringify({ ...e, request_body: undefined, response_body: undefined, headers: undefined }, null, 2)]];
  $('detail-body').replaceChildren(...blocks.flatMap(([title, text]) => { const h = document.createElement('h3'); h.textContent = title; h.className = 'muted'; const pre = document.createElement('pre'); pre.textContent = text; return [h, pre]; }));
  renderLog();
}
function pretty(text) { if (text == null) return '(none)'; try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; } }
let pending;
function changed() { clearTimeout(pending); pending = setTimeout(refreshState, 100); }
async function start() {
  // Everything the first view needs at once, in parallel: a first visit costs one round trip after the page.
  const [first] = await Promise.all([read('/requests?limit=200'), refreshState()]);
  entries.push(...first.requests);
  renderLog();
  const last = first.requests.length === 0 ? 0 : first.requests[first.requests.length - 1].id;
  followRequests(API + '/requests/stream?after_id=' + last, (entry) => { entries.push(entry); if (entries.length > 2000) entries.splice(0, entries.length - 2000); renderLog(); changed(); });
}
// Read when first opened: most visits never look at them.
$('fixtures-box').addEventListener('toggle', async () => { if ($('fixtures-box').open && $('fixtures').textContent === 'Loading…') $('fixtures').textContent = JSON.stringify(await read('/fixtures'), null, 2); });
for (const id of ['f-method', 'f-status', 'f-path']) $(id).addEventListener('input', renderLog);
$('clear-log').addEventListener('click', async () => { await change('DELETE', '/requests'); entries.length = 0; renderLog(); });
$('reset').addEventListener('click', () => { if (confirm('Reset the sandbox to its seed? Every order and deposit goes.')) change('POST', '/reset'); });
$('clock-form').addEventListener('submit', (event) => { event.preventDefault(); change('POST', '/clock', { advance_seconds: Number($('advance').value) }); });
$('fault-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const config = await read('/faults');
  const kind = $('fault-kind').value;
  const rule = { kind, rate: Number($('fault-rate').value) };
  if (kind === 'error') rule.status = Number($('fault-status').value);
  if (kind === 'latency') rule.latency_ms = 500;
  const routes = $('fault-routes').value.split(',').map((r) => r.trim()).filter(Boolean);
  if ($('fault-times').value !== '') rule.times = Number($('fault-times').value);
  if (routes.length > 0) rule.routes = routes;
  await change('PUT', '/faults', { seed: config.seed, rules: [...config.rules, rule] });
});
$('clear-faults').addEventListener('click', () => change('DELETE', '/faults'));
start();
</script>
</body>
</html>
`;
